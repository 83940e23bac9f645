package dev.periscope.browser.playwright;

import com.microsoft.playwright.impl.BoundedConnection;
import dev.periscope.api.browser.spi.CallDeadline;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A {@link Lane}'s one thread, which serializes every use of its driver: each piece of work runs
 * there under a {@link CallDeadline} that the {@link BoundedConnection} hands to every Playwright
 * call it makes, and a driver that does not answer well past that deadline is killed. Between calls
 * it pumps the driver's events.
 */
final class LaneThread {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Lane.class);
  private static final long IDLE_PUMP_MS = 100;
  private static final long WAIT_SLICE_MS = 250;
  private static final long PUMP_BOUND_MS = 5_000;

  private final int number;
  private final ScheduledExecutorService thread;

  /** The thread itself, for {@link #busyWith()}. */
  private volatile Thread worker;

  /** The lane's connection to its driver, or null (not started, or closed). */
  private final Supplier<BoundedConnection> connection;

  /** Whether the lane was killed or is closing: then nothing scheduled runs. */
  private final BooleanSupplier stopped;

  /** Kills the lane, when its driver did not answer. */
  private final Runnable kill;

  /** The calls submitted and not yet done. */
  private final AtomicInteger calls = new AtomicInteger();

  /** When the latest call ended (long ago, to begin with). */
  private volatile long lastCall = System.nanoTime() - TimeUnit.SECONDS.toNanos(60);

  /** The deadline of the work running on the thread. */
  private CallDeadline running = new CallDeadline(System.nanoTime(), 0, 0);

  /**
   * Starts the thread of lane {@code number}; between calls it delivers the pages' events and then
   * runs {@code idle} with the connection.
   */
  LaneThread(
      int number,
      Supplier<BoundedConnection> connection,
      BooleanSupplier stopped,
      Runnable kill,
      Consumer<BoundedConnection> idle) {
    this.number = number;
    this.connection = connection;
    this.stopped = stopped;
    this.kill = kill;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "periscope-playwright-" + number);
              t.setDaemon(true);
              worker = t;
              return t;
            });
    // Between calls the lane keeps delivering its pages' events, so a popup is closed and a
    // download cancelled as they happen, not at the next call.
    thread.scheduleWithFixedDelay(
        () -> {
          BoundedConnection c = connection.get();
          if (c != null && !stopped.getAsBoolean()) {
            try {
              // What the events' handlers send (a popup's close) is bounded too.
              c.deadline(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PUMP_BOUND_MS));
              c.pump();
              idle.accept(c);
            } catch (RuntimeException e) {
              // the driver went away; the next call says so
            }
          }
        },
        IDLE_PUMP_MS,
        IDLE_PUMP_MS,
        TimeUnit.MILLISECONDS);
  }

  /** Runs {@code work} on the thread, unbounded (the lane's start). */
  Future<?> submit(Callable<?> work) {
    return thread.submit(work);
  }

  /** Whether no call waits or runs, and none has for {@code ms}. */
  boolean idleFor(long ms) {
    return calls.get() == 0 && System.nanoTime() - lastCall >= TimeUnit.MILLISECONDS.toNanos(ms);
  }

  /** See {@link Lane#call(Callable, long)}: bounded from the work's start. */
  <T> T call(Callable<T> work, LongFunction<CallDeadline> deadlineFrom, long unansweredMs) {
    AtomicLong started = new AtomicLong();
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
            kill.run();
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

  /** See {@link Lane#later}. */
  java.util.concurrent.ScheduledFuture<?> later(long delayMs, Runnable task, long boundMs) {
    return thread.schedule(
        () -> {
          BoundedConnection c = connection.get();
          if (c == null || stopped.getAsBoolean()) {
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

  /** The deadline of the work now running. On the thread. */
  CallDeadline running() {
    return running;
  }

  /** See {@link Lane#busyWith()}. */
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

  /** See {@link Lane#briefly}. On the thread. */
  <T> T briefly(long ms, Supplier<T> work) {
    BoundedConnection c = connection.get();
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

  /** On the thread: runs work with its deadline set on every call it makes. */
  private <T> T bounded(
      Callable<T> work, LongFunction<CallDeadline> deadlineFrom, AtomicLong started)
      throws Exception {
    long now = System.nanoTime();
    started.set(now);
    CallDeadline deadline = deadlineFrom.apply(now);
    BoundedConnection c = connection.get();
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

  boolean isShutdown() {
    return thread.isShutdown();
  }

  /**
   * Lets the thread finish what is queued and end; whether it ended within {@code seconds} (an
   * interrupted wait counts as ended, with the interrupt kept).
   */
  boolean shutdown(long seconds) {
    thread.shutdown();
    try {
      return thread.awaitTermination(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }
}
