package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.impl.BoundedConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Node.js driver, started as a lane starts it, keeps V8's compiled code of its own files
 * beside the unpacked driver; the next start takes that code instead of compiling again, and a
 * damaged cache only costs the cache.
 */
class DriverCodeCacheTest {
  @TempDir Path tmp;

  private Path driver() throws Exception {
    Path cache =
        Files.createDirectory(
            tmp.resolve("cache"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    return DriverFiles.unpacked(cache).orElseThrow();
  }

  /**
   * Starts the driver with its code cache, speaks to it, and lets it exit as a lane's close does.
   */
  private static void startAndStop(Path dir) throws Exception {
    BoundedConnection c =
        BoundedConnection.start(
            Optional.of(dir), DriverFiles.codeCacheScript(dir), RawPlaywright.DRIVER_ENV);
    try {
      assertEquals("chromium", c.playwright().chromium().name());
    } finally {
      c.disconnect();
      assertTrue(c.process().waitFor(20, TimeUnit.SECONDS), "the driver did not exit");
    }
  }

  private static Map<Path, FileTime> written(Path dir) throws Exception {
    Map<Path, FileTime> times = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir.resolve("code-cache"))) {
      for (Path f : files.toList()) {
        times.put(f.getFileName(), Files.getLastModifiedTime(f));
      }
    }
    return times;
  }

  @Test
  void theDriverKeepsItsCompiledCodeAndTheNextStartCompilesNothingAgain() throws Exception {
    Path dir = driver();

    startAndStop(dir);
    Map<Path, FileTime> first = written(dir);
    assertFalse(first.isEmpty(), "the driver kept no compiled code");
    assertTrue(
        first.keySet().stream().allMatch(f -> f.toString().endsWith(".bin")),
        "a temporary file was left: " + first.keySet());
    // Older than any rewrite could be: a rewrite would show as a newer time.
    for (Path f : first.keySet()) {
      Files.setLastModifiedTime(dir.resolve("code-cache").resolve(f), FileTime.fromMillis(0));
    }

    startAndStop(dir);

    Map<Path, FileTime> second = written(dir);
    assertEquals(first.keySet(), second.keySet(), "the second start compiled other files");
    assertTrue(
        second.values().stream().allMatch(t -> t.toMillis() == 0),
        "V8 refused the kept code, and the driver compiled and wrote it again: " + second);
  }

  @Test
  void aDamagedCodeCacheCostsOnlyTheCacheAndIsWrittenAgain() throws Exception {
    Path dir = driver();
    startAndStop(dir);
    List<Path> files = List.copyOf(written(dir).keySet());
    assertTrue(files.size() >= 2, "fewer cached files than expected: " + files);
    Path cacheDir = dir.resolve("code-cache");
    Map<Path, byte[]> damaged = new TreeMap<>();
    // A few bytes changed in the middle, the length and header intact, as a bad disk leaves it.
    byte[] flipped = Files.readAllBytes(cacheDir.resolve(files.get(0)));
    for (int i = flipped.length / 3; i < flipped.length / 3 + 24; i += 8) {
      flipped[i] ^= (byte) 0x5a;
    }
    damaged.put(files.get(0), flipped);
    // Cut short, and something that is no code cache at all.
    for (Path f : files.subList(1, files.size())) {
      byte[] whole = Files.readAllBytes(cacheDir.resolve(f));
      damaged.put(f, Arrays.copyOf(whole, whole.length / 2));
    }
    damaged.put(files.get(files.size() - 1), "not V8's code cache".repeat(100).getBytes());
    for (Map.Entry<Path, byte[]> d : damaged.entrySet()) {
      Files.write(cacheDir.resolve(d.getKey()), d.getValue());
    }

    startAndStop(dir);
    startAndStop(dir);

    assertEquals(files, List.copyOf(written(dir).keySet()));
    for (Map.Entry<Path, byte[]> d : damaged.entrySet()) {
      byte[] now = Files.readAllBytes(cacheDir.resolve(d.getKey()));
      assertFalse(Arrays.equals(d.getValue(), now), d.getKey() + " was not written again");
      assertTrue(now.length > 10_000, "too little compiled code in " + d.getKey());
    }
  }

  @Test
  void whatAKilledDriverLeftHalfWrittenGoesOnceItIsAnHourOld() throws Exception {
    Path dir = driver();
    startAndStop(dir);
    Path cacheDir = dir.resolve("code-cache");
    Path old = Files.writeString(cacheDir.resolve("a.bin.4242.tmp"), "half");
    Files.setLastModifiedTime(old, FileTime.fromMillis(System.currentTimeMillis() - 7_200_000));
    Path recent = Files.writeString(cacheDir.resolve("b.bin.4243.tmp"), "half");

    startAndStop(dir);

    assertFalse(Files.exists(old), "an old half-written file stayed");
    assertTrue(Files.exists(recent), "a file another driver may be writing now was removed");
  }

  @Test
  void aChangedCodeCacheScriptIsPutBackBeforeTheNextStart() throws Exception {
    Path dir = driver();
    Path script = DriverFiles.codeCacheScript(dir).orElseThrow();
    byte[] ours = Files.readAllBytes(script);
    Files.writeString(script, "process.exit(3)");

    Path again = DriverFiles.unpacked(dir.getParent()).orElseThrow();

    assertEquals(dir, again);
    assertArrayEquals(ours, Files.readAllBytes(script));
    startAndStop(dir);
  }
}
