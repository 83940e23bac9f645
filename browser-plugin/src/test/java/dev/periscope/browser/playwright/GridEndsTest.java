package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Waiting for the Grid to have ended the sessions a lane asked it to end, against a stand-in Grid
 * on loopback whose {@code /status} lists a session for as many answers as a test says.
 */
class GridEndsTest {
  private HttpServer grid;
  private final AtomicInteger answered = new AtomicInteger();

  @AfterEach
  void stop() {
    if (grid != null) {
      grid.stop(0);
    }
  }

  /**
   * A Grid whose status lists session s-1 of lane {@code lane} in its first {@code times} answers.
   */
  private GridSettings gridListing(String lane, int times) throws Exception {
    grid = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    grid.createContext(
        "/status",
        e -> {
          String slot =
              answered.getAndIncrement() < times
                  ? "{\"sessionId\": \"s-1\", \"capabilities\": {\"periscope:lane\": \""
                      + lane
                      + "\"}}"
                  : "null";
          byte[] body =
              ("{\"value\": {\"ready\": true, \"nodes\": [{\"availability\": \"UP\", \"uri\":"
                      + " \"http://127.0.0.1:1\", \"slots\": [{\"session\": "
                      + slot
                      + ", \"stereotype\": {\"browserName\": \"chrome\"}}]}]}}")
                  .getBytes(StandardCharsets.UTF_8);
          e.sendResponseHeaders(200, body.length);
          e.getResponseBody().write(body);
          e.close();
        });
    grid.start();
    return settings(URI.create("http://127.0.0.1:" + grid.getAddress().getPort()));
  }

  private static GridSettings settings(URI url) {
    return new GridSettings(url, Map.of(), 1_000, "127.0.0.1", 1_000, 5_000);
  }

  @Test
  void waitsUntilTheGridNoLongerListsASessionWhoseEndWasAskedFor() throws Exception {
    GridEnds ends = new GridEnds(gridListing("lane-a", 3), "lane-a");
    ends.asked("s-1");
    assertTrue(ends.awaitAnswered(30_000));
    assertEquals(4, answered.get(), "asked until the fourth answer no longer listed it");
    assertEquals(Set.of(), ends.pending());
  }

  @Test
  void givesUpAtItsBoundWhileTheGridStillListsIt() throws Exception {
    GridEnds ends = new GridEnds(gridListing("lane-a", Integer.MAX_VALUE), "lane-a");
    ends.asked("s-1");
    // A bound long enough for the first status request's answer on a busy machine (a client's
    // first request loads its classes): then it is asked again until the bound ends.
    assertFalse(ends.awaitAnswered(1_500));
    assertTrue(answered.get() >= 2, "answered " + answered.get());
    assertEquals(Set.of("s-1"), ends.pending());
  }

  @Test
  void anotherLanesSessionOfTheSameIdIsNotWaitedFor() throws Exception {
    GridEnds ends = new GridEnds(gridListing("lane-b", Integer.MAX_VALUE), "lane-a");
    ends.asked("s-1");
    assertTrue(ends.awaitAnswered(30_000));
    assertEquals(1, answered.get());
  }

  @Test
  void asksTheGridNothingWhenNoEndWasAskedFor() throws Exception {
    GridEnds ends = new GridEnds(gridListing("lane-a", Integer.MAX_VALUE), "lane-a");
    assertTrue(ends.awaitAnswered(30_000));
    assertEquals(0, answered.get());
  }

  @Test
  void aGridThatDoesNotAnswerEndsTheWaitAndKeepsTheEnd() throws Exception {
    gridListing("lane-a", 0);
    URI gone = URI.create("http://127.0.0.1:" + grid.getAddress().getPort());
    grid.stop(0);
    grid = null;
    GridEnds ends = new GridEnds(settings(gone), "lane-a");
    ends.asked("s-1");
    assertFalse(ends.awaitAnswered(30_000));
    assertEquals(Set.of("s-1"), ends.pending());
  }

  @Test
  void aStatusSeenAtALaunchForgetsTheEndsItNoLongerLists() {
    GridEnds ends = new GridEnds(settings(URI.create("http://127.0.0.1:9")), "lane-a");
    ends.asked("s-1");
    ends.asked("s-2");
    ends.seen(java.util.List.of(new GridStatus.Session("s-2", "http://127.0.0.1:1", "lane-a")));
    assertEquals(Set.of("s-2"), ends.pending());
  }
}
