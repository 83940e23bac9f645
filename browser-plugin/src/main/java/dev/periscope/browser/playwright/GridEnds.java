package dev.periscope.browser.playwright;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Grid sessions a grid lane has asked to end, until the Grid no longer lists them.
 *
 * <p>Playwright's driver ends a Grid session ({@code DELETE /session/ID}) when its connection to
 * the browser closes, after {@code Browser.close()} has returned. A driver told to exit ends again
 * every session whose end it has not yet been answered. Two ends of one session that meet on a node
 * are both passed to its chromedriver: one was seen to hang until the driver was stopped, and the
 * node frees the slot only once an end is answered, so a slot can stay taken until the Grid's
 * session timeout. A lane therefore waits here before it lets its driver go.
 */
final class GridEnds {
  private static final Logger LOG = LoggerFactory.getLogger(GridEnds.class);

  private final GridSettings grid;
  private final String laneTag;
  private final Set<String> asked = ConcurrentHashMap.newKeySet();

  /** The ends of the sessions {@code grid} lists with the capability {@code laneTag}. */
  GridEnds(GridSettings grid, String laneTag) {
    this.grid = grid;
    this.laneTag = laneTag;
  }

  /** The end of session {@code id} has been asked for (its browser is being closed). */
  void asked(String id) {
    asked.add(id);
  }

  /** The ends asked for that the Grid was last seen to list. */
  Set<String> pending() {
    return Set.copyOf(asked);
  }

  /**
   * Forgets the ends of sessions that {@code status} (the lane's sessions, as the Grid lists them)
   * no longer lists.
   */
  void seen(java.util.List<GridStatus.Session> status) {
    Set<String> listed = new HashSet<>();
    status.forEach(s -> listed.add(s.id()));
    asked.retainAll(listed);
  }

  /**
   * Waits, at most {@code boundMs} in all, until the Grid no longer lists any session whose end was
   * asked for. Returns at once when there is none; gives up when the Grid does not answer its
   * status.
   *
   * @return whether none is listed any more
   */
  boolean awaitAnswered(long boundMs) {
    if (asked.isEmpty()) {
      return true;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMs);
    try {
      while (true) {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (leftMs <= 0) {
          LOG.info(
              "the Grid at {} still lists {} session(s) whose end was asked for, after {} ms",
              grid.url(),
              asked.size(),
              boundMs);
          return false;
        }
        seen(GridClient.status(grid, Math.min(leftMs, 5_000)).ofLane(laneTag));
        if (asked.isEmpty()) {
          return true;
        }
        Thread.sleep(Math.min(100, Math.max(1, leftMs)));
      }
    } catch (java.io.IOException e) {
      LOG.debug("the Grid's status did not say whether sessions ended: {}", e.getMessage());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
