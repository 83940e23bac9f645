package dev.periscope.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Projects for tests: a directory with {@code .harness/project.yaml} that lets the browser reach
 * 127.0.0.1.
 */
public final class TestProjects {
  public static final String LOOPBACK_ONLY =
      """
      plugins:
        browser:
          network:
            mode: allowlist
            allowCidrs: ["127.0.0.1/32"]
      """;

  private TestProjects() {}

  public static Path project(Path dir, String yaml) throws IOException {
    Files.createDirectories(dir.resolve(".harness"));
    Files.writeString(dir.resolve(".harness/project.yaml"), yaml);
    return dir;
  }
}
