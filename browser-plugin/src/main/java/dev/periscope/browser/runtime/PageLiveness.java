package dev.periscope.browser.runtime;

import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.api.browser.spi.CallDeadline;
import dev.periscope.api.browser.spi.EnvironmentFault;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Whether an environment's page still answers: when it last did, and the liveness check ({@link
 * BrowserEnvironment#probe()}) that must answer within the liveness timeout, or the environment is
 * faulted as unresponsive. The caller holds the environment's queue for a check.
 */
final class PageLiveness {
  private final BrowserEnvironment delegate;
  private final Watchdog watchdog;
  private final RuntimeSettings.Timeouts timeouts;
  private final Consumer<EnvironmentFault> fault;
  private final BooleanSupplier aborted;

  /** When the page last answered a call or a check ({@link System#nanoTime()}). */
  private volatile long lastAnswer = System.nanoTime();

  PageLiveness(
      BrowserEnvironment delegate,
      Watchdog watchdog,
      RuntimeSettings.Timeouts timeouts,
      Consumer<EnvironmentFault> fault,
      BooleanSupplier aborted) {
    this.delegate = delegate;
    this.watchdog = watchdog;
    this.timeouts = timeouts;
    this.fault = fault;
    this.aborted = aborted;
  }

  /** The page answered just now. */
  void answered() {
    lastAnswer = System.nanoTime();
  }

  /** Whether the page has not answered for longer than {@code ms}. */
  boolean silentFor(long ms) {
    return System.nanoTime() - lastAnswer > TimeUnit.MILLISECONDS.toNanos(ms);
  }

  /**
   * A liveness check: the page must answer within the liveness timeout, or the environment is
   * faulted as unresponsive. The check is the runtime's own: it stops it at the timeout itself, not
   * at the margin's end. Its deadline carries the margin all the same, which the layers below read:
   * the provider ends its own wait past the timeout ({@link CallDeadline#answerBy()}; a check that
   * fails once the timeout has passed is a missed answer too), and a driver is given up only past
   * {@link CallDeadline#abandon()}, well after the fault closed the page (a deadline without a
   * margin would give the driver up as the check's call ends, and every session on it).
   */
  void check() {
    if (aborted.getAsBoolean()) {
      return;
    }
    CallDeadline deadline = CallDeadline.startingNow(timeouts.livenessMs(), timeouts.marginMs());
    Runnable unresponsive =
        () ->
            fault.accept(
                new EnvironmentFault(
                    EnvironmentFault.Cause.UNRESPONSIVE,
                    "the page did not answer a liveness check within "
                        + timeouts.livenessMs()
                        + " ms"));
    Watchdog.Timer stop = watchdog.after(timeouts.livenessMs(), unresponsive);
    try {
      delegate.within(
          deadline,
          () -> {
            delegate.probe();
            return null;
          });
      answered();
    } catch (RuntimeException failed) {
      // A quick failure is not a missed answer: a page that is navigating, or one that died, which
      // its provider reports.
      if (CallDeadline.passed(deadline.timeoutEnds())) {
        unresponsive.run();
      }
    } finally {
      stop.close();
    }
  }
}
