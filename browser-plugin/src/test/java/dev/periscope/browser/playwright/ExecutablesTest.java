package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which Chromium runs: a headless browser is Chromium's headless shell when it is installed (its
 * own binary before a launcher on the PATH), a headed one the browser; a configured path wins.
 */
class ExecutablesTest {
  @TempDir Path dir;

  private Path executable(String name) throws IOException {
    Path p = Files.createDirectories(dir.resolve("bin")).resolve(name);
    Files.writeString(p, "#!/bin/sh\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }

  private Optional<Path> found(boolean headless, List<Path> shells) {
    return Executables.chromium(Optional.empty(), headless, dir.resolve("bin").toString(), shells)
        .path();
  }

  @Test
  void aHeadlessBrowserIsTheHeadlessShellsBinaryAndAHeadedOneTheBrowser() throws Exception {
    Path browser = executable("chromium");
    // Debian's launcher on the PATH, which does not exec the shell: never the one run.
    executable("chromium-headless-shell");
    Path binary = Files.createDirectories(dir.resolve("lib")).resolve("shell");
    Files.writeString(binary, "");
    Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwxr-xr-x"));

    assertEquals(Optional.of(binary), found(true, List.of(binary)), "headless: the shell's binary");
    assertEquals(Optional.of(browser), found(false, List.of(binary)), "headed: the browser");
    assertEquals(
        Optional.of(browser),
        found(true, List.of(dir.resolve("missing"))),
        "no shell binary: the browser, not the launcher");
    assertEquals(
        Optional.of(binary),
        Executables.chromium(Optional.of(binary.toString()), false, "", List.of()).path(),
        "a configured path wins");
  }

  @Test
  void noChromiumAtAllNamesEveryNameLookedForAndTheInstallCommand() {
    Executables.Lookup none =
        Executables.chromium(Optional.empty(), true, dir.toString(), List.of());
    assertTrue(none.path().isEmpty());
    assertTrue(
        none.reason()
            .startsWith(
                "Chromium was not found (looked for chromium, chromium-browser, google-chrome);"
                    + " install Chromium: apt-get install -y chromium"),
        none.reason());
  }
}
