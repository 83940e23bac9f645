package dev.periscope.browser.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.storage.SqliteStorageDomains;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a killed process or a vanished operator leaves in the watch requests is swept away. */
class WatchRequestsTest {
  @TempDir Path dir;

  @Test
  void requestsOfAProcessThatIsGoneAndLongExpiredOnesAreSweptLiveOnesStay() throws Exception {
    Process done = new ProcessBuilder("true").start();
    assertTrue(done.waitFor(10, TimeUnit.SECONDS));
    String dead = done.pid() + "@" + WatchRequests.MACHINE + ":gone";
    String elsewhere = done.pid() + "@another-machine/1:gone";
    String alive = WatchRequests.holder();
    long now = System.currentTimeMillis();
    try (WatchRequests store = new WatchRequests(new SqliteStorageDomains(dir))) {
      String killed = store.ask("b1", new byte[32], now + 60_000);
      assertTrue(store.claim(killed, dead));
      store.opened(killed, "http://127.0.0.1:1/watch/a");
      String stopped = store.ask("b1", new byte[32], now + 60_000);
      assertTrue(store.claim(stopped, dead));
      store.opened(stopped, "http://127.0.0.1:1/watch/b");
      store.stop("b1"); // marks both: nobody would ever end them
      String claimedOnly = store.ask("b5", new byte[32], now + 60_000);
      assertTrue(store.claim(claimedOnly, dead));
      String openOnly = store.ask("b6", new byte[32], now + 60_000);
      assertTrue(store.claim(openOnly, dead));
      store.opened(openOnly, "http://127.0.0.1:1/watch/d");
      String otherMachine = store.ask("b7", new byte[32], now + 60_000);
      assertTrue(store.claim(otherMachine, elsewhere));
      store.opened(otherMachine, "http://127.0.0.1:1/watch/e");
      String forgotten = store.ask("b2", new byte[32], now - 120_000);
      String fresh = store.ask("b3", new byte[32], now - 1_000); // expired, not for long
      String running = store.ask("b4", new byte[32], now + 60_000);
      assertTrue(store.claim(running, alive));
      store.opened(running, "http://127.0.0.1:1/watch/c");

      assertEquals(5, store.sweep(now));
      assertTrue(store.get(claimedOnly).isEmpty());
      assertTrue(store.get(openOnly).isEmpty());
      assertTrue(
          store.get(otherMachine).isPresent(), "a process of another machine is not judged here");
      assertTrue(store.get(killed).isEmpty());
      assertTrue(store.get(stopped).isEmpty());
      assertTrue(store.get(forgotten).isEmpty());
      assertTrue(store.get(fresh).isPresent(), "its operator may still be waiting");
      assertEquals("open", store.get(running).orElseThrow().state());
      assertEquals(0, store.sweep(now));
    }
  }
}
