package dev.periscope.harness.profile;

import dev.periscope.harness.HarnessException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The harness's directory ({@code $HARNESS_HOME}, default {@code ~/.harness}). Each profile lives
 * in {@code profiles/P/}: its installed plugins, its SQLite data, its attachments, and its
 * settings.
 */
public record HarnessHome(Path root) {
  public HarnessHome {
    root = root.toAbsolutePath().normalize();
  }

  private static final Pattern PROFILE = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$");

  public static HarnessHome fromEnvironment() {
    String env = System.getenv("HARNESS_HOME");
    return new HarnessHome(
        env != null && !env.isBlank()
            ? Path.of(env)
            : Path.of(System.getProperty("user.home"), ".harness"));
  }

  /** An existing profile, or a clear error naming how to create it. */
  public Profile profile(String name) {
    Profile p = profileUnchecked(name);
    if (!Files.isDirectory(p.dir())) {
      throw new HarnessException(
          "unknown profile '"
              + name
              + "' (no "
              + p.dir()
              + "); a profile is created by"
              + " 'harness plugin add --profile "
              + name
              + " PACKAGE'");
    }
    return p;
  }

  /** A profile, created if missing. */
  public Profile createProfile(String name) {
    Profile p = profileUnchecked(name);
    try {
      Files.createDirectories(p.plugins());
      Files.createDirectories(p.data());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create profile " + name, e);
    }
    return p;
  }

  private Profile profileUnchecked(String name) {
    if (name == null || !PROFILE.matcher(name).matches()) {
      throw new HarnessException(
          "invalid profile name '" + name + "': use letters, digits, '.', '_' or '-'");
    }
    return new Profile(name, root.resolve("profiles").resolve(name));
  }

  /** One profile's directories. */
  public record Profile(String name, Path dir) {
    public Path plugins() {
      return dir.resolve("plugins");
    }

    public Path data() {
      return dir.resolve("data");
    }

    /** A plugin's private data directory, created owner-only on first use. */
    public Path pluginData(String pluginId) {
      Path dir = data().resolve("plugins").resolve(pluginId);
      try {
        if (!java.nio.file.Files.isDirectory(dir)) {
          java.nio.file.Files.createDirectories(dir.getParent());
          java.nio.file.Files.createDirectory(
              dir,
              java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                  java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        }
        return dir;
      } catch (java.io.IOException e) {
        throw new HarnessException(
            "cannot create the data directory of plugin "
                + pluginId
                + " at "
                + dir
                + ": "
                + e.getMessage());
      }
    }

    public Path attachments() {
      return dir.resolve("attachments");
    }

    public Path settings() {
      return dir.resolve("profile.yaml");
    }

    /**
     * The verified package each installed plugin came from, kept for {@code doctor} to verify
     * again.
     */
    public Path packages() {
      return dir.resolve("packages");
    }
  }
}
