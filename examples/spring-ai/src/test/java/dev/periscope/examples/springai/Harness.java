package dev.periscope.examples.springai;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The reference harness as a real process, from the classes and libraries its module built (as
 * {@code examples/harness}'s own {@code HarnessProcess} starts it): a home with the plugin package
 * installed into profile {@code p}, and a project that lets the browser reach 127.0.0.1 only.
 */
final class Harness {
  static final Path TARGET =
      Path.of(System.getProperty("periscope.harness", "../harness/target"))
          .toAbsolutePath()
          .normalize();
  static final Path PACKAGE =
      Path.of(
              System.getProperty(
                  "periscope.package", "../../browser-plugin/target/periscope-browser-0.1.0.zip"))
          .toAbsolutePath()
          .normalize();
  static final String LOOPBACK_ONLY =
      """
      plugins:
        browser:
          network:
            mode: allowlist
            allowCidrs: ["127.0.0.1/32"]
      """;

  final Path home;
  final Path tmp;
  final Path project;

  private Harness(Path dir) throws IOException {
    home = Files.createDirectories(dir.resolve("home"));
    tmp = Files.createDirectories(dir.resolve("tmp"));
    project = Files.createDirectories(dir.resolve("project"));
    Files.createDirectories(project.resolve(".harness"));
    Files.writeString(project.resolve(".harness/project.yaml"), LOOPBACK_ONLY);
  }

  /** A home in {@code dir} with the plugin installed into profile {@code p}. */
  static Harness install(Path dir) throws IOException, InterruptedException {
    Harness harness = new Harness(dir);
    ProcessBuilder pb = harness.process("plugin", "add", "--profile", "p", PACKAGE.toString());
    Path out = Files.createTempFile(harness.tmp, "plugin-add-", ".txt");
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.redirectErrorStream(true);
    pb.redirectOutput(out.toFile());
    Process p = pb.start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("plugin add did not end within 120 s");
    }
    if (p.exitValue() != 0) {
      throw new AssertionError(
          "plugin add exited "
              + p.exitValue()
              + ":\n"
              + Files.readString(out, StandardCharsets.UTF_8));
    }
    return harness;
  }

  /**
   * {@code harness ARGS} as {@code ./harness} runs it: Java's own output to standard error, the
   * JIT's first tier only but for {@code mcp --http}.
   */
  List<String> command(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+DisplayVMOutputToStderr",
                "-Xlog:disable",
                "-Xlog:all=warning:stderr",
                List.of(args).contains("--http")
                    ? "-XX:TieredStopAtLevel=4"
                    : "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                TARGET.resolve("classes") + File.pathSeparator + TARGET.resolve("lib") + "/*",
                "dev.periscope.harness.cli.Main"));
    command.addAll(List.of(args));
    return command;
  }

  /** The environment the harness runs in: this home, this temp directory, no terminal. */
  Map<String, String> environment() {
    return Map.of("HARNESS_HOME", home.toString(), "TMPDIR", tmp.toString(), "HARNESS_TTY", "none");
  }

  ProcessBuilder process(String... args) {
    ProcessBuilder pb = new ProcessBuilder(command(args));
    pb.environment().putAll(environment());
    return pb;
  }
}
