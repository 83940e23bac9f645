package dev.periscope.browser.playwright;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Playwright's Node.js driver, unpacked once per user and driver build instead of once per browser:
 * a lane then starts Node.js at once rather than first unpacking 14 MB from Playwright's jar, which
 * costs a quarter of a second (more on a cold JVM) at every start.
 *
 * <p>The directory is {@code <cache>/playwright-driver-<digest>}, the digest taken over the names,
 * sizes and checksums of the jar's {@code driver/package} entries, so another Playwright build gets
 * a directory of its own. It is unpacked under a temporary name and renamed into place whole, so a
 * process killed while unpacking leaves no half directory in use, and two hosts unpacking at once
 * both end with one complete copy. Before each use every file is checked for its size; a copy that
 * is damaged is unpacked afresh. The cache directory must be the user's own and writable by no one
 * else (made {@code 0700} when new): the driver's code runs as the user. When any of this cannot
 * hold, {@link #unpacked} says so and the lane unpacks a private copy as before.
 *
 * <p>Beside the driver it puts {@code code-cache.js}, which the lane starts Node.js with: it keeps
 * V8's compiled code of the driver's files in {@code code-cache/}, so a driver does not compile its
 * 3.6 MB of JavaScript again at every start.
 */
final class DriverFiles {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DriverFiles.class);
  private static final String PREFIX = "driver/package/";

  private DriverFiles() {}

  /**
   * The per-user cache directory: {@code $XDG_CACHE_HOME/periscope}, else {@code
   * ~/.cache/periscope}.
   */
  static Path defaultCache() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("periscope");
  }

  /**
   * The driver directory (holding {@code package/cli.js}) under {@code cache}, unpacked now if it
   * is missing or damaged; empty, with the reason logged, when the cache cannot be used.
   */
  static Optional<Path> unpacked(Path cache) {
    try (ZipFile jar = driverJar()) {
      List<ZipEntry> files = new ArrayList<>();
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      jar.stream()
          .filter(e -> e.getName().startsWith(PREFIX) && !e.isDirectory())
          .sorted(java.util.Comparator.comparing(ZipEntry::getName))
          .forEach(
              e -> {
                files.add(e);
                digest.update(
                    (e.getName() + "\0" + e.getSize() + "\0" + e.getCrc() + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
              });
      if (files.isEmpty()) {
        throw new IOException("Playwright's jar holds no driver/package");
      }
      ownCache(cache);
      Path dir =
          cache.resolve("playwright-driver-" + HexFormat.of().formatHex(digest.digest(), 0, 8));
      if (!complete(dir, files)) {
        unpack(jar, files, cache, dir);
      }
      placeCodeCacheScript(dir);
      return Optional.of(dir);
    } catch (IOException | NoSuchAlgorithmException | URISyntaxException | RuntimeException e) {
      LOG.warn(
          "Playwright's driver is unpacked for each browser, not kept in {}: {}",
          cache,
          e.toString());
      return Optional.empty();
    }
  }

  /**
   * The script the driver is started with ({@code node --require}) that keeps V8's compiled code of
   * the driver's files in {@code code-cache/} beside it, in {@code dir}; absent when it could not
   * be written (the driver then starts without it).
   */
  static Optional<Path> codeCacheScript(Path dir) {
    Path script = dir.resolve(CODE_CACHE_SCRIPT);
    return Files.isRegularFile(script, LinkOption.NOFOLLOW_LINKS)
        ? Optional.of(script)
        : Optional.empty();
  }

  private static final String CODE_CACHE_SCRIPT = "code-cache.js";

  /**
   * Puts this build's code-cache script into {@code dir} unless it is there already, under a
   * temporary name first and then renamed, so a driver never starts with half of it. A failure is
   * logged; a script already there stays in use.
   */
  private static void placeCodeCacheScript(Path dir) {
    Path script = dir.resolve(CODE_CACHE_SCRIPT);
    try (InputStream in = DriverFiles.class.getResourceAsStream("driver-code-cache.js")) {
      if (in == null) {
        throw new IOException("driver-code-cache.js is missing from the plugin");
      }
      byte[] wanted = in.readAllBytes();
      if (Files.isRegularFile(script, LinkOption.NOFOLLOW_LINKS)
          && java.util.Arrays.equals(Files.readAllBytes(script), wanted)) {
        return;
      }
      Path fresh = Files.createTempFile(dir, ".code-cache-", ".js");
      try {
        Files.write(fresh, wanted);
        Files.move(
            fresh, script, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(fresh);
      }
    } catch (IOException | RuntimeException e) {
      // A script already there stays: it was renamed into place whole, and a driver of another
      // host may be starting with it now.
      LOG.warn("the driver's code-cache script in {} was not brought up to date: {}", dir, e);
    }
    try {
      sweep(dir, ".code-cache-*.js");
    } catch (IOException e) {
      // tried again at the next start
    }
  }

  /** The jar on disk that holds Playwright's driver. */
  private static ZipFile driverJar() throws IOException, URISyntaxException {
    URL url =
        com.microsoft.playwright.impl.driver.Driver.class
            .getClassLoader()
            .getResource(PREFIX + "cli.js");
    if (url == null) {
      throw new IOException("Playwright's driver is not on the class path");
    }
    if (!(url.openConnection() instanceof JarURLConnection connection)
        || !"file".equals(connection.getJarFileURL().getProtocol())) {
      throw new IOException("Playwright's driver is not in a jar file on disk: " + url);
    }
    return new ZipFile(Path.of(connection.getJarFileURL().toURI()).toFile());
  }

  /** Makes the cache directory the user's own, or refuses one that someone else could write. */
  private static void ownCache(Path cache) throws IOException {
    if (!Files.exists(cache, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(cache.getParent());
      try {
        Files.createDirectory(
            cache,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (java.nio.file.FileAlreadyExistsException raced) {
        // another host made it meanwhile: checked below like any other
      }
    }
    if (!Files.isDirectory(cache, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(cache + " is not a directory");
    }
    if (!TempRoots.ownedByUs(cache)) {
      throw new IOException(cache + " does not belong to " + System.getProperty("user.name"));
    }
    Set<PosixFilePermission> modes =
        Files.getPosixFilePermissions(cache, LinkOption.NOFOLLOW_LINKS);
    if (modes.contains(PosixFilePermission.GROUP_WRITE)
        || modes.contains(PosixFilePermission.OTHERS_WRITE)) {
      throw new IOException(cache + " is writable by others");
    }
  }

  /** Whether every driver file is in {@code dir} with its size. */
  private static boolean complete(Path dir, List<ZipEntry> files) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    for (ZipEntry e : files) {
      Path file = dir.resolve("package").resolve(e.getName().substring(PREFIX.length()));
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
          || Files.size(file) != e.getSize()) {
        LOG.warn(
            "the unpacked Playwright driver in {} is damaged ({}): unpacking it again", dir, file);
        return false;
      }
    }
    return true;
  }

  /** Unpacks under a temporary name in {@code cache}, then renames it to {@code dir}. */
  private static void unpack(ZipFile jar, List<ZipEntry> files, Path cache, Path dir)
      throws IOException {
    sweep(cache, ".{unpacking,damaged}-*");
    Path fresh = Files.createTempDirectory(cache, ".unpacking-");
    try {
      for (ZipEntry e : files) {
        Path file = fresh.resolve("package").resolve(e.getName().substring(PREFIX.length()));
        if (!file.normalize().startsWith(fresh)) {
          throw new IOException("a driver entry leaves its directory: " + e.getName());
        }
        Files.createDirectories(file.getParent());
        try (InputStream in = jar.getInputStream(e)) {
          Files.copy(in, file);
        }
      }
      Path damaged = null;
      if (complete(dir, files)) {
        return; // another host put its complete copy in place meanwhile: that one is used
      }
      if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        // A damaged copy: moved aside first, so the rename below is whole.
        damaged = Files.createTempDirectory(cache, ".damaged-");
        Files.move(dir, damaged.resolve("driver"), StandardCopyOption.ATOMIC_MOVE);
      }
      try {
        Files.move(fresh, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException raced) {
        // Another host may have put its complete copy in place first: then that one is used.
        if (!complete(dir, files)) {
          throw raced;
        }
      } finally {
        PlaywrightProvider.deleteTree(damaged);
      }
    } finally {
      if (Files.exists(fresh, LinkOption.NOFOLLOW_LINKS)) {
        PlaywrightProvider.deleteTree(fresh);
      }
    }
  }

  /**
   * Removes what a host killed while unpacking or writing left behind in {@code dir} (the entries
   * matching {@code glob}), once it is an hour old.
   */
  private static void sweep(Path dir, String glob) throws IOException {
    java.nio.file.attribute.FileTime hourAgo =
        java.nio.file.attribute.FileTime.from(java.time.Instant.now().minusSeconds(3600));
    try (var entries = Files.newDirectoryStream(dir, glob)) {
      for (Path left : entries) {
        if (Files.getLastModifiedTime(left, LinkOption.NOFOLLOW_LINKS).compareTo(hourAgo) < 0) {
          PlaywrightProvider.deleteTree(left);
        }
      }
    }
  }
}
