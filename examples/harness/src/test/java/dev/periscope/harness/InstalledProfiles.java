package dev.periscope.harness;

import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Profiles with the built package installed, for the tests that are not about installing: the
 * harness's own installer ({@code harness plugin add} runs the same code) installs the package once
 * per test run and profile name, and each test gets a copy of the profile it left. Installing
 * verifies the package by loading every class in it: 1.5 s in the test's JVM, 3.3 s as a command,
 * and the tests install over a hundred times. The tests of installing itself (CommandLineTest,
 * HostTest, HarnessEndToEndTest) still run the installer or the command.
 */
public final class InstalledProfiles {
  private InstalledProfiles() {}

  private static final Path DIR = Path.of("target", "test-installed").toAbsolutePath();

  /** The installed profiles, by name, made in this JVM. */
  private static final Map<String, Path> MADE = new HashMap<>();

  /** Gives {@code home} profile {@code name} with the package installed, as the installer would. */
  public static HarnessHome.Profile install(HarnessHome home, String name) {
    Path made = made(name);
    HarnessHome.Profile profile = home.createProfile(name);
    try (Stream<Path> files = Files.walk(made)) {
      for (Path f : files.toList()) {
        Path to = profile.dir().resolve(made.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy the installed profile " + name, e);
    }
    return profile;
  }

  /** Gives a home at {@code root} profile {@code name} with the package installed. */
  public static HarnessHome.Profile install(Path root, String name) {
    return install(new HarnessHome(root), name);
  }

  private static synchronized Path made(String name) {
    Path made = MADE.get(name);
    if (made == null) {
      Path home = DIR.resolve(name);
      PluginInstaller.deleteTree(home);
      PluginInstaller.add(new HarnessHome(home), name, HarnessProcess.PACKAGE, false);
      made = new HarnessHome(home).profile(name).dir();
      MADE.put(name, made);
    }
    return made;
  }
}
