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

  /**
   * The Chromium to run: the configured one, else, for a headless browser, Chromium's headless
   * shell when it is installed (Debian's {@code chromium-headless-shell}, what Playwright itself
   * runs headless: the same engine without the browser's windowing layers, about half the CPU per
   * page and a third of the launch), else the browser.
   */
  static Lookup chromium(Optional<String> configured, boolean headless) {
    return chromium(configured, headless, searchPath(), HEADLESS_SHELL_BINARIES);
  }

  /**
   * The same, looking first at {@code shellBinaries} (for a headless browser), then for the browser
   * in the directories of {@code pathVariable} (a PATH value), in order.
   */
  static Lookup chromium(
      Optional<String> configured,
      boolean headless,
      String pathVariable,
      List<Path> shellBinaries) {
    if (configured.isEmpty() && headless) {
      for (Path shell : shellBinaries) {
        if (Files.isRegularFile(shell) && Files.isExecutable(shell)) {
          return new Lookup(Optional.of(shell), null);
        }
      }
    }
    return find(
        configured,
        List.of("chromium", "chromium-browser", "google-chrome"),
        "Chromium",
        CHROMIUM_REMEDY,
        pathVariable);
  }

  /**
   * The headless shell's own binary where Debian puts it. Only the binary: its {@code /usr/bin}
   * launcher runs it without {@code exec}, so the process Playwright starts would be a shell, not
   * the browser whose exit and pid the provider watches.
   */
  static final List<Path> HEADLESS_SHELL_BINARIES =
      List.of(Path.of("/usr/lib/chromium/chromium-headless-shell"));

  static Lookup node(Optional<String> configured) {
    Optional<String> fromEnv =
        Optional.ofNullable(System.getenv("PLAYWRIGHT_NODEJS_PATH")).filter(s -> !s.isBlank());
    return find(
        configured.or(() -> fromEnv),
        List.of("node", "nodejs"),
        "Node.js",
        NODE_REMEDY,
        searchPath());
  }

  /** The host's PATH, then /usr/bin. */
  private static String searchPath() {
    return Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin")
        + File.pathSeparator
        + "/usr/bin";
  }

  private static Lookup find(
      Optional<String> configured,
      List<String> names,
      String what,
      String remedy,
      String pathVariable) {
    if (configured.isPresent()) {
      Path p = Path.of(configured.get());
      return Files.isRegularFile(p) && Files.isExecutable(p)
          ? new Lookup(Optional.of(p), null)
          : new Lookup(
              Optional.empty(),
              what + " is not an executable file at the configured path " + p + "; " + remedy);
    }
    for (String name : names) {
      for (String dir : pathVariable.split(File.pathSeparator)) {
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
