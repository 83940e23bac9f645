package dev.periscope.browser.playwright;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Finds the system Chromium and Node.js the provider drives: a configured path first, else the
 * usual names on the PATH. When none is found, the reason names the install command.
 */
final class Executables {
  static final String CHROMIUM_REMEDY =
      "install Chromium: apt-get install -y chromium"
          + " (or set plugins.browser.chromium.executable in the project's .harness/project.yaml)";
  static final String NODE_REMEDY =
      "install Node.js 18 or newer: apt-get install -y nodejs"
          + " (or set plugins.browser.node.executable, or PLAYWRIGHT_NODEJS_PATH)";

  /** A found executable, or the reason it was not found. */
  record Lookup(Optional<Path> path, String reason) {}

  private Executables() {}

  static Lookup chromium(Optional<String> configured) {
    return find(
        configured,
        List.of("chromium", "chromium-browser", "google-chrome"),
        "Chromium",
        CHROMIUM_REMEDY);
  }

  static Lookup node(Optional<String> configured) {
    Optional<String> fromEnv =
        Optional.ofNullable(System.getenv("PLAYWRIGHT_NODEJS_PATH")).filter(s -> !s.isBlank());
    return find(configured.or(() -> fromEnv), List.of("node", "nodejs"), "Node.js", NODE_REMEDY);
  }

  private static Lookup find(
      Optional<String> configured, List<String> names, String what, String remedy) {
    if (configured.isPresent()) {
      Path p = Path.of(configured.get());
      return Files.isRegularFile(p) && Files.isExecutable(p)
          ? new Lookup(Optional.of(p), null)
          : new Lookup(
              Optional.empty(),
              what + " is not an executable file at the configured path " + p + "; " + remedy);
    }
    String pathVariable = Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin");
    for (String name : names) {
      for (String dir :
          (pathVariable + File.pathSeparator + "/usr/bin").split(File.pathSeparator)) {
        Path p = Path.of(dir.isEmpty() ? "." : dir, name);
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          return new Lookup(Optional.of(p), null);
        }
      }
    }
    return new Lookup(
        Optional.empty(),
        what + " was not found (looked for " + String.join(", ", names) + "); " + remedy);
  }
}
