package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.impl.BoundedConnection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A grid lane's Grid side: the browsers its driver starts on the project's Selenium Grid, one per
 * environment, each a session tagged with the lane's own {@link Lane#GRID_TAG}; which session each
 * is; and, as the lane closes, their ends, waited for within one budget, and the end of the
 * sessions a driver that died or was stopped left open.
 */
final class LaneGrid {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Lane.class);

  /** How long a lane's Grid sessions are given to end on their own before it ends them. */
  private static final long LEFT_SESSIONS_SETTLE_MS = 3_000;

  /** The same when its driver was stopped while ending them: an end it sent may be on its way. */
  private static final long ENDING_DRIVER_SETTLE_MS = 10_000;

  /**
   * How long a grid lane's driver is given to exit once told to: it first ends each Grid session it
   * still has, and a node takes about a second to stop a browser, longer when it is busy.
   */
  private static final long GRID_DRIVER_EXIT_MS = 10_000;

  /**
   * The least a grid lane's driver is given to exit, however little is left of the close's time.
   */
  private static final long GRID_DRIVER_EXIT_MIN_MS = 2_000;

  /**
   * What a grid lane's close spends in all on closing its Grid browsers, waiting for their ends,
   * its driver's exit and the settle before it ends what is left (the requests that end those are
   * bounded on their own).
   */
  private static final long GRID_CLOSE_MS = 20_000;

  private final GridSettings settings;
  private final int number;

  /** The value of {@link Lane#GRID_TAG} on this lane's Grid sessions. */
  private final String tag;

  /** The ends of its Grid sessions the lane asked for, until the Grid has them done. */
  private final GridEnds ends;

  /** The browsers the lane started on the Grid and has not closed. */
  private final java.util.Set<Lane.Remote> remotes =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * The Grid sessions this lane's launches were found to be, so the next launch's is told apart.
   */
  private final java.util.Set<String> sessions = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** When the lane's close must be done with the Grid: set as it begins. */
  private volatile long closeEnds;

  LaneGrid(GridSettings settings, int number) {
    this.settings = settings;
    this.number = number;
    // Its own, never another lane's (of this host, a later pool, or another host on the Grid).
    this.tag = java.util.UUID.randomUUID().toString();
    this.ends = new GridEnds(settings, tag);
  }

  GridSettings settings() {
    return settings;
  }

  String tag() {
    return tag;
  }

  /** See {@link Lane#launchRemote}: on the lane's thread, with its driver {@code c} started. */
  Lane.Remote launch(BoundedConnection c, long timeoutMs, boolean headless) {
    // The browser-wide proxy is loopback on the node, where nothing listens: it reaches nowhere,
    // as a local lane's does; every context has its environment's policy proxy.
    Browser remote =
        c.playwright()
            .chromium()
            .launch(
                new BrowserType.LaunchOptions()
                    .setProxy(new com.microsoft.playwright.options.Proxy("http://127.0.0.1:9"))
                    .setHeadless(headless)
                    // A slot was free a moment ago (GridSlots): this bounds the browser's start,
                    // and a race for that slot with another client of the Grid.
                    .setTimeout(timeoutMs)
                    // The node decides its own sandbox (its stereotype's args), never this host.
                    .setArgs(Lane.chromiumArgs(false)));
    Optional<GridStatus.Session> session = Optional.empty();
    try {
      List<GridStatus.Session> tagged = GridClient.status(settings, 5_000).ofLane(tag);
      List<GridStatus.Session> fresh =
          tagged.stream().filter(s -> !sessions.contains(s.id())).toList();
      if (fresh.size() == 1) {
        session = Optional.of(fresh.get(0));
      }
      // Every session of the lane the Grid still lists is known from now on (a closed browser's
      // may stay listed for a while, a dead node's until the Grid notices); one it no longer lists
      // never comes back.
      sessions.retainAll(tagged.stream().map(GridStatus.Session::id).toList());
      tagged.forEach(s -> sessions.add(s.id()));
      ends.seen(tagged);
    } catch (java.io.IOException e) {
      LOG.debug("the Grid's status did not say where a browser runs: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Lane.Remote started = new Lane.Remote(remote, session, Optional.empty());
    remotes.add(started);
    return started;
  }

  /** See {@link Lane#closeRemote}. */
  void closeRemote(Lane.Remote remote) {
    remotes.remove(remote);
    if (remote.browser().isConnected()) {
      remote.session().ifPresent(s -> ends.asked(s.id()));
    }
    remote.browser().close();
  }

  /** The lane's close begins: what it spends on the Grid is counted from now. */
  void closing() {
    closeEnds = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRID_CLOSE_MS);
  }

  /** What is left of the close's time on the Grid. */
  private long leftMs() {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(closeEnds - System.nanoTime()));
  }

  /**
   * As {@code lane} closes, before its driver is told to go (which would end again each session
   * still ending): closes the Grid browsers still open on its thread, each within {@code eachMs},
   * and waits for the Grid to answer their ends.
   */
  void closeBrowsers(Lane lane, long eachMs) {
    try {
      lane.call(
          () -> {
            closeRemotes(lane, eachMs);
            return null;
          },
          Math.max(1, leftMs()));
    } catch (RuntimeException e) {
      LOG.debug("browser lane {}: closing its Grid browsers failed: {}", number, e.getMessage());
    }
    ends.awaitAnswered(Math.min(GRID_DRIVER_EXIT_MS, leftMs()));
  }

  /**
   * On the lane's thread, as it closes: closes the Grid browsers still open, each through {@link
   * #closeRemote} within {@code eachMs} and all within the close's budget, rather than leaving them
   * to the driver's exit (whose end of a session would meet the one that closing its connection
   * sends). Queued after every call before it, so a close still waiting for the lane's thread has
   * run when this has.
   */
  private void closeRemotes(Lane lane, long eachMs) {
    for (Lane.Remote r : List.copyOf(remotes)) {
      try {
        lane.deadline(Math.max(1, Math.min(eachMs, leftMs())));
        closeRemote(r);
      } catch (RuntimeException e) {
        LOG.debug("browser lane {}: closing a Grid browser failed: {}", number, e.getMessage());
      }
    }
  }

  /**
   * How long the driver, told to go, is given to exit: it first ends each Grid session it still
   * has.
   */
  long driverExitMs() {
    return Math.max(GRID_DRIVER_EXIT_MIN_MS, Math.min(GRID_DRIVER_EXIT_MS, leftMs()));
  }

  /**
   * Ends the Grid sessions of this lane that are still open once its driver is gone: a driver that
   * was killed or died cannot end them, and the Grid would hold their slots until its own session
   * timeout. Each request is bounded; what fails is logged, and ends at that timeout.
   *
   * <p>Each is first given time to go, as an end may still be under way ({@link GridEnds}): {@link
   * #LEFT_SESSIONS_SETTLE_MS}, or {@link #ENDING_DRIVER_SETTLE_MS} when the driver was stopped
   * while it was ending its sessions ({@code stoppedWhileEnding}); no longer than the close's
   * budget has left.
   */
  void endLeftSessions(boolean stoppedWhileEnding) {
    long budgetMs = leftMs();
    List<GridStatus.Session> left;
    try {
      left = GridClient.status(settings, 5_000).ofLane(tag);
      long settleMs =
          Math.min(
              budgetMs, stoppedWhileEnding ? ENDING_DRIVER_SETTLE_MS : LEFT_SESSIONS_SETTLE_MS);
      long settled = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settleMs);
      while (!left.isEmpty() && System.nanoTime() - settled < 0) {
        Thread.sleep(200);
        try {
          left = GridClient.status(settings, 5_000).ofLane(tag);
        } catch (java.io.IOException unanswered) {
          break; // the sessions last seen are ended below
        }
      }
    } catch (java.io.IOException e) {
      LOG.warn(
          "could not learn which Selenium Grid sessions browser lane {} left open at {}: {}; they"
              + " end at the Grid's session timeout",
          number,
          settings.url(),
          e.getMessage());
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    int ended = 0;
    for (GridStatus.Session s : left) {
      try {
        try {
          GridClient.endSession(settings, s.id(), 5_000);
        } catch (java.io.IOException once) {
          // The node may have been stopping it as asked: asked again, it says it is gone.
          Thread.sleep(500);
          GridClient.endSession(settings, s.id(), 5_000);
        }
        ended++;
      } catch (java.io.IOException e) {
        LOG.warn(
            "could not end Selenium Grid session {} (node {}) that browser lane {} left open: {};"
                + " it ends at the Grid's session timeout",
            s.id(),
            s.node(),
            number,
            e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    if (ended > 0) {
      LOG.info(
          "ended {} Selenium Grid session(s) that browser lane {} left open at {}",
          ended,
          number,
          settings.url());
    }
  }
}
