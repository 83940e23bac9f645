package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.api.browser.spi.BrowserProvider;
import dev.periscope.api.browser.spi.CallDeadline;
import dev.periscope.api.browser.spi.EnvironmentFault;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import dev.periscope.browser.Cleanup;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * One open provider environment as the runtime holds it: its identity, its queue (a fair lock:
 * operations run one at a time, in admission order), its health, and the refs of its newest
 * observation ({@link ObservationRefs}).
 *
 * <p>Its life: admitting, then (last release) no longer admitting while admitted work drains, then
 * closed. An abort (a caller's cancellation, a shutdown that waited too long, or a fault) stops the
 * running operation and makes the environment unusable at once.
 *
 * <p>Health: every provider call is a {@link #step} with a deadline of its timeout plus the margin;
 * a step still running then is stopped and the environment faulted as unresponsive. The page gets a
 * liveness check ({@link BrowserEnvironment#probe()}) with a short deadline of its own while the
 * environment is idle, before a call that follows a pause, and after a step that failed. A fault
 * the provider reports itself (its browser, renderer or driver died) aborts the environment the
 * same way. Either way the runtime hears of it at once.
 */
final class Environment {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Environment.class);
  final String id = "browser-" + UUID.randomUUID();
  final BrowserSessionId sessionId;
  final BrowserProvider provider;
  final int generation;
  private final BrowserEnvironment delegate;
  final FifoGate queue = new FifoGate(); // the recorder reserves the turn after an action
  private final ObservationRefs refs;
  private final Watchdog watchdog;
  private final RuntimeSettings.Timeouts timeouts;

  /** Whether the session's next environment is restored from its checkpoint. */
  private final boolean restores;

  private volatile Runnable onAbort = () -> {};
  private volatile BiConsumer<Environment, LostEnvironment> onFault = (env, lost) -> {};
  private volatile boolean admitting = true;
  private volatile boolean aborted;
  private volatile boolean closed;
  private volatile LostEnvironment lost;
  private volatile Watchdog.Timer liveness = () -> {};

  /**
   * Work the current operation asked to run after it, still holding the queue; set and read on its
   * thread.
   */
  private Runnable followUp;

  private Executor followUpExecutor;

  Environment(
      BrowserSessionId sessionId,
      BrowserProvider provider,
      BrowserEnvironment delegate,
      int generation,
      boolean restores,
      Watchdog watchdog,
      RuntimeSettings.Timeouts timeouts) {
    this.restores = restores;
    this.sessionId = sessionId;
    this.provider = provider;
    this.delegate = delegate;
    this.generation = generation;
    this.watchdog = watchdog;
    this.timeouts = timeouts;
    this.refs = new ObservationRefs(id, generation);
    this.answers = new PageLiveness(delegate, watchdog, timeouts, this::fault, () -> aborted);
    String where;
    try {
      where = delegate.placement().orElse(null);
    } catch (RuntimeException e) {
      where = null; // a provider that cannot say: recorded as here
    }
    this.placement = where;
    boolean shared;
    try {
      shared = delegate.attached();
    } catch (RuntimeException e) {
      shared = false;
    }
    this.attached = shared;
  }

  /** When the page last answered, and the liveness check. */
  private final PageLiveness answers;

  /** Whether it works in a browser someone else runs: the journal records its attach and detach. */
  final boolean attached;

  /** What runs once its browser has closed (or detached); set before any call runs. */
  private volatile java.util.function.Consumer<RuntimeException> afterClose = failure -> {};

  /**
   * Runs {@code then} once the environment's browser has closed, after its close: with the close's
   * failure, or null when it closed.
   */
  void afterClose(java.util.function.Consumer<RuntimeException> then) { // each runs, in order
    afterClose = afterClose.andThen(then);
  }

  /**
   * An event of the session's journal in its audit trail: not an action of the model's but what
   * happened to the environment or its page ({@code kind}: a challenge seen, a handoff, an attach),
   * {@code cause} saying what, between the observations {@code before} (its id) and {@code after}.
   */
  dev.periscope.api.browser.Transition event(
      String kind,
      String cause,
      dev.periscope.api.browser.Transition.Outcome outcome,
      String before,
      dev.periscope.api.browser.Observation after,
      java.time.Instant startedAt,
      long durationMs) {
    return new dev.periscope.api.browser.Transition(
        "transition-" + java.util.UUID.randomUUID(),
        sessionId.value(),
        id,
        provider.id(),
        generation,
        java.util.Map.of("kind", kind, "cause", cause),
        outcome,
        before,
        after,
        startedAt,
        startedAt.plusMillis(durationMs),
        new dev.periscope.api.browser.Transition.Metrics(
            durationMs, durationMs, 0, 0, 0, false, false),
        null);
  }

  /** Where the browser runs, as its provider said when it opened; null for this machine. */
  private final String placement;

  String placement() {
    return placement;
  }

  /**
   * Starts watching the environment's health: {@code faulted} hears, once, of a fault that ends it,
   * just before it is aborted, and must not block; {@code aborted} hears of every abort, so the
   * owner stops handing it out.
   */
  void watch(
      Runnable aborted,
      BiConsumer<Environment, LostEnvironment> faulted,
      java.util.function.LongConsumer checkpoint) {
    this.onAbort = aborted;
    this.onFault = faulted;
    this.checkpoint = checkpoint;
    // What the provider reports once the environment closed is the close's doing, not a fault.
    delegate.onFault(
        fault -> {
          if (closed) {
            return;
          }
          if (fault.cause() == EnvironmentFault.Cause.RETIRING) {
            retiring = fault;
            retireIfIdle();
          } else {
            fault(fault);
          }
        });
    liveness = watchdog.every(timeouts.livenessIntervalMs(), this::checkWhileIdle);
    if (this.aborted) {
      liveness.close();
    }
  }

  /**
   * A retirement its provider asked for ({@link EnvironmentFault.Cause#RETIRING}): carried out once
   * no operation holds the queue, by whoever finds it free first (the provider's report, the idle
   * check, or the next operation, which then runs on the session's next environment).
   */
  private volatile EnvironmentFault retiring;

  /** Writes the session's checkpoint with the time given; caller holds the queue. */
  private volatile java.util.function.LongConsumer checkpoint = timeLeft -> {};

  private void retireIfIdle() {
    if (retiring == null || !queue.tryEnterNow()) {
      return;
    }
    try {
      retireNow();
    } finally {
      queue.exit();
    }
  }

  /**
   * Caller holds the queue: writes the checkpoint of the still working browser, then ends the
   * environment as a fault does, so the session's next environment opens elsewhere from it.
   */
  private void retireNow() {
    EnvironmentFault why = retiring;
    if (why == null || aborted || closed || lost != null) {
      return;
    }
    try {
      checkpoint.accept(timeouts.actionMs());
    } catch (RuntimeException e) {
      LOG.warn(
          "browser session {}: the checkpoint before its browser moved failed ({}); the next"
              + " one is restored from the checkpoint before",
          sessionId,
          e.getMessage());
    }
    fault(why);
  }

  /** The environment a fault ended before this one, when the model has not heard of it yet. */
  void inherit(LostEnvironment predecessor) {
    refs.inherit(predecessor);
  }

  /**
   * From inside an operation: runs {@code work} on {@code executor} once the operation returned,
   * before the next operation is admitted. The caller has its result at once; the queue passes on
   * when {@code work} is done.
   */
  void afterThisOperation(Executor executor, Runnable work) {
    followUpExecutor = executor;
    followUp = work;
  }

  /** Passes the queue on, after the current operation's follow-up if it asked for one. */
  private void exitQueue() {
    Runnable work = followUp;
    Executor executor = followUpExecutor;
    followUp = null;
    followUpExecutor = null;
    if (work == null || closed || aborted) {
      queue.exit();
      return;
    }
    try {
      executor.execute(
          () -> {
            try {
              work.run();
            } finally {
              queue.exit();
            }
          });
    } catch (RejectedExecutionException e) {
      queue.exit();
    }
  }

  BrowserEnvironment delegate() {
    return delegate;
  }

  boolean usable() {
    return admitting && !aborted;
  }

  boolean aborted() {
    if (lost != null && !aborted && Thread.currentThread() != ending) {
      // Another thread recorded a fault and is ending this environment (the runtime notes the loss,
      // then the abort detaches it): a call that failed meanwhile waits for that end, so that it
      // says what ended the browser rather than that the browser is intact.
      try {
        ended.await(FAULT_END_WAIT_MS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return aborted;
  }

  /** How long a call's failure waits for a fault another thread recorded to end the environment. */
  private static final long FAULT_END_WAIT_MS = 2_000;

  /** Counted down once an abort has detached the environment from its owner. */
  private final java.util.concurrent.CountDownLatch ended =
      new java.util.concurrent.CountDownLatch(1);

  /** The thread ending the environment for a fault, while it does. */
  private volatile Thread ending;

  /** The fault that ended this environment, if one did. */
  LostEnvironment lost() {
    return lost;
  }

  RuntimeSettings.Timeouts timeouts() {
    return timeouts;
  }

  /**
   * Runs one operation on this environment's queue. A caller cancelled while it waits in the queue
   * leaves without running; cancelled while its operation runs, the environment is aborted. An
   * environment found discarded, or whose page no longer answers after a pause, fails the operation
   * before it starts ({@link BrowserException#environmentGone}): nothing was done.
   */
  <T> T queued(Cancellation cancellation, Supplier<T> operation) {
    if (!usable()) {
      throw gone();
    }
    try {
      queue.enter(cancellation);
    } catch (CancellationException e) {
      throw BrowserException.of(
              ErrorCode.BROWSER_ACTION_CANCELLED,
              "the call was cancelled while it waited for the browser; nothing was done")
          .withUrl(lastUrl());
    }
    try {
      if (closed || aborted) {
        throw gone();
      }
      if (retiring != null) {
        // Its place is being taken out of service: moved now, this operation runs on the next.
        retireNow();
        throw gone();
      }
      if (cancellation.isCancelled()) {
        throw BrowserException.of(
                ErrorCode.BROWSER_ACTION_CANCELLED,
                "the call was cancelled before the browser started on it; nothing was done")
            .withUrl(lastUrl());
      }
      if (answers.silentFor(timeouts.checkAfterPauseMs())) {
        answers.check();
        if (aborted) {
          throw gone();
        }
      }
      try (Cancellation.Registration aborting = cancellation.onCancel(this::abort)) {
        return operation.get();
      } catch (BrowserException e) {
        // Only the runtime says an operation may run again; whatever the operation threw does not.
        throw e.rerunnable() ? e.withRerunnable(false) : e;
      }
    } finally {
      exitQueue();
    }
  }

  private BrowserException gone() {
    LostEnvironment l = lost;
    String why = l != null ? l.fault.detail() : aborted ? "it was discarded" : "it is closed";
    return BrowserException.environmentGone(
        "this browser environment cannot be used: " + why + "; the next call opens a fresh one",
        lastUrl());
  }

  /**
   * Runs one provider call of the current operation under its one deadline ({@link CallDeadline}:
   * {@code timeoutMs} and the margin), handed to the provider with the call: still running at its
   * end, it is stopped by faulting the environment as unresponsive. A step that fails for a reason
   * that may be the page's (not a refusal, not a stale ref) is followed by a liveness check. Caller
   * holds the queue.
   */
  <T> T step(String what, long timeoutMs, Supplier<T> work) {
    CallDeadline deadline = CallDeadline.startingNow(timeoutMs, timeouts.marginMs());
    long limit = timeoutMs + timeouts.marginMs();
    Watchdog.Timer stop =
        watchdog.after(
            limit,
            () ->
                fault(
                    new EnvironmentFault(
                        EnvironmentFault.Cause.DEADLINE_EXCEEDED,
                        what
                            + " was still running "
                            + limit
                            + " ms after it began (its"
                            + " timeout is "
                            + timeoutMs
                            + " ms)")));
    T result;
    try {
      result = delegate.within(deadline, work);
    } catch (RuntimeException e) {
      stop.close();
      if (mayBeThePages(e)) {
        answers.check();
      }
      throw e;
    }
    stop.close();
    answers.answered();
    return result;
  }

  private boolean mayBeThePages(RuntimeException e) {
    if (aborted) {
      return false;
    }
    return !(e instanceof BrowserException b)
        || b.code() == ErrorCode.BROWSER_ACTION_FAILED
        || b.code() == ErrorCode.BROWSER_ACTION_EVIDENCE_FAILED;
  }

  /**
   * Between operations: checks the page still answers, unless an operation holds the queue or one
   * just did.
   */
  private void checkWhileIdle() {
    if (retiring != null) {
      retireIfIdle();
      return;
    }
    if (!usable() || closed || !answers.silentFor(timeouts.livenessIntervalMs())) {
      return;
    }
    if (!queue.tryEnterNow()) {
      return;
    }
    try {
      if (usable() && !closed) {
        answers.check();
      }
    } finally {
      queue.exit();
    }
  }

  /**
   * Ends the environment for a fault, from any thread: the first fault wins, and none counts once
   * the environment was aborted for another reason. (A checkpoint that hangs while the environment
   * closes is a fault too.) The runtime hears of it, then the environment is aborted; neither
   * waits.
   */
  void fault(EnvironmentFault fault) {
    LostEnvironment l;
    synchronized (this) {
      if (aborted || lost != null) {
        return;
      }
      Refs r = refs.latest();
      l =
          new LostEnvironment(
              sessionId,
              id,
              fault,
              Instant.now(),
              lastUrl(),
              r == null ? null : r.observation().id(),
              restores);
      lost = l;
    }
    // The runtime notes the loss first, so an open of the session that begins once this one is
    // detached tells of it.
    ending = Thread.currentThread();
    try {
      onFault.accept(this, l);
    } finally {
      try {
        abort();
      } finally {
        ending = null;
      }
    }
  }

  /**
   * Stops the running operation and makes the environment unusable. Safe from any thread, more than
   * once.
   */
  void abort() {
    synchronized (this) {
      if (aborted) {
        return;
      }
      aborted = true;
      admitting = false;
    }
    liveness.close();
    try {
      onAbort.run();
    } finally {
      ended.countDown();
    }
    delegate.abort();
  }

  /**
   * Stops admission, waits up to {@code timeoutMs} for admitted work to drain (aborting it after
   * that), runs {@code beforeClose} with the time left (the checkpoint), then closes. Both a {@code
   * beforeClose} failure and a close failure are reported, the second suppressed in the first.
   */
  void shutdown(long timeoutMs, java.util.function.LongConsumer beforeClose) {
    admitting = false;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    boolean entered = queue.tryEnter(timeoutMs);
    Cleanup cleanup = new Cleanup();
    try {
      if (!entered) {
        abort();
      }
      synchronized (this) {
        if (closed) {
          return;
        }
        closed = true;
      }
      liveness.close();
      if (!aborted) {
        cleanup.run(
            () ->
                beforeClose.accept(
                    Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
      }
      refs.clear();
      RuntimeException closing = null;
      try {
        delegate.close();
      } catch (RuntimeException e) {
        closing = e;
        cleanup.add(e);
      }
      RuntimeException failure = closing;
      cleanup.run(() -> afterClose.accept(failure));
    } finally {
      if (entered) {
        queue.exit();
      }
    }
    cleanup.done();
  }

  Refs latest() {
    return refs.latest();
  }

  String lastUrl() {
    return refs.lastUrl();
  }

  /**
   * Turns a provider observation into the newest observation, minting refs. Caller holds the queue.
   */
  Observation record(ProviderObservation p, boolean shown) {
    return refs.record(p, shown);
  }

  /**
   * The provider element behind a ref of the newest observation, or {@code
   * BROWSER_STALE_REFERENCE}.
   */
  ProviderElement resolve(String observationId, String ref) {
    return refs.resolve(observationId, ref);
  }

  private volatile dev.periscope.api.browser.ScreenshotView lastScreenshot;

  /** The view of the latest screenshot taken of this environment, or null. */
  dev.periscope.api.browser.ScreenshotView lastScreenshot() {
    return lastScreenshot;
  }

  /** A screenshot was taken: coordinates are now taken from {@code view} (null: none said). */
  void screenshotTaken(dev.periscope.api.browser.ScreenshotView view) {
    lastScreenshot = view;
  }

  /**
   * The element behind a ref that an action is about to act on: as {@link #resolve}, and {@code
   * BROWSER_CHALLENGE} when the challenge the observation shows holds it back.
   */
  ProviderElement resolveForAction(String observationId, String ref) {
    ProviderElement e = refs.resolve(observationId, ref);
    refs.admit(observationId, ref);
    return e;
  }

  /**
   * {@code BROWSER_CHALLENGE} for an input that names no element while the page is a challenge
   * page.
   */
  void admitOnPage() {
    refs.admitOnPage();
  }
}
