package dev.periscope.api.browser.spi;

import java.util.concurrent.TimeUnit;

/**
 * The one deadline of a call the runtime makes on an environment, made by the runtime as the step
 * begins and handed down with it ({@link BrowserEnvironment#within}): the step's own timeout and
 * the runtime's margin after it. Every bound below the runtime is read from here, never computed
 * again. Its instants are {@link System#nanoTime()} values:
 *
 * <ul>
 *   <li>{@link #waitsEnd()}: waits inside the call (for a navigation's headers, the windows and
 *       downloads an action started, a page's reaction) end a second before the timeout, leaving
 *       the call time to answer;
 *   <li>{@link #answerBy()}: the provider's own calls into the browser end half the margin (at most
 *       a second) past the timeout, so a page that does not answer fails the call, not the browser;
 *   <li>{@link #ends()}: the timeout and the whole margin: the runtime stops a step still running,
 *       closing its environment;
 *   <li>{@link #abandon()}: the margin twice more: a driver whose call has not answered even then
 *       (the runtime's stop could not reach it) is given up, with every environment on it.
 * </ul>
 *
 * Since host API 2.10.0.
 *
 * @param startNanos when the step began ({@link System#nanoTime()})
 * @param timeoutMs the step's own timeout
 * @param marginMs the runtime's margin after it
 */
public record CallDeadline(long startNanos, long timeoutMs, long marginMs) {
  /** The most {@link #answerBy()} adds to the timeout. */
  private static final long MOST_ANSWER_MARGIN_MS = 1_000;

  /** How long before the timeout the call's waits end. */
  private static final long WAITS_BEFORE_TIMEOUT_MS = 1_000;

  public CallDeadline {
    if (timeoutMs < 0 || marginMs < 0) {
      throw new IllegalArgumentException(
          "a deadline's timeout and margin are not negative: " + timeoutMs + ", " + marginMs);
    }
  }

  /** A deadline beginning now. */
  public static CallDeadline startingNow(long timeoutMs, long marginMs) {
    return new CallDeadline(System.nanoTime(), timeoutMs, marginMs);
  }

  /** When the step's own timeout ends. */
  public long timeoutEnds() {
    return at(timeoutMs);
  }

  /** When the waits inside the call end: a second before the timeout, never before the start. */
  public long waitsEnd() {
    return at(Math.max(0, timeoutMs - WAITS_BEFORE_TIMEOUT_MS));
  }

  /** When the provider's own calls into the browser end. */
  public long answerBy() {
    return at(timeoutMs + answerMarginMs());
  }

  /** What {@link #answerBy()} adds to the timeout: half the margin, at most a second. */
  public long answerMarginMs() {
    return Math.min(marginMs / 2, MOST_ANSWER_MARGIN_MS);
  }

  /** When the runtime stops a step still running. */
  public long ends() {
    return at(timeoutMs + marginMs);
  }

  /** When a driver that has not answered the call is given up. */
  public long abandon() {
    return at(abandonAfterMs());
  }

  /** The span from the start to {@link #abandon()}, in ms. */
  public long abandonAfterMs() {
    return timeoutMs + 3 * marginMs;
  }

  /** What is left until {@code instant} ({@link System#nanoTime()}), in ms: at least 1. */
  public static long msLeft(long instant) {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(instant - System.nanoTime()));
  }

  /** Whether {@code instant} has passed. */
  public static boolean passed(long instant) {
    return System.nanoTime() - instant >= 0;
  }

  private long at(long ms) {
    return startNanos + TimeUnit.MILLISECONDS.toNanos(ms);
  }
}
