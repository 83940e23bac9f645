package dev.periscope.browser.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.browser.runtime.CheckpointIndex;
import dev.periscope.storage.SqliteStorageDomains;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention and the removal of an entry whose payload is gone take only the entry they saw: a
 * checkpoint that replaced it meanwhile (the session's release, another owner) is the session's
 * now, and stays. On the SQLite index and the one in memory.
 */
class CheckpointRetentionTest {
  @TempDir Path dir;

  private static final BrowserSessionId S = new BrowserSessionId("session-s");

  private static CheckpointIndex.Entry entry(String ref, Instant at) {
    return new CheckpointIndex.Entry(S, new CheckpointRef("fake", null, ref), 1, at);
  }

  /** {@code index}, whose listing is the one taken before {@code stale} was replaced. */
  private static CheckpointIndex seenBefore(CheckpointIndex index, CheckpointIndex.Entry stale) {
    return new CheckpointIndex() {
      public Optional<Entry> find(BrowserSessionId id) {
        return index.find(id);
      }

      public Optional<Entry> put(Entry e) {
        return index.put(e);
      }

      public Optional<Entry> remove(BrowserSessionId id) {
        return index.remove(id);
      }

      public Optional<Entry> removeIfNames(BrowserSessionId id, String ref) {
        return index.removeIfNames(id, ref);
      }

      public List<Entry> entries() {
        return List.of(stale);
      }
    };
  }

  private static void aNewerCheckpointSurvivesRetentionAndTheGoneOnesRemoval(
      CheckpointIndex index) {
    Instant old = Instant.now().minus(Duration.ofDays(30));
    CheckpointIndex.Entry first = entry("p1", old);
    index.put(first);
    CheckpointIndex.Entry newer = entry("p2", Instant.now());
    index.put(newer);
    // Retention saw p1 (expired) before p2 replaced it.
    List<CheckpointIndex.Entry> dropped =
        seenBefore(index, first).prune(Duration.ofDays(7), 10, Set.of());
    assertEquals(List.of(), dropped);
    assertEquals("p2", index.find(S).orElseThrow().checkpoint().ref());
    // An open that found p1's payload gone removes p1's entry only.
    assertEquals(Optional.empty(), index.removeIfNames(S, "p1"));
    assertEquals("p2", index.find(S).orElseThrow().checkpoint().ref());
    assertEquals("p2", index.removeIfNames(S, "p2").orElseThrow().checkpoint().ref());
    assertEquals(Optional.empty(), index.find(S));
  }

  @Test
  void inSqlite() {
    RuntimeDatabase database = new RuntimeDatabase(new SqliteStorageDomains(dir));
    try {
      aNewerCheckpointSurvivesRetentionAndTheGoneOnesRemoval(new SqliteCheckpointIndex(database));
    } finally {
      database.close();
    }
  }

  @Test
  void inMemory() {
    aNewerCheckpointSurvivesRetentionAndTheGoneOnesRemoval(CheckpointIndex.inMemory());
  }
}
