package dev.periscope.browser.playwright;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the grid provider's environments off the Selenium Grid nodes that drain. A node drains to
 * be taken out of service: it takes no new session and stops once its sessions end, so an agent's
 * browser there would keep the node up for as long as the agent works. While environments are open
 * on the Grid, a thread of its own reads the Grid's {@code /status} every {@code drainCheckMs};
 * each environment whose node the Grid lists as draining is told, once, that it retires ({@link
 * PlaywrightEnvironment#retire}). The runtime then writes its checkpoint once no call runs on it,
 * closes it (which ends its Grid session) and opens the session's next browser from that
 * checkpoint, on a node the Grid chooses.
 */
final class GridDrains implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GridDrains.class);

  /** How long one status request may take. */
  private static final long STATUS_TIMEOUT_MS = 5_000;

  private final GridSettings grid;

  /** The environments watched, each with the URI of the node it runs on. */
  private final Map<PlaywrightEnvironment, String> watched = new ConcurrentHashMap<>();

  private ScheduledExecutorService timer;
  private boolean closed;

  GridDrains(GridSettings grid) {
    this.grid = grid;
  }

  /**
   * Watches an environment that runs on {@code node} (a node's URI, as the Grid's status names it).
   */
  void watch(PlaywrightEnvironment environment, String node) {
    synchronized (this) {
      if (closed) {
        return;
      }
      if (timer == null) {
        timer =
            Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "periscope-grid-drains");
                  t.setDaemon(true);
                  return t;
                });
        timer.scheduleWithFixedDelay(
            this::check, grid.drainCheckMs(), grid.drainCheckMs(), TimeUnit.MILLISECONDS);
      }
    }
    watched.put(environment, node);
  }

  /** One look at the Grid; nothing it meets may end the checks to come. */
  private void check() {
    try {
      checkOnce();
    } catch (RuntimeException e) {
      LOG.warn("looking for draining Selenium Grid nodes failed: {}", e.toString());
    }
  }

  private void checkOnce() {
    watched.keySet().removeIf(PlaywrightEnvironment::ended);
    if (watched.isEmpty()) {
      return;
    }
    GridStatus status;
    try {
      status = GridClient.status(grid, STATUS_TIMEOUT_MS);
    } catch (IOException e) {
      LOG.debug("the Grid's status did not say which nodes drain: {}", e.getMessage());
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (status.draining().isEmpty()) {
      return;
    }
    watched.forEach(
        (environment, node) -> {
          try {
            if (status.draining().contains(node)
                && environment.retire(
                    "its Selenium Grid node " + node + " drains (taken out of service)")) {
              watched.remove(environment);
              LOG.info(
                  "Selenium Grid node {} drains: a browser there moves to another node once no"
                      + " call runs on it",
                  node);
            }
          } catch (RuntimeException e) {
            // One environment's failure does not keep the others on the node.
            LOG.warn("moving a browser off draining node {} failed: {}", node, e.toString());
          }
        });
  }

  /** Stops watching; a status request still running ends within its own bound. */
  @Override
  public void close() {
    ScheduledExecutorService t;
    synchronized (this) {
      closed = true;
      t = timer;
      timer = null;
    }
    watched.clear();
    if (t == null) {
      return;
    }
    t.shutdownNow();
    try {
      t.awaitTermination(STATUS_TIMEOUT_MS + 1_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
