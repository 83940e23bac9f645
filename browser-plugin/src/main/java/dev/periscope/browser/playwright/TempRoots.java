package dev.periscope.browser.playwright;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's temp roots: short owner-only directories ({@code periscope-<8 hex>}: Chromium puts
 * a Unix socket a few levels below, and socket paths must stay under 108 bytes), each holding an
 * {@code owner} file with the process id and start time of the host that made it. A host killed
 * with SIGKILL cannot remove its root; the next start finds roots whose owner process is gone and
 * removes them.
 */
final class TempRoots {
  private static final Logger LOG = LoggerFactory.getLogger(TempRoots.class);
  static final String PREFIX = "periscope-";
  private static final String OWNER = "owner";

  private TempRoots() {}

  static Path create(Path base) {
    SecureRandom random = new SecureRandom();
    for (int attempt = 0; ; attempt++) {
      Path dir = base.resolve(PREFIX + HexFormat.of().toHexDigits(random.nextInt()));
      try {
        Files.createDirectory(
            dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(dir.resolve(OWNER), identity(ProcessHandle.current()));
        return dir;
      } catch (FileAlreadyExistsException e) {
        if (attempt > 10) {
          throw new UncheckedIOException(
              "cannot create the browser's temp directory in " + base, e);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the browser's temp directory in " + base, e);
      }
    }
  }

  /**
   * Removes the roots in {@code base} whose owner process no longer runs. Best effort: a failure
   * only warns.
   */
  static void removeAbandoned(Path base) {
    try (Stream<Path> entries = Files.list(base)) {
      for (Path dir : entries.filter(TempRoots::isRoot).toList()) {
        Optional<String> owner = readOwner(dir);
        if (owner.isPresent() && !alive(owner.get())) {
          try {
            PlaywrightProvider.deleteTree(dir);
            LOG.info("removed {}, left behind by a host that is gone", dir);
          } catch (UncheckedIOException e) {
            LOG.warn(
                "could not remove {}, left behind by a host that is gone: {}", dir, e.getMessage());
          }
        }
      }
    } catch (IOException e) {
      LOG.warn("could not look for temp directories left behind in {}: {}", base, e.getMessage());
    }
  }

  private static boolean isRoot(Path dir) {
    String name = dir.getFileName().toString();
    return name.matches(PREFIX + "[0-9a-f]{8}")
        && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
        && ownedByUs(dir);
  }

  /** Whether {@code dir} itself (not what a link points at) belongs to this process's user. */
  static boolean ownedByUs(Path dir) {
    try {
      return Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS)
          .getName()
          .equals(System.getProperty("user.name"));
    } catch (IOException e) {
      return false;
    }
  }

  private static Optional<String> readOwner(Path dir) {
    try {
      Path file = dir.resolve(OWNER);
      return Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
          ? Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip())
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the process the identity names still runs: same pid and same start time (pids are
   * reused).
   */
  private static boolean alive(String identity) {
    String[] parts = identity.split(" ", 2);
    try {
      Optional<ProcessHandle> process = ProcessHandle.of(Long.parseLong(parts[0]));
      return process.isPresent()
          && process.get().isAlive()
          && identity.equals(identity(process.get()));
    } catch (NumberFormatException e) {
      return true;
    }
  }

  static String identity(ProcessHandle process) {
    return process.pid() + " " + process.info().startInstant().map(Object::toString).orElse("?");
  }
}
