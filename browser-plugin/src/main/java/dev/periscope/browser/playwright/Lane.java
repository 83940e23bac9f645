package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.impl.BoundedConnection;
import dev.periscope.api.browser.spi.CallDeadline;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One lane of the browser pool: a Node.js driver, the Chromium it launched, and the one thread that
 * drives them. Playwright for Java is not thread-safe and dispatches its events only while a call
 * runs on its thread, so every use goes through {@link #call}; the environments on a lane take
 * turns on that thread. A call is bounded ({@link BoundedConnection}): a wedged page fails its own
 * call and the lane goes on; {@link #closeNow} ends one environment's context from any thread. Only
 * a driver that stops answering is {@link #kill() killed}, and with it every environment of the
 * lane, as its death would.
 */
final class Lane implements AutoCloseable {
  private static final Object CREATE_LOCK = new Object();
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Lane.class);
  private static final long IDLE_PUMP_MS = 100;
  private static final long WAIT_SLICE_MS = 250;
  private static final long PUMP_BOUND_MS = 5_000;

  /** How long past a call's own bound the driver may take to answer before it is judged wedged. */
  static final long UNANSWERED_MARGIN_MS = 5_000;

  final int number;
  private final ScheduledExecutorService thread;

  /** The lane's thread, for {@link #busyWith()}. */
  private volatile Thread worker;

  private final Path chromium;
  private final Path node;
  private final Path tempRoot;
  private final boolean headless;
  private final NowhereProxy nowhere;

  /** Playwright's driver unpacked once for every lane ({@link DriverFiles}), if it could be. */
  private final java.util.function.Supplier<Optional<Path>> driverFiles;

  private volatile BoundedConnection connection;
  private Browser browser;
  private volatile Optional<ProcessHandle> driverProcess = Optional.empty();

  /** Chromium's browser process, once launched: a kill reaches it even after the driver is gone. */
  private volatile Optional<ProcessHandle> browserProcess = Optional.empty();

  private volatile boolean killed;
  private volatile boolean closing;
  private volatile boolean launchFailed;
  private final AtomicInteger occupants = new AtomicInteger();

  /**
   * The Selenium Grid this lane's browsers run on, if it is a grid lane: its driver launches one
   * remote browser per environment there ({@link #launchRemote}) instead of one Chromium here.
   */
  private final Optional<GridSettings> grid;

  /**
   * Whether this lane attaches to a Chromium the user runs ({@link #attach}) for each environment,
   * instead of launching one: its driver starts no browser of its own.
   */
  private final boolean attaching;

  /**
   * The capability a grid lane asks for each browser with, so the Grid's {@code /status} shows
   * which sessions are the lane's: its value is {@link #gridTag}.
   */
  static final String GRID_TAG = "periscope:lane";

  /** The value of {@link #GRID_TAG} on this lane's Grid sessions. */
  private final String gridTag;

  /** On a grid lane: the ends of its Grid sessions it asked for, until the Grid has them done. */
  private final Optional<GridEnds> ends;

  /** On a grid lane: the browsers it started on the Grid and has not closed. */
  private final java.util.Set<Remote> remotes = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * The Grid sessions this lane's launches were found to be, so the next launch's is told apart.
   */
  private final java.util.Set<String> gridSessions =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** Makes a context ready ahead of need on this lane's browser; null for none. */
  private final java.util.function.Function<Browser, PreparedContext> spares;

  /** The context made ahead of need, if any; on the lane's thread only. */
  private PreparedContext spare;

  private static final long SPARE_BOUND_MS = 30_000;

  Lane(
      Path chromium,
      Path node,
      Path tempRoot,
      boolean headless,
      int number,
      java.util.function.Supplier<Optional<Path>> driverFiles,
      java.util.function.Function<Browser, PreparedContext> spares,
      Optional<GridSettings> grid,
      boolean attaching) {
    this.grid = grid;
    this.attaching = attaching;
    // Its own, never another lane's (of this host, a later pool, or another host on the Grid).
    this.gridTag = java.util.UUID.randomUUID().toString();
    this.ends = grid.map(g -> new GridEnds(g, gridTag));
    this.number = number;
    this.driverFiles = driverFiles;
    this.spares = spares;
    this.chromium = chromium;
    this.node = node;
    this.tempRoot = tempRoot;
    this.headless = headless;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "periscope-playwright-" + number);
              t.setDaemon(true);
              worker = t;
              return t;
            });
    this.nowhere = new NowhereProxy(number);
    // Between calls the lane keeps delivering its pages' events, so a popup is closed and a
    // download cancelled as they happen, not at the next call.
    thread.scheduleWithFixedDelay(
        () -> {
          BoundedConnection c = connection;
          if (c != null && !killed && !closing) {
            try {
              // What the events' handlers send (a popup's close) is bounded too.
              c.deadline(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PUMP_BOUND_MS));
              c.pump();
              replenishWhileIdle(c);
            } catch (RuntimeException e) {
              // the driver went away; the next call says so
            }
          }
        },
        IDLE_PUMP_MS,
        IDLE_PUMP_MS,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Starts the driver and Chromium on the lane's thread; the returned future ends with that. The
   * idle pump then makes a context ready for the first environment.
   */
  Future<?> launch() {
    return grid.isPresent() || attaching
        ? thread.submit(this::connect)
        : thread.submit(this::browser);
  }

  /**
   * On the lane's thread: the context made ahead of need, now the caller's, or null. The lane makes
   * the next one once it has been idle a while ({@link #replenishWhileIdle}).
   */
  PreparedContext takeSpare() {
    PreparedContext taken = spare;
    spare = null;
    return taken;
  }

  /**
   * On the lane's thread, from the idle pump: makes a spare context when there is none, the browser
   * runs, and no call has waited or run for {@value #IDLE_BEFORE_SPARE_MS} ms, so that making one
   * (a few hundred ms of this thread) does not hold up a session at work.
   */
  private void replenishWhileIdle(BoundedConnection c) {
    if (spares == null
        || spare != null
        || browser == null
        || calls.get() > 0
        || System.nanoTime() - lastCall < TimeUnit.MILLISECONDS.toNanos(IDLE_BEFORE_SPARE_MS)) {
      return;
    }
    c.deadline(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SPARE_BOUND_MS));
    try {
      spare = spares.apply(browser);
    } catch (RuntimeException e) {
      // The next environment makes its own, and says what is wrong if it cannot.
    }
  }

  private static final long IDLE_BEFORE_SPARE_MS = 500;

  /** The calls submitted and not yet done. */
  private final AtomicInteger calls = new AtomicInteger();

  /** When the latest call ended (long ago, to begin with). */
  private volatile long lastCall = System.nanoTime() - TimeUnit.SECONDS.toNanos(60);

  /**
   * Runs work on the lane's thread under {@code deadline}, the runtime's one deadline for the call,
   * and waits for it; the work's own exception is rethrown as is. Every Playwright call in it that
   * has no deadline of its own must end by {@link CallDeadline#answerBy()}, which the driver
   * enforces; a driver that has not answered once the deadline's whole span to {@link
   * CallDeadline#abandon()} has passed since the work began is killed.
   */
  <T> T call(Callable<T> work, CallDeadline deadline) {
    return call(work, start -> deadline, deadline.abandonAfterMs());
  }

  /**
   * Runs work of the provider's own (opening, closing: no step of the runtime's) the same way,
   * bounded by {@code boundMs} from the work's start; a driver that has not answered {@value
   * #UNANSWERED_MARGIN_MS} ms after that is killed.
   */
  <T> T call(Callable<T> work, long boundMs) {
    return call(work, start -> new CallDeadline(start, boundMs, 0), boundMs + UNANSWERED_MARGIN_MS);
  }

  private <T> T call(
      Callable<T> work,
      java.util.function.LongFunction<CallDeadline> deadlineFrom,
      long unansweredMs) {
    java.util.concurrent.atomic.AtomicLong started = new java.util.concurrent.atomic.AtomicLong();
    calls.incrementAndGet();
    Future<T> future;
    try {
      future =
          thread.submit(
              () -> {
                try {
                  return bounded(work, deadlineFrom, started);
                } finally {
                  lastCall = System.nanoTime();
                  calls.decrementAndGet();
                }
              });
    } catch (RuntimeException e) {
      calls.decrementAndGet();
      throw e;
    }
    long unanswered = TimeUnit.MILLISECONDS.toNanos(unansweredMs);
    try {
      // The bound runs from the work's start: the turns of the lane's other environments before
      // it are theirs to bound.
      while (true) {
        try {
          return future.get(WAIT_SLICE_MS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          long since = started.get();
          if (since != 0 && System.nanoTime() - since > unanswered) {
            LOG.warn(
                "browser {}: its driver did not answer a call within {} ms; stopping it and every"
                    + " session on it",
                number,
                unansweredMs);
            kill();
            throw new IllegalStateException(
                "the browser's driver did not answer within "
                    + unansweredMs
                    + " ms and was stopped");
          }
        }
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the browser worked", e);
    }
  }

  /**
   * Runs {@code task} on the lane's thread after {@code delayMs}, between calls, with {@code
   * boundMs} on every Playwright call it makes; not at all once the lane is killed or closing. What
   * it throws is dropped: the next call of its environment says what is wrong.
   */
  java.util.concurrent.ScheduledFuture<?> later(long delayMs, Runnable task, long boundMs) {
    return thread.schedule(
        () -> {
          BoundedConnection c = connection;
          if (c == null || killed || closing) {
            return;
          }
          running = CallDeadline.startingNow(boundMs, 0);
          c.deadline(running.answerBy());
          try {
            task.run();
          } catch (RuntimeException e) {
            LOG.debug("browser {}: a scheduled task failed: {}", number, e.toString());
          }
        },
        delayMs,
        TimeUnit.MILLISECONDS);
  }

  /** The deadline of the work running on the lane's thread. */
  private CallDeadline running = new CallDeadline(System.nanoTime(), 0, 0);

  /**
   * The deadline of the work now running: what waits inside it ends by its {@link
   * CallDeadline#waitsEnd()}, leaving the work time to answer. On the lane's thread.
   */
  CallDeadline running() {
    return running;
  }

  /**
   * Where the lane's thread is now, for a log line when the runtime stops a call that ran past its
   * deadline: the Playwright call it waits in, then this plugin's frames that made it (up to six).
   */
  String busyWith() {
    Thread t = worker;
    if (t == null) {
      return "not started";
    }
    java.util.List<String> where = new java.util.ArrayList<>();
    String playwright = null;
    for (StackTraceElement e : t.getStackTrace()) {
      String c = e.getClassName();
      if (c.contains("$$Lambda")) {
        continue;
      }
      // A lambda's body is named after the method it is written in.
      String method = e.getMethodName().replaceAll("^lambda\\$(.*)\\$\\d+$", "$1");
      String frame = c.substring(c.lastIndexOf('.') + 1) + "." + method + ":" + e.getLineNumber();
      if (c.startsWith("com.microsoft.playwright.")) {
        playwright = frame; // the outermost one is the call this plugin made
      } else if (c.startsWith("dev.periscope.") && where.size() < 7) {
        if (where.isEmpty() && playwright != null) {
          where.add(playwright);
        }
        where.add(frame);
      }
    }
    return where.isEmpty() ? "idle" : String.join(" < ", where);
  }

  /**
   * Runs a piece of the work now running with its Playwright calls bounded by {@code ms} as well: a
   * call that may stall (a script in a page whose main frame is on its way to another document,
   * which Chromium holds until that navigation commits) gives up sooner. On the lane's thread.
   */
  <T> T briefly(long ms, java.util.function.Supplier<T> work) {
    BoundedConnection c = connection;
    long ends = running.answerBy();
    if (c == null) {
      return work.get();
    }
    c.deadline(Math.min(ends, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms)));
    try {
      return work.get();
    } finally {
      c.deadline(ends);
    }
  }

  /**
   * Delivers the events the driver already sent, without a round trip: what a check of the pages'
   * state reads is as fresh as the pipe. On the lane's thread, inside a call.
   */
  void deliverEvents() {
    BoundedConnection c = connection;
    if (c != null) {
      c.pump();
    }
  }

  /**
   * What a call that ran out of time was waiting for, in words, from the protocol method last sent
   * on {@code c}: for the failure's message.
   */
  static String waitingFor(BoundedConnection c) {
    String method = c == null ? "" : c.lastMethod();
    if (method.startsWith("evaluate")) {
      return " to a script";
    }
    return switch (method) {
      case "goto", "reload", "goBack", "goForward" -> " to a navigation";
      case "screenshot" -> " to a screenshot";
      case "waitForTimeout" -> "";
      default -> method.isEmpty() ? "" : " (" + method + ")";
    };
  }

  /** On the lane's thread: runs work with its deadline set on every call it makes. */
  private <T> T bounded(
      Callable<T> work,
      java.util.function.LongFunction<CallDeadline> deadlineFrom,
      java.util.concurrent.atomic.AtomicLong started)
      throws Exception {
    long now = System.nanoTime();
    started.set(now);
    CallDeadline deadline = deadlineFrom.apply(now);
    BoundedConnection c = connection;
    if (c != null) {
      c.deadline(deadline.answerBy());
    }
    running = deadline;
    try {
      return work.call();
    } catch (com.microsoft.playwright.PlaywrightException e) {
      if (CallDeadline.passed(deadline.answerBy())) {
        // Its bound ran out: say so, not "Timeout 1ms exceeded" of the call it ended in.
        throw new com.microsoft.playwright.PlaywrightException(
            "the page did not answer within "
                + TimeUnit.NANOSECONDS.toMillis(deadline.answerBy() - deadline.startNanos())
                + " ms"
                + waitingFor(c),
            e);
      }
      throw e;
    }
  }

  /**
   * Closes {@code context} (or a page, or a browser connection) from any thread without waiting: a
   * call of its environment that holds the lane's thread fails once it is gone, and the other
   * environments go on.
   */
  void closeNow(Object context, long timeoutMs) {
    BoundedConnection c = connection;
    if (c != null && !killed) {
      try {
        c.closeNow(context, timeoutMs);
      } catch (RuntimeException e) {
        // the driver is gone: so is the context
      }
    }
  }

  /** An environment takes its place on this lane. */
  void enter() {
    occupants.incrementAndGet();
  }

  /** An environment left this lane. */
  void leave() {
    occupants.decrementAndGet();
  }

  int occupants() {
    return occupants.get();
  }

  /**
   * Whether the lane can take an environment: not killed or closing, not failed to start, and its
   * processes run (or are still starting).
   */
  boolean usable() {
    return !killed && !closing && !dead();
  }

  /** Its start failed, or its driver or (on this machine) Chromium has gone. */
  private boolean dead() {
    return launchFailed || !driverRunning() || (grid.isEmpty() && !attaching && !browserRunning());
  }

  /**
   * The launched browser, started on first use. A failed launch closes its driver again, so a retry
   * starts clean and no driver process is left behind. Call on the lane's thread only.
   */
  Browser browser() {
    if (browser != null) {
      return browser;
    }
    if (grid.isPresent() || attaching) {
      throw new IllegalStateException("this lane has a browser for each environment");
    }
    connect();
    List<String> args = chromiumArgs(true);
    try {
      // The browser-wide proxy reaches nowhere: every context has its environment's policy proxy,
      // and WebRTC honours only a browser-wide proxy when it decides which UDP is "non-proxied".
      browser =
          connection
              .playwright()
              .chromium()
              .launch(
                  new BrowserType.LaunchOptions()
                      .setProxy(new com.microsoft.playwright.options.Proxy(nowhere.server()))
                      .setExecutablePath(chromium)
                      .setHeadless(headless)
                      .setArgs(args));
      // The driver's one child: Chromium's browser process (the launcher script execs it under the
      // same pid).
      browserProcess = driverProcess.flatMap(d -> d.children().findFirst());
      LOG.info(
          "browser {} started: Chromium {} (pid {}), driver pid {}",
          number,
          browser.version(),
          browserProcess.map(p -> Long.toString(p.pid())).orElse("?"),
          driverProcess.map(p -> Long.toString(p.pid())).orElse("?"));
    } catch (RuntimeException e) {
      launchFailed = true;
      BoundedConnection c = connection;
      connection = null;
      c.disconnect();
      driverProcess.ifPresent(Lane::destroyTree);
      driverProcess = Optional.empty();
      throw e;
    }
    return browser;
  }

  /** A browser on the Grid, and where it runs when the Grid said: its node and session. */
  record Remote(
      Browser browser, Optional<GridStatus.Session> session, Optional<String> attachedTo) {
    /** In words, for the transition log. */
    Optional<String> placement() {
      return attachedTo.isPresent()
          ? attachedTo
          : session.map(s -> "grid node " + s.node() + " session " + s.id());
    }

    /** Whether it is a Chromium the user runs, which the environment shares with them. */
    boolean attached() {
      return attachedTo.isPresent();
    }
  }

  /**
   * On the lane's thread of a grid lane: a new browser on the Grid, a session of its own there,
   * started within {@code timeoutMs}. Its environment closes it, which ends the Grid session. Where
   * it runs is looked up on the Grid's status: this lane's launches follow one another on its
   * thread, so the one tagged session the lane has not seen before is this browser's.
   */
  Remote launchRemote(long timeoutMs) {
    GridSettings g = grid.orElseThrow();
    connect();
    // The browser-wide proxy is loopback on the node, where nothing listens: it reaches nowhere,
    // as a local lane's does; every context has its environment's policy proxy.
    Browser remote =
        connection
            .playwright()
            .chromium()
            .launch(
                new BrowserType.LaunchOptions()
                    .setProxy(new com.microsoft.playwright.options.Proxy("http://127.0.0.1:9"))
                    .setHeadless(headless)
                    // A slot was free a moment ago (GridSlots): this bounds the browser's start,
                    // and a race for that slot with another client of the Grid.
                    .setTimeout(timeoutMs)
                    // The node decides its own sandbox (its stereotype's args), never this host.
                    .setArgs(chromiumArgs(false)));
    Optional<GridStatus.Session> session = Optional.empty();
    try {
      List<GridStatus.Session> tagged = GridClient.status(g, 5_000).ofLane(gridTag);
      List<GridStatus.Session> fresh =
          tagged.stream().filter(s -> !gridSessions.contains(s.id())).toList();
      if (fresh.size() == 1) {
        session = Optional.of(fresh.get(0));
      }
      // Every session of the lane the Grid still lists is known from now on (a closed browser's
      // may stay listed for a while, a dead node's until the Grid notices); one it no longer lists
      // never comes back.
      gridSessions.retainAll(tagged.stream().map(GridStatus.Session::id).toList());
      tagged.forEach(s -> gridSessions.add(s.id()));
      ends.orElseThrow().seen(tagged);
    } catch (java.io.IOException e) {
      LOG.debug("the Grid's status did not say where a browser runs: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Remote started = new Remote(remote, session, Optional.empty());
    remotes.add(started);
    return started;
  }

  /**
   * On the lane's thread of an attaching lane: a connection of its own to the Chromium at {@code
   * cdp} (its DevTools discovery address), made within {@code timeoutMs}. Its environment closes
   * it, which only disconnects: the browser is the user's, and runs on.
   */
  Browser attach(java.net.URI cdp, long timeoutMs) {
    connect();
    return connection
        .playwright()
        .chromium()
        .connectOverCDP(
            cdp.toString(),
            new BrowserType.ConnectOverCDPOptions()
                .setTimeout(timeoutMs)
                // None of Playwright's own settings on the user's browser (where its downloads go,
                // focus emulation on their tabs): the environment sets what it needs on its own
                // tabs.
                .setNoDefaults(true));
  }

  /**
   * Ends the Grid sessions of this lane that are still open once its driver is gone: a driver that
   * was killed or died cannot end them, and the Grid would hold their slots until its own session
   * timeout. Each request is bounded; what fails is logged, and ends at that timeout.
   *
   * <p>Each is first given time to go, as an end may still be under way ({@link GridEnds}): {@link
   * #LEFT_SESSIONS_SETTLE_MS}, or {@link #ENDING_DRIVER_SETTLE_MS} when the driver was stopped
   * while it was ending its sessions ({@code stoppedWhileEnding}).
   */
  private void endLeftGridSessions(boolean stoppedWhileEnding, long budgetMs) {
    GridSettings g = grid.orElseThrow();
    List<GridStatus.Session> left;
    try {
      left = GridClient.status(g, 5_000).ofLane(gridTag);
      long settleMs =
          Math.min(
              budgetMs, stoppedWhileEnding ? ENDING_DRIVER_SETTLE_MS : LEFT_SESSIONS_SETTLE_MS);
      long settled = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settleMs);
      while (!left.isEmpty() && System.nanoTime() - settled < 0) {
        Thread.sleep(200);
        try {
          left = GridClient.status(g, 5_000).ofLane(gridTag);
        } catch (java.io.IOException unanswered) {
          break; // the sessions last seen are ended below
        }
      }
    } catch (java.io.IOException e) {
      LOG.warn(
          "could not learn which Selenium Grid sessions browser lane {} left open at {}: {}; they"
              + " end at the Grid's session timeout",
          number,
          g.url(),
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
          GridClient.endSession(g, s.id(), 5_000);
        } catch (java.io.IOException once) {
          // The node may have been stopping it as asked: asked again, it says it is gone.
          Thread.sleep(500);
          GridClient.endSession(g, s.id(), 5_000);
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
          g.url());
    }
  }

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

  /**
   * On the lane's thread: closes a browser of the lane's own on the Grid (one it attached to is
   * only disconnected). Its driver asks the Grid to end the session once the connection has closed,
   * after this returns; {@link #close} waits for that end ({@link GridEnds}). A browser that was
   * already disconnected (its node gone) had its end asked for as it disconnected.
   */
  void closeRemote(Remote remote) {
    remotes.remove(remote);
    if (remote.browser().isConnected()) {
      remote.session().ifPresent(s -> ends.ifPresent(e -> e.asked(s.id())));
    }
    remote.browser().close();
  }

  /**
   * On the lane's thread, as it closes: closes the Grid browsers still open, each through {@link
   * #closeRemote} within {@code eachMs} and all by {@code untilNanos}, rather than leaving them to
   * the driver's exit (whose end of a session would meet the one that closing its connection
   * sends). Queued after every call before it, so a close still waiting for the lane's thread has
   * run when this has.
   */
  private void closeRemotes(long eachMs, long untilNanos) {
    for (Remote r : List.copyOf(remotes)) {
      try {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(untilNanos - System.nanoTime());
        deadline(Math.max(1, Math.min(eachMs, leftMs)));
        closeRemote(r);
      } catch (RuntimeException e) {
        LOG.debug("browser lane {}: closing a Grid browser failed: {}", number, e.getMessage());
      }
    }
  }

  /** The Grid had no free slot within its queue timeout. */
  static final class GridCapacityException extends RuntimeException {
    final GridStatus status;

    GridCapacityException(GridStatus status) {
      super("no free slot: " + status.describe(), null, false, false);
      this.status = status;
    }
  }

  /** The Grid did not answer its status. */
  static final class GridUnreachableException extends RuntimeException {
    GridUnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * On the lane's thread: gives the Playwright calls that follow {@code ms} from now, whatever the
   * current call's bound has left (a close after a failure).
   */
  void deadline(long ms) {
    BoundedConnection c = connection;
    if (c != null) {
      c.deadline(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms));
    }
  }

  /**
   * The switches every Chromium of this lane starts with; {@code here}: on this machine, where a
   * root user needs Chromium's sandbox off (a Grid node's operator says that in its stereotype).
   */
  private static List<String> chromiumArgs(boolean here) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                // QUIC and WebRTC's direct UDP would not go through the policy proxy.
                "--disable-quic",
                "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
                "--disable-default-apps",
                "--deny-permission-prompts"));
    if (here && "root".equals(System.getProperty("user.name"))) {
      args.add("--no-sandbox");
    }
    return args;
  }

  /**
   * On the lane's thread: the driver, started on first use (for a grid lane, told where the Grid
   * is). A failed start leaves no driver process behind.
   */
  private BoundedConnection connect() {
    if (connection != null) {
      return connection;
    }
    Map<String, String> env =
        new java.util.HashMap<>(
            Map.of(
                "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1",
                "PLAYWRIGHT_NODEJS_PATH", node.toString(),
                // Node and the Chromium it starts make their temporary profiles under TMPDIR: ours,
                // removed on close.
                "TMPDIR", tempRoot.toString(),
                // Playwright's debug log (DEBUG=pw:protocol, pw:api) would quote a credential
                // fill's
                // value: it stays off in the driver whatever the host's environment says.
                "DEBUG", "",
                "DEBUG_FILE", "",
                // Loopback goes through the policy proxy too; this switch would let Chromium bypass
                // it.
                "PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK", "",
                // A crashed renderer's minidump holds its memory (a page's secrets among it).
                // Chromium's crash handler writes it under $HOME whatever the switches say; here it
                // goes
                // under our temp root, removed on close.
                "BREAKPAD_DUMP_LOCATION", tempRoot.resolve("crashes").toString(),
                // A promise the driver leaves unhandled (seen: dismissing a dialog of a page whose
                // context an abort closed) would end the driver, and every session on this lane
                // with
                // it: it is a warning instead.
                "NODE_OPTIONS", "--unhandled-rejections=warn"));
    grid.ifPresent(
        g -> {
          // Playwright's driver opens each browser as a session on this Grid, and speaks to it
          // through the Grid's CDP endpoint.
          env.put("SELENIUM_REMOTE_URL", g.url().toString());
          env.put(
              "SELENIUM_REMOTE_CAPABILITIES",
              new com.google.gson.Gson().toJson(Map.of(GRID_TAG, gridTag)));
          if (!g.headers().isEmpty()) {
            env.put("SELENIUM_REMOTE_HEADERS", new com.google.gson.Gson().toJson(g.headers()));
          }
        });
    Optional<Path> unpacked = driverFiles.get();
    try {
      if (unpacked.isPresent()) {
        Optional<Path> preload = unpacked.flatMap(DriverFiles::codeCacheScript);
        try {
          connection = BoundedConnection.start(unpacked, preload, env);
        } catch (RuntimeException withCache) {
          if (preload.isEmpty() || killed) {
            throw withCache;
          }
          // The code cache is only a saving: a driver that does not start with it starts without.
          LOG.warn(
              "Playwright's driver did not start with its code cache ({}); starting it without",
              ChromiumLog.summary(String.valueOf(withCache.getMessage())));
          connection = BoundedConnection.start(unpacked, Optional.empty(), env);
        }
      } else {
        // A fresh driver instance per lane, unpacked under the lane's temp root, keeps the
        // directory ours, so it goes when the temp root is removed.
        connection =
            unpackingUnder(
                tempRoot, () -> BoundedConnection.start(Optional.empty(), Optional.empty(), env));
      }
    } catch (RuntimeException e) {
      // The lane is no use: the pool retires it, and the next environment gets a new one.
      launchFailed = true;
      throw e;
    }
    driverProcess = Optional.of(connection.process().toHandle());
    watchDriver(driverProcess.get());
    if (killed) {
      // kill() came before the driver process was known: honour it now, before Chromium starts.
      kill();
      throw new java.util.concurrent.CancellationException(
          "the browser was stopped while it started");
    }
    return connection;
  }

  /**
   * Runs {@code create}, which unpacks a Playwright driver, with Playwright's driver directory set
   * to {@code dir} instead of the system temp directory, one at a time; the setting is put back
   * afterwards, so that no later Playwright of the host is sent to a directory since removed.
   */
  static <T> T unpackingUnder(Path dir, java.util.function.Supplier<T> create) {
    synchronized (CREATE_LOCK) {
      String before = System.getProperty(DRIVER_TMPDIR);
      System.setProperty(DRIVER_TMPDIR, dir.toString());
      try {
        return create.get();
      } finally {
        if (before == null) {
          System.clearProperty(DRIVER_TMPDIR);
        } else {
          System.setProperty(DRIVER_TMPDIR, before);
        }
      }
    }
  }

  /** Where Playwright unpacks a driver it creates (else the system temp directory). */
  private static final String DRIVER_TMPDIR = "playwright.driver.tmpdir";

  /**
   * Stops everything at once, from any thread: Chromium and the Node.js driver are killed, so a
   * Playwright call that is running on the lane's thread fails instead of waiting. The lane is
   * unusable afterwards.
   */
  void kill() {
    killed = true;
    // Chromium first, with its own children: once the driver is gone they are no longer among its
    // descendants.
    browserProcess.ifPresent(Lane::destroyTree);
    driverProcess.ifPresent(Lane::destroyTree);
  }

  private static void destroyTree(ProcessHandle p) {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
  }

  /**
   * Runs {@code exited} (on some other thread) when the Node.js driver process exits, unless the
   * lane was closing; running the returned step removes it (an environment that closed).
   */
  Runnable onDriverExit(Runnable exited) {
    exitListeners.add(exited);
    if (!driverRunning() && !closing) {
      exited.run();
    }
    return () -> exitListeners.remove(exited);
  }

  /** The environments' listeners for the driver's exit; one watch on the process runs them all. */
  private final java.util.Set<Runnable> exitListeners =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private void watchDriver(ProcessHandle driver) {
    driver
        .onExit()
        .thenRun(
            () -> {
              if (!closing) {
                exitListeners.forEach(Runnable::run);
              }
            });
  }

  /** Whether the Node.js driver still runs (true before it started). */
  boolean driverRunning() {
    return driverProcess.map(Lane::running).orElse(true);
  }

  /** Waits up to {@code timeoutMs} for the Node.js driver to end; whether it has. */
  boolean awaitDriverExit(long timeoutMs) {
    return driverProcess
        .map(
            p -> {
              try {
                p.onExit().get(timeoutMs, TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                // judged by its state below
              }
              return !running(p);
            })
        .orElse(false);
  }

  /** Whether Chromium's browser process still runs (true before it started). */
  boolean browserRunning() {
    return browserProcess.map(Lane::running).orElse(true);
  }

  /**
   * Alive and not a zombie: an orphan that ended stays one until it is reaped, and ProcessHandle
   * calls it alive.
   */
  private static boolean running(ProcessHandle p) {
    if (!p.isAlive()) {
      return false;
    }
    try {
      String stat =
          java.nio.file.Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
    } catch (java.io.IOException | RuntimeException e) {
      return true; // no /proc here: trust isAlive
    }
  }

  /**
   * Closes the browser and the driver, and waits for the lane's thread and processes to end; {@code
   * timeoutMs} bounds the browser's close.
   */
  @Override
  public void close() {
    close(10_000);
  }

  void close(long timeoutMs) {
    // A lane whose driver or Chromium died cannot close gracefully: what is left of it is killed.
    boolean dead = dead();
    closing = true;
    if (dead) {
      kill();
    }
    // What a grid lane's close spends on its Grid browsers and sessions, in all: a node that died
    // leaves connections that answer nothing and sessions the Grid lists until it notices.
    long gridCloseEnds = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRID_CLOSE_MS);
    java.util.function.LongSupplier gridLeftMs =
        () -> Math.max(0, TimeUnit.NANOSECONDS.toMillis(gridCloseEnds - System.nanoTime()));
    if (grid.isPresent() && !killed && !thread.isShutdown()) {
      // Before its driver is told to go, which would end again each session still ending.
      try {
        call(
            () -> {
              closeRemotes(timeoutMs, gridCloseEnds);
              return null;
            },
            Math.max(1, gridLeftMs.getAsLong()));
      } catch (RuntimeException e) {
        LOG.debug("browser lane {}: closing its Grid browsers failed: {}", number, e.getMessage());
      }
      ends.orElseThrow().awaitAnswered(Math.min(GRID_DRIVER_EXIT_MS, gridLeftMs.getAsLong()));
    }
    RuntimeException failure = null;
    try {
      if (!killed && !thread.isShutdown()) {
        call(
            () -> {
              try {
                PreparedContext unused = spare;
                spare = null;
                if (unused != null) {
                  unused.discard();
                }
                if (browser != null) {
                  browser.close();
                }
              } finally {
                BoundedConnection c = connection;
                if (c != null) {
                  c.disconnect();
                }
              }
              return null;
            },
            timeoutMs);
      }
    } catch (RuntimeException e) {
      // After kill() the connection is gone, and closing it fails: expected, not a failure to
      // report.
      failure = killed ? null : e;
    } finally {
      browser = null;
      connection = null;
      thread.shutdown();
      try {
        if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
          kill();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      nowhere.close();
      // A spare the close did not reach (a dead lane): its context went with the browser, its
      // proxy goes now.
      PreparedContext unused = spare;
      spare = null;
      if (unused != null) {
        try {
          unused.proxy().close();
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
        }
      }
      browserProcess.filter(ProcessHandle::isAlive).ifPresent(Lane::destroyTree);
      // A driver told to go ends the Grid sessions it still has, and exits once each end is
      // answered; one stopped before that may have an end still on its way to the Grid.
      boolean stoppedWhileEnding = false;
      long driverExitMs =
          grid.isPresent()
              ? Math.max(
                  GRID_DRIVER_EXIT_MIN_MS, Math.min(GRID_DRIVER_EXIT_MS, gridLeftMs.getAsLong()))
              : 5_000;
      if (driverProcess.isPresent()) {
        ProcessHandle p = driverProcess.get();
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        try {
          p.onExit().get(driverExitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          p.destroyForcibly();
          stoppedWhileEnding = true;
        } catch (java.util.concurrent.ExecutionException
            | java.util.concurrent.TimeoutException e) {
          LOG.warn(
              "browser lane {}: its driver did not exit within {} ms of being told to; stopped",
              number,
              driverExitMs);
          p.destroyForcibly();
          stoppedWhileEnding = true;
        }
      }
      if (grid.isPresent() && driverProcess.isPresent()) {
        endLeftGridSessions(stoppedWhileEnding, gridLeftMs.getAsLong());
      }
      try {
        PlaywrightProvider.deleteTree(tempRoot);
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
