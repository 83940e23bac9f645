package dev.periscope.verify;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/** Unpacking a plugin package safely, for the verifier and for hosts that install packages. */
public final class PackageArchive {
  private PackageArchive() {}

  /** A package that cannot be unpacked safely; the message says why, for the user. */
  public static final class UnsafeArchiveException extends IOException {
    UnsafeArchiveException(String message) {
      super(message);
    }
  }

  /**
   * Unpacks {@code zipFile} into {@code directory}, refusing an entry that would land outside it
   * and stopping once more than {@code maxUnpackedBytes} came out, so a small archive cannot fill
   * the disk.
   */
  public static void unpack(Path zipFile, Path directory, long maxUnpackedBytes)
      throws IOException {
    Path dir = directory.toAbsolutePath().normalize();
    Files.createDirectories(dir);
    long total = 0;
    byte[] buffer = new byte[65536];
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zipFile))) {
      for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        Path target = dir.resolve(e.getName()).normalize();
        if (!target.startsWith(dir) || target.equals(dir)) {
          throw new UnsafeArchiveException("entry " + e.getName() + " escapes the package");
        }
        if (e.isDirectory()) {
          Files.createDirectories(target);
          continue;
        }
        Files.createDirectories(target.getParent());
        try (OutputStream out = Files.newOutputStream(target)) {
          for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
            total += n;
            if (total > maxUnpackedBytes) {
              throw new UnsafeArchiveException(
                  "size: package unpacks to more than " + maxUnpackedBytes + " bytes");
            }
            out.write(buffer, 0, n);
          }
        }
      }
    }
  }

  /** Deletes a directory tree; a missing one is fine. */
  public static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
