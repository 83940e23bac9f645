package dev.periscope.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.host.Migration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host's SQLite storage domains fail closed: a corrupt file or a newer schema is refused and
 * left as it is.
 */
class SqliteStorageDomainsTest {
  private static final List<Migration> V1 = List.of(new Migration(1, "CREATE TABLE t (x TEXT)"));

  @TempDir Path dir;

  @Test
  void refusesACorruptDatabaseAndLeavesItUntouched() throws Exception {
    byte[] garbage = "this was never a database, but it is somebody's file".repeat(100).getBytes();
    Files.write(dir.resolve("browser_runtime.sqlite"), garbage);
    try (SqliteStorageDomains storage = new SqliteStorageDomains(dir)) {
      var failure =
          assertThrows(IllegalStateException.class, () -> storage.open("browser_runtime", V1));
      assertTrue(
          failure.getMessage().contains("cannot open storage domain browser_runtime"),
          failure.getMessage());
      assertTrue(failure.getMessage().contains("left as it is"), failure.getMessage());
    }
    assertArrayEquals(garbage, Files.readAllBytes(dir.resolve("browser_runtime.sqlite")));
  }

  @Test
  void refusesADatabaseOfANewerSchema() throws Exception {
    try (SqliteStorageDomains storage = new SqliteStorageDomains(dir)) {
      storage
          .open(
              "browser_runtime",
              List.of(
                  new Migration(1, "CREATE TABLE t (x TEXT)"),
                  new Migration(2, "CREATE TABLE u (y TEXT)")))
          .close();
    }
    byte[] before = Files.readAllBytes(dir.resolve("browser_runtime.sqlite"));
    try (SqliteStorageDomains storage = new SqliteStorageDomains(dir)) {
      var failure =
          assertThrows(IllegalStateException.class, () -> storage.open("browser_runtime", V1));
      assertTrue(
          failure
              .getMessage()
              .contains("schema version 2 is newer than the newest this plugin knows (1)"),
          failure.getMessage());
    }
    assertArrayEquals(before, Files.readAllBytes(dir.resolve("browser_runtime.sqlite")));
  }
}
