package dev.periscope.harness.profile;

import dev.periscope.api.HostApi;
import dev.periscope.harness.HarnessException;
import dev.periscope.verify.ManifestException;
import dev.periscope.verify.ManifestReader;
import dev.periscope.verify.PackageArchive;
import dev.periscope.verify.PackageVerifier;
import dev.periscope.verify.PluginManifest;
import dev.periscope.verify.VerificationReport;
import dev.periscope.verify.YamlPluginDescriptorFinder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.pf4j.DefaultVersionManager;

/**
 * Installs verified plugin packages into a profile ({@code plugins/<id>/}, unpacked), lists and
 * removes them. A package that fails verification, or whose {@code requires} excludes this host's
 * API version, is refused.
 */
public final class PluginInstaller {
  private PluginInstaller() {}

  /** Installs and returns the summary lines. */
  public static String add(
      HarnessHome home, String profileName, Path packageFile, boolean replace) {
    VerificationReport report = new PackageVerifier().verify(packageFile, Optional.empty());
    if (!report.passed()) {
      throw new HarnessException(
          "refused " + packageFile + ":\n" + report.render().stripTrailing());
    }
    PluginManifest manifest = packagedManifest(packageFile);
    if (!new DefaultVersionManager().checkVersionConstraint(HostApi.VERSION, manifest.requires())) {
      throw new HarnessException(
          "refused "
              + packageFile
              + ": plugin "
              + manifest.id()
              + " requires host API "
              + manifest.requires()
              + ", and this host provides "
              + HostApi.VERSION);
    }
    HarnessHome.Profile profile = home.createProfile(profileName);
    Path target = profile.plugins().resolve(manifest.id());
    if (Files.exists(target) && !replace) {
      throw new HarnessException(
          "plugin "
              + manifest.id()
              + " is already installed in profile "
              + profileName
              + "; add --replace to replace it");
    }
    // Unpack beside the installed copy first: a package that fails to unpack leaves the installed
    // one working.
    Path staging = profile.plugins().resolve("." + manifest.id() + ".installing");
    Path retired = profile.plugins().resolve("." + manifest.id() + ".replaced");
    try {
      deleteTree(staging);
      deleteTree(retired);
      unpack(packageFile, staging);
      if (Files.exists(target)) {
        Files.move(target, retired);
      }
      Files.move(staging, target);
      Files.createDirectories(profile.packages());
      Files.copy(
          packageFile,
          packageOf(profile, manifest.id()),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      deleteTree(staging);
      deleteTree(retired);
    }
    return "installed "
        + manifest.id()
        + " "
        + manifest.version()
        + " into profile "
        + profileName
        + "\n"
        + report.render().stripTrailing();
  }

  static Path packageOf(HarnessHome.Profile profile, String pluginId) {
    return profile.packages().resolve(pluginId + ".zip");
  }

  /**
   * Verifies an installed plugin again: its kept package must still pass, and the installed
   * descriptor must be the one inside it. Returns the failures, or an empty list and the summary's
   * sha256 line.
   */
  public static VerificationReport reverify(HarnessHome.Profile profile, String pluginId) {
    Path descriptor =
        profile.plugins().resolve(pluginId).resolve(YamlPluginDescriptorFinder.FILE_NAME);
    return new PackageVerifier().verify(packageOf(profile, pluginId), Optional.of(descriptor));
  }

  public static Map<String, PluginManifest> installed(HarnessHome.Profile profile) {
    Map<String, PluginManifest> out = new LinkedHashMap<>();
    if (!Files.isDirectory(profile.plugins())) {
      return out;
    }
    try (Stream<Path> dirs = Files.list(profile.plugins())) {
      for (Path dir :
          dirs.filter(d -> !d.getFileName().toString().startsWith(".")).sorted().toList()) {
        Path descriptor = dir.resolve(YamlPluginDescriptorFinder.FILE_NAME);
        if (Files.isRegularFile(descriptor)) {
          try {
            PluginManifest m = ManifestReader.read(descriptor);
            out.put(m.id(), m);
          } catch (ManifestException e) {
            throw new HarnessException(
                "installed plugin at " + dir + " is broken: " + e.getMessage());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  public static void remove(HarnessHome home, String profileName, String id) {
    HarnessHome.Profile profile = home.profile(profileName);
    if (!installed(profile).containsKey(id)) {
      throw new HarnessException("plugin " + id + " is not installed in profile " + profileName);
    }
    deleteTree(profile.plugins().resolve(id));
    try {
      Files.deleteIfExists(packageOf(profile, id));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static PluginManifest packagedManifest(Path packageFile) {
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(packageFile))) {
      for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        if (e.getName().equals(YamlPluginDescriptorFinder.FILE_NAME)) {
          return ManifestReader.parse(packageFile + "!/plugin.yaml", in.readAllBytes());
        }
      }
    } catch (IOException | ManifestException e) {
      throw new HarnessException(
          "cannot read the descriptor of " + packageFile + ": " + e.getMessage(), e);
    }
    throw new HarnessException(packageFile + " has no plugin.yaml");
  }

  private static void unpack(Path zipFile, Path into) {
    try {
      PackageArchive.unpack(zipFile, into, 8 * PackageVerifier.DEFAULT_MAX_BYTES);
    } catch (PackageArchive.UnsafeArchiveException e) {
      throw new HarnessException("refused " + zipFile + ": " + e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack " + zipFile, e);
    }
  }

  public static void deleteTree(Path dir) {
    PackageArchive.deleteTree(dir);
  }
}
