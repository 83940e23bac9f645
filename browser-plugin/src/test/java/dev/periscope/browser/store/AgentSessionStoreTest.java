package dev.periscope.browser.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.periscope.api.ProjectContext;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.storage.SqliteStorageDomains;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent-session map on a real SQLite file: one browser session per agent session and project,
 * kept.
 */
class AgentSessionStoreTest {
  @TempDir Path dir;

  @Test
  void concurrentFirstCallsOfOneAgentSessionCreateOneMapping() throws Exception {
    try (SqliteStorageDomains storage = new SqliteStorageDomains(dir);
        RuntimeDatabase database = new RuntimeDatabase(storage)) {
      AgentSessionStore store = new AgentSessionStore(database, new ProjectContext("p", dir, dir));
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<BrowserSessionId>> calls = new ArrayList<>();
        Callable<BrowserSessionId> first = () -> store.sessionFor("agent-1");
        for (int i = 0; i < 16; i++) {
          calls.add(pool.submit(first));
        }
        Set<BrowserSessionId> ids = new HashSet<>();
        for (Future<BrowserSessionId> call : calls) {
          ids.add(call.get());
        }
        assertEquals(1, ids.size(), ids.toString());
      } finally {
        pool.shutdown();
      }
    }
  }

  @Test
  void aMappingOutlivesTheProcessAndIsReplacedOnlyOnRequest() {
    BrowserSessionId first;
    try (SqliteStorageDomains storage = new SqliteStorageDomains(dir);
        RuntimeDatabase database = new RuntimeDatabase(storage)) {
      first =
          new AgentSessionStore(database, new ProjectContext("p", dir, dir)).sessionFor("agent-1");
    }
    try (SqliteStorageDomains storage = new SqliteStorageDomains(dir);
        RuntimeDatabase database = new RuntimeDatabase(storage)) {
      AgentSessionStore store = new AgentSessionStore(database, new ProjectContext("p", dir, dir));
      assertEquals(first, store.sessionFor("agent-1"));
      AgentSessionStore otherProject =
          new AgentSessionStore(database, new ProjectContext("p", dir.resolve("elsewhere"), dir));
      assertNotEquals(first, otherProject.sessionFor("agent-1"));
      BrowserSessionId replaced = store.replace("agent-1");
      assertNotEquals(first, replaced);
      assertEquals(replaced, store.sessionFor("agent-1"));
    }
  }
}
