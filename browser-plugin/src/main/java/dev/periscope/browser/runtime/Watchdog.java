package dev.periscope.browser.runtime;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The runtime's clock: deadlines that fire unless disarmed, and periodic checks. One timer thread
 * keeps time and runs nothing itself: what a deadline or a check does (aborting an environment, a
 * liveness check that waits for its own deadline) runs on a worker thread, so one slow abort never
 * delays another session's deadline.
 */
final class Watchdog implements AutoCloseable {
  private static final AtomicInteger THREADS = new AtomicInteger();

  /** A deadline or a periodic check; closing it disarms it, and never fails. */
  interface Timer extends AutoCloseable {
    @Override
    void close();
  }

  private final ScheduledThreadPoolExecutor timers =
      new ScheduledThreadPoolExecutor(
          1,
          r -> {
            Thread t = new Thread(r, "periscope-watchdog-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
  private final ExecutorService checks =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "periscope-liveness-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  Watchdog() {
    timers.setRemoveOnCancelPolicy(true);
  }

  /**
   * Runs {@code expired} on a worker thread after {@code delayMs}, unless the timer is closed
   * first.
   */
  Timer after(long delayMs, Runnable expired) {
    AtomicBoolean closed = new AtomicBoolean();
    try {
      ScheduledFuture<?> f =
          timers.schedule(
              () -> {
                try {
                  checks.execute(
                      () -> {
                        if (!closed.get()) {
                          expired.run();
                        }
                      });
                } catch (RejectedExecutionException stopped) {
                  // the runtime is closing
                }
              },
              delayMs,
              TimeUnit.MILLISECONDS);
      return () -> {
        closed.set(true);
        f.cancel(false);
      };
    } catch (RejectedExecutionException stopped) {
      return () -> {};
    }
  }

  /**
   * Runs {@code check} every {@code intervalMs} on a check thread, skipping a turn while the
   * previous run still goes on, until the timer is closed.
   */
  Timer every(long intervalMs, Runnable check) {
    AtomicBoolean running = new AtomicBoolean();
    AtomicBoolean closed = new AtomicBoolean();
    Runnable turn =
        () -> {
          if (closed.get() || !running.compareAndSet(false, true)) {
            return;
          }
          try {
            checks.execute(
                () -> {
                  try {
                    if (!closed.get()) {
                      check.run();
                    }
                  } finally {
                    running.set(false);
                  }
                });
          } catch (RejectedExecutionException stopped) {
            running.set(false);
          }
        };
    try {
      ScheduledFuture<?> f =
          timers.scheduleWithFixedDelay(turn, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
      return () -> {
        closed.set(true);
        f.cancel(false);
      };
    } catch (RejectedExecutionException stopped) {
      return () -> {};
    }
  }

  /**
   * Stops every timer and check; a check still running is interrupted, and its thread is waited
   * for, a little, so that a closed runtime leaves no thread behind (unless one of them closes it).
   */
  @Override
  public void close() {
    timers.shutdownNow();
    checks.shutdownNow();
    String current = Thread.currentThread().getName();
    if (current.startsWith("periscope-watchdog-") || current.startsWith("periscope-liveness-")) {
      return;
    }
    try {
      timers.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
      checks.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** How long a closing watchdog waits for each of its pools' threads to end. */
  private static final long CLOSE_WAIT_MS = 2_000;
}
