package dev.periscope.browser.playwright;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.CheckpointMissingException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checkpoint payloads on disk: opaque random-name files of mode 0600 in an owner-only directory
 * that must not be a symbolic link, each written to a temporary file, flushed and moved into place
 * atomically. Only names this class made are accepted back, so a ref can never point outside the
 * directory.
 */
final class CheckpointFiles {
  private static final Pattern NAME = Pattern.compile("^[0-9a-f]{32}\\.json$");
  private static final String PARTIAL = ".writing-";
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");

  private final Path directory;
  private final SecureRandom random = new SecureRandom();

  CheckpointFiles(Path directory) {
    this.directory = directory;
  }

  /** Writes a payload and returns its name. */
  String write(byte[] payload) {
    Path dir = directory();
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    String name = HexFormat.of().formatHex(bytes) + ".json";
    Path partial = null;
    try {
      partial =
          Files.createTempFile(
              dir,
              PARTIAL,
              ".tmp",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try (FileChannel out =
          FileChannel.open(partial, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        ByteBuffer buffer = ByteBuffer.wrap(payload);
        while (buffer.hasRemaining()) {
          out.write(buffer);
        }
        out.force(true);
      }
      Files.move(partial, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
      return name;
    } catch (IOException e) {
      if (partial != null) {
        try {
          Files.deleteIfExists(partial);
        } catch (IOException ignored) {
          // the sweep at the next start removes it
        }
      }
      throw new BrowserException(
          ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
          "the browser state could not be saved in " + dir + ": " + e.getMessage(),
          e);
    }
  }

  /** Reads a payload; a missing one is {@link CheckpointMissingException}. */
  byte[] read(String name) {
    Path file = directory().resolve(checked(name));
    try (SeekableByteChannel in =
        Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(in.size()));
      while (buffer.hasRemaining() && in.read(buffer) >= 0) {
        // read it all
      }
      return buffer.array();
    } catch (NoSuchFileException e) {
      throw new CheckpointMissingException("checkpoint payload " + name + " does not exist");
    } catch (IOException e) {
      throw new BrowserException(
          ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
          "checkpoint payload " + name + " could not be read: " + e.getMessage(),
          e);
    }
  }

  /** Deletes a payload; one already gone is fine. */
  void delete(String name) {
    try {
      Files.deleteIfExists(directory().resolve(checked(name)));
    } catch (IOException e) {
      throw new UncheckedIOException("checkpoint payload " + name + " could not be deleted", e);
    }
  }

  /**
   * Removes partial payloads older than an hour: a host killed while writing one leaves it behind.
   */
  void sweepPartial() {
    if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Instant before = Instant.now().minus(Duration.ofHours(1));
    try (Stream<Path> files = Files.list(directory)) {
      for (Path p : files.filter(p -> p.getFileName().toString().startsWith(PARTIAL)).toList()) {
        FileTime modified = Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS);
        if (modified.toInstant().isBefore(before)) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException e) {
      // best effort; the next start tries again
    }
  }

  /**
   * The directory, created owner-only when missing. A symbolic link, or a directory of another
   * user, is refused: whoever controls it could read or swap the payloads.
   */
  Path directory() {
    try {
      if (Files.isSymbolicLink(directory)) {
        throw refused("is a symbolic link");
      }
      if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
        Files.createDirectories(directory.getParent());
        try {
          Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (java.nio.file.FileAlreadyExistsException raced) {
          return directory();
        }
      }
      if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
        throw refused("is not a directory");
      }
      String owner = Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS).getName();
      if (!owner.equals(System.getProperty("user.name"))) {
        throw refused("belongs to " + owner);
      }
      if (!Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY)) {
        Files.setPosixFilePermissions(directory, OWNER_ONLY);
      }
      return directory;
    } catch (IOException e) {
      throw new BrowserException(
          ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
          "the checkpoint directory " + directory + " cannot be used: " + e.getMessage(),
          e);
    }
  }

  private BrowserException refused(String why) {
    return new BrowserException(
        ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
        "the checkpoint directory "
            + directory
            + " "
            + why
            + "; refusing to keep browser state there. Remove it; it is recreated owner-only.");
  }

  private static String checked(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new BrowserException(
          ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE, "not a checkpoint payload name: " + name);
    }
    return name;
  }
}
