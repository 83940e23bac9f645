package dev.periscope.verify;

import com.google.inject.Module;
import dev.periscope.api.HostApi;
import dev.periscope.api.tool.SkillDeclaration;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import org.pf4j.DefaultVersionManager;
import org.pf4j.Extension;
import org.pf4j.Plugin;

/**
 * Checks a built plugin package (a zip of {@code plugin.yaml}, {@code classes/} and {@code lib/})
 * the way a host would load it, and reports every failure rather than the first.
 */
public final class PackageVerifier {
  /** The default size budget of a package: 8 MiB. */
  public static final long DEFAULT_MAX_BYTES = 8L * 1024 * 1024;

  private static final String EXTENSIONS_IDX = "classes/META-INF/extensions.idx";

  /** How much larger than its size budget a package may unpack to. */
  private static final long UNPACKED_FACTOR = 8;

  private final long maxBytes;

  public PackageVerifier(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  public PackageVerifier() {
    this(DEFAULT_MAX_BYTES);
  }

  /**
   * Verifies {@code packageFile}; with {@code sourceDescriptor}, also that the packaged plugin.yaml
   * equals it.
   */
  public VerificationReport verify(Path packageFile, Optional<Path> sourceDescriptor) {
    String name = packageFile.getFileName().toString();
    List<String> failures = new ArrayList<>();
    List<String> summary = new ArrayList<>();
    if (!Files.isRegularFile(packageFile)) {
      return new VerificationReport(
          name, List.of("no such package file: " + packageFile), List.of(), null);
    }
    Path unpacked = null;
    try (ZipFile zip = new ZipFile(packageFile.toFile())) {
      ZipEntry descriptorEntry = zip.getEntry(YamlPluginDescriptorFinder.FILE_NAME);
      if (descriptorEntry == null) {
        return new VerificationReport(
            name,
            List.of("not a plugin package: " + name + " has no plugin.yaml at its root"),
            List.of(),
            null);
      }
      byte[] descriptor = zip.getInputStream(descriptorEntry).readAllBytes();
      PluginManifest manifest = null;
      try {
        manifest = ManifestReader.parse(name + "!/plugin.yaml", descriptor);
      } catch (ManifestException e) {
        failures.add("descriptor: " + e.getMessage());
      }
      if (sourceDescriptor.isPresent()) {
        byte[] source = Files.readAllBytes(sourceDescriptor.get());
        if (!java.util.Arrays.equals(source, descriptor)) {
          failures.add(
              "descriptor: the packaged plugin.yaml differs from " + sourceDescriptor.get());
        }
      }
      long size = Files.size(packageFile);
      if (size > maxBytes) {
        failures.add(
            "size: package is " + size + " bytes, over its budget of " + maxBytes + " bytes");
      }
      unpacked = unpack(packageFile, UNPACKED_FACTOR * maxBytes);
      checkLibraries(unpacked, failures);
      List<String> extensions = checkExtensionIndex(unpacked, failures);
      if (manifest != null) {
        checkServices(manifest, failures);
        checkClasses(unpacked, manifest, failures);
        summary.add("package " + manifest.id() + " " + manifest.version() + " (" + name + ")");
        summary.add("plugin class: " + manifest.pluginClass());
        summary.add("module: " + manifest.module());
        summary.add(
            "requires host API: " + manifest.requires() + " (this host: " + HostApi.VERSION + ")");
        summary.add(
            "inject: required "
                + manifest.requiredServices()
                + ", optional "
                + manifest.optionalServices());
        manifest
            .skills()
            .forEach(
                s ->
                    summary.add(
                        (s.audience() == SkillDeclaration.Audience.OPERATOR
                                ? "operator skill "
                                : "skill ")
                            + s.name()
                            + ": "
                            + String.join(", ", s.tools())));
      }
      summary.add(
          "extensions: " + (extensions.isEmpty() ? "(none)" : String.join(", ", extensions)));
      summary.add("size: " + size + " bytes (budget " + maxBytes + ")");
    } catch (ZipException e) {
      return new VerificationReport(
          name,
          List.of(
              "not a plugin package: " + name + " is not a zip archive (" + e.getMessage() + ")"),
          List.of(),
          null);
    } catch (PackageArchive.UnsafeArchiveException e) {
      failures.add(e.getMessage());
    } catch (IOException e) {
      failures.add("cannot read " + name + ": " + e.getMessage());
    } finally {
      PackageArchive.deleteTree(unpacked);
    }
    return new VerificationReport(
        name, failures, summary, failures.isEmpty() ? sha256(packageFile) : null);
  }

  private static void checkServices(PluginManifest manifest, List<String> failures) {
    List<String> all = new ArrayList<>(manifest.requiredServices());
    all.addAll(manifest.optionalServices());
    for (String service : all) {
      if (!HostApi.SERVICES.containsKey(service)) {
        failures.add(
            "inject: '"
                + service
                + "' is not a host service (the host API defines "
                + new TreeSet<>(HostApi.SERVICES.keySet())
                + ")");
      }
    }
    try {
      new DefaultVersionManager().checkVersionConstraint(HostApi.VERSION, manifest.requires());
    } catch (RuntimeException e) {
      failures.add(
          "requires: '"
              + manifest.requires()
              + "' is not a valid host API version range ("
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + e.getMessage())
              + ")");
    }
  }

