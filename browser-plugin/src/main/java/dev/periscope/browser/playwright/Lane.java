package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.impl.BoundedConnection;
import dev.periscope.api.browser.spi.CallDeadline;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One lane of the browser pool: a Node.js driver, the Chromium it launched, and the one thread that
 * drives them. Playwright for Java is not thread-safe and dispatches its events only while a call
 * runs on its thread, so every use goes through {@link #call}; the environments on a lane take
 * turns on that thread ({@link LaneThread}). A call is bounded ({@link BoundedConnection}): a
 * wedged page fails its own call and the lane goes on; {@link #closeNow} ends one environment's
 * context from any thread. Only a driver that stops answering is {@link #kill() killed}, and with
 * it every environment of the lane, as its death would. Its processes are {@link LaneProcesses},
 * its driver's start {@link DriverStart}, and a grid lane's Grid side {@link LaneGrid}.
 */
final class Lane implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Lane.class);

  /** How long past a call's own bound the driver may take to answer before it is judged wedged. */
  static final long UNANSWERED_MARGIN_MS = 5_000;

  final int number;
  private final LaneThread thread;

  private final Path chromium;
  private final Path node;
  private final Path tempRoot;
  private final boolean headless;
  private final NowhereProxy nowhere;

  /** Playwright's driver unpacked once for every lane ({@link DriverFiles}), if it could be. */
  private final java.util.function.Supplier<Optional<Path>> driverFiles;

  private volatile BoundedConnection connection;
  private Browser browser;

  /** The driver's and Chromium's processes. */
  private final LaneProcesses processes;

  private volatile boolean killed;
  private volatile boolean closing;
  private volatile boolean launchFailed;
  private final AtomicInteger occupants = new AtomicInteger();

  /**
   * The Selenium Grid side of this lane, if it is a grid lane: its driver launches one remote
   * browser per environment there ({@link #launchRemote}) instead of one Chromium here.
   */
  private final Optional<LaneGrid> grid;

  /**
   * Whether this lane attaches to a Chromium the user runs ({@link #attach}) for each environment,
   * instead of launching one: its driver starts no browser of its own.
   */
  private final boolean attaching;

  /**
   * The capability a grid lane asks for each browser with, so the Grid's {@code /status} shows
   * which sessions are the lane's: its value is the lane's own {@link LaneGrid#tag()}.
   */
  static final String GRID_TAG = "periscope:lane";

  /** Makes a context ready ahead of need on this lane's browser; null for none. */
  private final java.util.function.Function<Browser, PreparedContext> spares;

  /** The context made ahead of need, if any; on the lane's thread only. */
  private PreparedContext spare;

  private static final long SPARE_BOUND_MS = 30_000;

  private static final long IDLE_BEFORE_SPARE_MS = 500;

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
    this.grid = grid.map(g -> new LaneGrid(g, number));
    this.attaching = attaching;
    this.number = number;
    this.driverFiles = driverFiles;
    this.spares = spares;
    this.chromium = chromium;
    this.node = node;
    this.tempRoot = tempRoot;
    this.headless = headless;
    this.processes = new LaneProcesses(() -> closing);
    this.thread =
        new LaneThread(
            number,
            () -> connection,
            () -> killed || closing,
            this::kill,
            this::replenishWhileIdle);
    this.nowhere = new NowhereProxy(number);
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
        || !thread.idleFor(IDLE_BEFORE_SPARE_MS)) {
      return;
    }
    c.deadline(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SPARE_BOUND_MS));
    try {
      spare = spares.apply(browser);
    } catch (RuntimeException e) {
      // The next environment makes its own, and says what is wrong if it cannot.
    }
  }

  /**
   * Runs work on the lane's thread under {@code deadline}, the runtime's one deadline for the call,
   * and waits for it; the work's own exception is rethrown as is. Every Playwright call in it that
   * has no deadline of its own must end by {@link CallDeadline#answerBy()}, which the driver
   * enforces; a driver that has not answered once the deadline's whole span to {@link
   * CallDeadline#abandon()} has passed since the work began is killed.
   */
  <T> T call(Callable<T> work, CallDeadline deadline) {
    return thread.call(work, start -> deadline, deadline.abandonAfterMs());
  }

  /**
   * Runs work of the provider's own (opening, closing: no step of the runtime's) the same way,
   * bounded by {@code boundMs} from the work's start; a driver that has not answered {@value
   * #UNANSWERED_MARGIN_MS} ms after that is killed.
   */
  <T> T call(Callable<T> work, long boundMs) {
    return thread.call(
        work, start -> new CallDeadline(start, boundMs, 0), boundMs + UNANSWERED_MARGIN_MS);
  }

  /**
   * Runs {@code task} on the lane's thread after {@code delayMs}, between calls, with {@code
   * boundMs} on every Playwright call it makes; not at all once the lane is killed or closing. What
   * it throws is dropped: the next call of its environment says what is wrong.
   */
  java.util.concurrent.ScheduledFuture<?> later(long delayMs, Runnable task, long boundMs) {
    return thread.later(delayMs, task, boundMs);
  }

  /**
   * The deadline of the work now running: what waits inside it ends by its {@link
   * CallDeadline#waitsEnd()}, leaving the work time to answer. On the lane's thread.
   */
  CallDeadline running() {
    return thread.running();
  }

  /**
   * Where the lane's thread is now, for a log line when the runtime stops a call that ran past its
   * deadline: the Playwright call it waits in, then this plugin's frames that made it (up to six).
   */
  String busyWith() {
    return thread.busyWith();
  }

  /**
   * Runs a piece of the work now running with its Playwright calls bounded by {@code ms} as well: a
   * call that may stall (a script in a page whose main frame is on its way to another document,
   * which Chromium holds until that navigation commits) gives up sooner. On the lane's thread.
   */
  <T> T briefly(long ms, java.util.function.Supplier<T> work) {
    return thread.briefly(ms, work);
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
      processes.browserLaunched();
      LOG.info(
          "browser {} started: Chromium {} (pid {}), driver pid {}",
          number,
          browser.version(),
          processes.browserPid(),
          processes.driverPid());
    } catch (RuntimeException e) {
      launchFailed = true;
      BoundedConnection c = connection;
      connection = null;
      try {
        c.disconnect();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      } finally {
        processes.driverFailed();
      }
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
    LaneGrid g = grid.orElseThrow();
    connect();
    return g.launch(connection, timeoutMs, headless);
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
   * On the lane's thread: closes a browser of the lane's own on the Grid (one it attached to is
   * only disconnected). Its driver asks the Grid to end the session once the connection has closed,
   * after this returns; {@link #close} waits for that end ({@link GridEnds}). A browser that was
   * already disconnected (its node gone) had its end asked for as it disconnected.
   */
  void closeRemote(Remote remote) {
    grid.ifPresentOrElse(g -> g.closeRemote(remote), () -> remote.browser().close());
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
  static List<String> chromiumArgs(boolean here) {
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
    Optional<Path> unpacked = driverFiles.get();
    try {
      connection =
          DriverStart.start(
              node,
              tempRoot,
              headless,
              grid.map(LaneGrid::settings),
              grid.map(LaneGrid::tag).orElse(""),
              unpacked,
              () -> killed);
    } catch (RuntimeException e) {
      // The lane is no use: the pool retires it, and the next environment gets a new one.
      launchFailed = true;
      throw e;
    }
    processes.driverStarted(connection.process().toHandle());
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
   * to {@code dir} instead of the system temp directory, one at a time ({@link
   * DriverStart#unpackingUnder}).
   */
  static <T> T unpackingUnder(Path dir, java.util.function.Supplier<T> create) {
    return DriverStart.unpackingUnder(dir, create);
  }

  /**
   * Stops everything at once, from any thread: Chromium and the Node.js driver are killed, so a
   * Playwright call that is running on the lane's thread fails instead of waiting. The lane is
   * unusable afterwards.
   */
  void kill() {
    killed = true;
    processes.kill();
  }

  /**
   * Runs {@code exited} (on some other thread) when the Node.js driver process exits, unless the
   * lane was closing; running the returned step removes it (an environment that closed).
   */
  Runnable onDriverExit(Runnable exited) {
    return processes.onDriverExit(exited);
  }

  /** Whether the Node.js driver still runs (true before it started). */
  boolean driverRunning() {
    return processes.driverRunning();
  }

  /** Waits up to {@code timeoutMs} for the Node.js driver to end; whether it has. */
  boolean awaitDriverExit(long timeoutMs) {
    return processes.awaitDriverExit(timeoutMs);
  }

  /** Whether Chromium's browser process still runs (true before it started). */
  boolean browserRunning() {
    return processes.browserRunning();
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
    // A grid lane's close spends a budget of its own on its Grid browsers and sessions, in all: a
    // node that died leaves connections that answer nothing and sessions the Grid lists until it
    // notices.
    grid.ifPresent(LaneGrid::closing);
    if (grid.isPresent() && !killed && !thread.isShutdown()) {
      // Before its driver is told to go, which would end again each session still ending.
      grid.get().closeBrowsers(this, timeoutMs);
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
      if (!thread.shutdown(10)) {
        kill();
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
      processes.stopBrowser();
      // A driver told to go ends the Grid sessions it still has, and exits once each end is
      // answered; one stopped before that may have an end still on its way to the Grid.
      boolean stoppedWhileEnding =
          processes.stopDriver(number, grid.map(LaneGrid::driverExitMs).orElse(5_000L));
      if (grid.isPresent() && processes.driverStarted()) {
        grid.get().endLeftSessions(stoppedWhileEnding);
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
