package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;

/**
 * Things an action started that arrive as Playwright events (the windows it opened, the downloads
 * its links started): counted as they come, so that the action can wait for as many as the page's
 * guards counted. Events arrive only while a call runs, so the wait is made of short Playwright
 * calls. On the lane's thread.
 */
final class Arrivals {
  private int count;
  private int before;
  private long last;

  /** One arrived. */
  void arrived() {
    count++;
    last = System.nanoTime();
  }

  /** An action begins: what arrives from now on is its. */
  void mark() {
    before = count;
  }

  /**
   * Waits on {@code page} until {@code expected} have arrived since the {@link #mark}, at most
   * {@code maxMs} and not past {@code until} ({@link System#nanoTime()}), and no more than {@code
   * quietMs} after the last one came (a count too high does not hold the action up for long).
   */
  void await(Page page, int expected, long maxMs, long until, long quietMs) {
    long deadline = Math.min(System.nanoTime() + maxMs * 1_000_000L, until);
    while (count - before < expected
        && System.nanoTime() < deadline
        && !(count > before && System.nanoTime() - last > quietMs * 1_000_000L)) {
      page.waitForTimeout(25);
    }
  }
}