  private static void checkLibraries(Path root, List<String> failures) throws IOException {
    Path lib = root.resolve("lib");
    if (!Files.isDirectory(lib)) {
      return;
    }
    try (Stream<Path> jars = Files.list(lib)) {
      for (Path jar : jars.sorted().toList()) {
        String jarName = jar.getFileName().toString();
        List<String> found = new ArrayList<>();
        for (HostProvidedArtifacts.Artifact artifact : HostProvidedArtifacts.ALL) {
          if (jarName.startsWith(artifact.jarPrefix() + "-")
              || containsPackage(jar, artifact.packagePath())) {
            found.add(artifact.name());
          }
        }
        if (!found.isEmpty()) {
          failures.add(
              "lib/"
                  + jarName
                  + " is host-provided ("
                  + String.join(", ", found)
                  + ") and must not be inside the package");
        }
      }
    }
  }

  private static boolean containsPackage(Path jar, String packagePath) throws IOException {
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
      for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        if (e.getName().startsWith(packagePath) && e.getName().endsWith(".class")) {
          return true;
        }
      }
    } catch (ZipException e) {
      return false;
    }
    return false;
  }

  private static List<String> checkExtensionIndex(Path root, List<String> failures)
      throws IOException {
    Path classes = root.resolve("classes");
    Path idx = root.resolve(EXTENSIONS_IDX);
    TreeSet<String> listed = new TreeSet<>();
    if (Files.isRegularFile(idx)) {
      for (String line : Files.readAllLines(idx, StandardCharsets.UTF_8)) {
        String l = line.trim();
        if (!l.isEmpty() && !l.startsWith("#")) {
          listed.add(l);
        }
      }
    }
    TreeSet<String> annotated = new TreeSet<>();
    if (Files.isDirectory(classes)) {
      try (URLClassLoader loader = classLoader(root);
          Stream<Path> files = Files.walk(classes)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
          String className =
              classes.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
          try {
            Class<?> c = Class.forName(className, false, loader);
            if (c.isAnnotationPresent(Extension.class)) {
              annotated.add(className);
            }
          } catch (ClassNotFoundException | LinkageError e) {
            failures.add(
                "classes: " + className + " does not load against the host API (" + e + ")");
          }
        }
      }
    }
    for (String c : annotated) {
      if (!listed.contains(c)) {
        failures.add(
            "extensions.idx: @Extension class " + c + " is not listed in META-INF/extensions.idx");
      }
    }
    for (String c : listed) {
      if (!annotated.contains(c)) {
        failures.add(
            "extensions.idx: lists " + c + ", which is not an @Extension class of the package");
      }
    }
    return List.copyOf(annotated);
  }

  private static void checkClasses(Path root, PluginManifest manifest, List<String> failures)
      throws IOException {
    try (URLClassLoader loader = classLoader(root)) {
      checkClass(root, loader, "pluginClass", manifest.pluginClass(), Plugin.class, failures);
      checkClass(root, loader, "module", manifest.module(), Module.class, failures);
    }
  }

  private static void checkClass(
      Path root,
      URLClassLoader loader,
      String field,
      String className,
      Class<?> expected,
      List<String> failures)
      throws IOException {
    String resource = className.replace('.', '/') + ".class";
    if (!Files.isRegularFile(root.resolve("classes").resolve(resource))
        && !inLibraries(root, resource)) {
      failures.add(field + ": class " + className + " is not in the package");
      return;
    }
    try {
      Class<?> c = Class.forName(className, false, loader);
      if (!expected.isAssignableFrom(c)) {
        failures.add(field + ": " + className + " is not a " + expected.getName());
      }
    } catch (ClassNotFoundException | LinkageError e) {
      failures.add(field + ": " + className + " does not load against the host API (" + e + ")");
    }
  }

  private static boolean inLibraries(Path root, String resource) throws IOException {
    Path lib = root.resolve("lib");
    if (!Files.isDirectory(lib)) {
      return false;
    }
    try (Stream<Path> jars = Files.list(lib)) {
      for (Path jar : jars.toList()) {
        try (ZipFile z = new ZipFile(jar.toFile())) {
          if (z.getEntry(resource) != null) {
            return true;
          }
        } catch (ZipException e) {
          // not a jar: reported nowhere else, but it cannot hold the class either
        }
      }
    }
    return false;
  }

  /**
   * The plugin's classes over the host's: whatever the package needs beyond the host API must be
   * inside it.
   */
  private static URLClassLoader classLoader(Path root) throws IOException {
    List<URL> urls = new ArrayList<>();
    urls.add(root.resolve("classes").toUri().toURL());
    Path lib = root.resolve("lib");
    if (Files.isDirectory(lib)) {
      try (Stream<Path> jars = Files.list(lib)) {
        for (Path jar : jars.sorted().toList()) {
          urls.add(jar.toUri().toURL());
        }
      }
    }
    return new URLClassLoader(urls.toArray(URL[]::new), PackageVerifier.class.getClassLoader());
  }

  private static Path unpack(Path zipFile, long maxUnpackedBytes) throws IOException {
    Path dir = Files.createTempDirectory("periscope-verify-");
    try {
      PackageArchive.unpack(zipFile, dir, maxUnpackedBytes);
    } catch (IOException | RuntimeException e) {
      PackageArchive.deleteTree(dir);
      throw e;
    }
    return dir;
  }

  public static String sha256(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[65536];
      for (int n = in.read(buf); n > 0; n = in.read(buf)) {
        digest.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
