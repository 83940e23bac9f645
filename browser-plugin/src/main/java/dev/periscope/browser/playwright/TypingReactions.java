package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Lets a page react to typing before the observation after it: a suggestion list that a key opens
 * (at once, after the page's own pause of a few hundred milliseconds, or after a request the key
 * started) shows in that observation, with its options as elements. The page is watched from just
 * before the keys until its document stops changing: at most {@value #MOST_MS} ms past the last
 * key, and within the call's deadline; a field that looks like it suggests (a combobox, a list, a
 * search field, an autocomplete widget) is given at least {@value #LEAST_MS} ms, the pause pages
 * commonly take before they search; any other field is waited for only while it is still changing
 * or a request its keys started has not answered. On the lane's thread.
 */
final class TypingReactions {
  private TypingReactions() {}

  /** The longest the observation waits past the last key. */
  static final long MOST_MS = 1_000;

  /** How long a field that suggests is given before nothing changing counts as no reaction. */
  static final long LEAST_MS = 350;

  /** How long the document stays unchanged before the reaction counts as over. */
  static final long QUIET_MS = 120;

  /**
   * How long any other field is given to start reacting: nothing. What its keys changed at once is
   * there already; a change under way (the document changing as the keys end, a request they
   * started) is waited for.
   */
  static final long GLANCE_MS = 0;

  /** Watches the document's changes from now on, in the environment's registry. */
  private static final String WATCH = PageScripts.script("watch-typing");

  /**
   * Waits, from the last key, until the document has been quiet for {@code quiet} ms after a
   * change, or {@code least} ms without any (longer for a field that suggests), at most {@code
   * most} ms. Returns whether the document changed.
   */
  private static final String SETTLE = PageScripts.script("typing-settled");

  /** Starts watching, before the keys. */
  static void watch(Page page, String registryKey) {
    try {
      page.evaluate(WATCH, registryKey);
    } catch (PlaywrightException gone) {
      // a page on its way elsewhere: the observation after shows what comes
    }
  }

  /**
   * After the last key: waits for the page's reaction, and for the data requests it started ({@code
   * underWay} counts them) within the same bound, never past {@code deadlineNanos}.
   */
  static void settle(Page page, String registryKey, IntSupplier underWay, long deadlineNanos) {
    long start = System.nanoTime();
    long most = Math.min(MOST_MS, Math.max(0, (deadlineNanos - start) / 1_000_000));
    if (most <= 0) {
      return;
    }
    try {
      page.evaluate(
          SETTLE,
          Map.of(
              "key", registryKey,
              "least", (int) GLANCE_MS,
              "suggestLeast", (int) LEAST_MS,
              "quiet", (int) QUIET_MS,
              "most", (int) most));
      // A request the keys started (a search as you type) and what the page draws from its answer.
      answered(page, registryKey, underWay, start, most);
    } catch (PlaywrightException gone) {
      // the page navigated (Enter submitted a form): the observation after waits for the document
    }
  }

  /**
   * After a click: when it started requests for data ({@code underWay} counts them; a cart that a
   * fetch updates), waits for their answers and what the page draws from them, at most {@value
   * #MOST_MS} ms and never past {@code deadlineNanos}. A click that started none waits for nothing.
   */
  static void afterClick(Page page, String registryKey, IntSupplier underWay, long deadlineNanos) {
    if (underWay.getAsInt() == 0) {
      return;
    }
    long start = System.nanoTime();
    long most = Math.min(MOST_MS, Math.max(0, (deadlineNanos - start) / 1_000_000));
    try {
      answered(page, registryKey, underWay, start, most);
    } catch (PlaywrightException gone) {
      // the page navigated: the observation after waits for the document
    }
  }

  /**
   * Waits until the requests {@code underWay} counts have answered, then for the document to be
   * quiet after what they changed; all within {@code most} ms of {@code start}.
   */
  private static void answered(
      Page page, String registryKey, IntSupplier underWay, long start, long most) {
    boolean waited = false;
    while (underWay.getAsInt() > 0 && elapsedMs(start) < most) {
      page.waitForTimeout(20);
      waited = true;
    }
    long left = most - elapsedMs(start);
    if (waited && left > 0) {
      watch(page, registryKey);
      page.evaluate(
          SETTLE,
          Map.of(
              "key", registryKey,
              "least", (int) Math.min(QUIET_MS, left),
              "suggestLeast", 0,
              "quiet", (int) QUIET_MS,
              "most", (int) left));
    }
  }

  private static long elapsedMs(long since) {
    return (System.nanoTime() - since) / 1_000_000;
  }
}
