package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Playwright's driver is unpacked from its real jar once into a private cache, checked before each
 * use, and never taken from a cache that someone else could have written.
 */
class DriverFilesTest {
  @TempDir Path tmp;

  private Path privateCache() throws Exception {
    return Files.createDirectory(
        tmp.resolve("cache"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
  }

  @Test
  void unpacksOnceAndTheNextStartUsesTheSameFiles() throws Exception {
    Path cache = privateCache();

    Path first = DriverFiles.unpacked(cache).orElseThrow();
    Path cli = first.resolve("package/cli.js");
    assertTrue(Files.isRegularFile(cli), "no cli.js in " + first);
    Files.setLastModifiedTime(cli, FileTime.fromMillis(0));

    Path second = DriverFiles.unpacked(cache).orElseThrow();

    assertEquals(first, second);
    assertEquals(0, Files.getLastModifiedTime(cli).toMillis(), "cli.js was unpacked again");
    assertEquals(List.of(first), children(cache), "something beside the driver was left behind");
  }

  @Test
  void aDamagedCopyIsUnpackedAgain() throws Exception {
    Path cache = privateCache();
    Path dir = DriverFiles.unpacked(cache).orElseThrow();
    Path cli = dir.resolve("package/cli.js");
    long size = Files.size(cli);
    Files.writeString(cli, "process.exit(1)");

    Path again = DriverFiles.unpacked(cache).orElseThrow();

    assertEquals(dir, again);
    assertEquals(size, Files.size(again.resolve("package/cli.js")));
    assertEquals(List.of(dir), children(cache), "the damaged copy was left behind");
  }

  @Test
  void twoHostsUnpackingAtOnceEndWithOneCompleteCopy() throws Exception {
    Path cache = privateCache();
    ExecutorService two = Executors.newFixedThreadPool(2);
    try {
      Callable<Optional<Path>> unpack = () -> DriverFiles.unpacked(cache);
      Future<Optional<Path>> a = two.submit(unpack);
      Future<Optional<Path>> b = two.submit(unpack);

      Path dir = a.get().orElseThrow();
      assertEquals(dir, b.get().orElseThrow());
      assertTrue(Files.isRegularFile(dir.resolve("package/cli.js")));
      assertEquals(List.of(dir), children(cache), "a half-unpacked copy was left behind");
    } finally {
      two.shutdownNow();
    }
  }

  @Test
  void aCacheOthersCanWriteIsNotUsed() throws Exception {
    Path cache = privateCache();
    Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwxrwxrwx"));

    assertEquals(Optional.empty(), DriverFiles.unpacked(cache));
    assertEquals(List.of(), children(cache), "something was written into a shared directory");
  }

  @Test
  void aCacheThatIsALinkElsewhereIsNotUsed() throws Exception {
    Path elsewhere = privateCache();
    Path link = Files.createSymbolicLink(tmp.resolve("link"), elsewhere);

    assertEquals(Optional.empty(), DriverFiles.unpacked(link));
    assertEquals(List.of(), children(elsewhere), "the driver was unpacked through the link");
  }

  @Test
  void aNewCacheIsMadePrivate() throws Exception {
    Path cache = tmp.resolve("new/periscope");

    DriverFiles.unpacked(cache).orElseThrow();

    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cache)));
  }

  private static List<Path> children(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }
}
