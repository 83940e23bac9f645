package dev.periscope.browser.playwright;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.TimeoutError;
import com.microsoft.playwright.options.AriaRole;
import com.microsoft.playwright.options.WaitForSelectorState;
import com.microsoft.playwright.options.WaitUntilState;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Waits for what an agent can name without a ref: text that appears or goes, a URL that matches a
 * glob, an element of a role and name that appears or goes, or a plain delay. Each is bounded by
 * the wait's own timeout, looks at the tab's main frame, and when it times out says what it saw
 * last.
 */
final class PageWaits {
  private PageWaits() {}

  /** How often a text wait looks again. */
  private static final double POLL_MS = 100;

  /** How many characters of a name a timed-out wait quotes. */
  private static final int QUOTE_CHARS = 60;

  /**
   * Whether the page shows the text (any case, any run of white space): in its rendered text, or in
   * a visible element's name given by aria-label, alt, title or a button's value.
   */
  private static final String SHOWS_TEXT = PageScripts.script("shows-text");

  /**
   * The element around the first text node that still holds the text, as "tag: its text": one walk
   * over the text nodes, bounded, however large the page.
   */
  private static final String STILL_SHOWN = PageScripts.script("still-shown");

  static void run(Page page, BrowserAction.Wait action, double timeoutMs) {
    try {
      switch (action.until()) {
        case TEXT_VISIBLE, TEXT_HIDDEN -> text(page, action, timeoutMs);
        case URL ->
            page.waitForURL(
                action.urlGlob()::matches,
                new Page.WaitForURLOptions()
                    .setTimeout(timeoutMs)
                    .setWaitUntil(WaitUntilState.COMMIT));
        case ELEMENT_VISIBLE, ELEMENT_HIDDEN ->
            visibleByRole(page, action)
                .waitFor(
                    new Locator.WaitForOptions()
                        .setState(
                            action.until() == BrowserAction.Wait.Until.ELEMENT_VISIBLE
                                ? WaitForSelectorState.ATTACHED
                                : WaitForSelectorState.DETACHED)
                        .setTimeout(timeoutMs));
        case DELAY -> page.waitForTimeout(timeoutMs);
        default -> throw new IllegalArgumentException("not a wait without a ref: " + action);
      }
    } catch (TimeoutError timedOut) {
      throw new BrowserException(
          ErrorCode.BROWSER_ACTION_FAILED,
          "the wait for "
              + action.until().id()
              + " timed out after "
              + Math.round(timeoutMs)
              + " ms: "
              + sawLast(page, action));
    }
  }

  private static void text(Page page, BrowserAction.Wait action, double timeoutMs) {
    page.waitForFunction(
        SHOWS_TEXT,
        Map.of(
            "text",
            action.text(),
            "shown",
            action.until() == BrowserAction.Wait.Until.TEXT_VISIBLE),
        new Page.WaitForFunctionOptions().setTimeout(timeoutMs).setPollingInterval(POLL_MS));
  }

  /** The first visible element of the wait's role whose name holds its name (any case). */
  private static Locator visibleByRole(Page page, BrowserAction.Wait action) {
    return byRole(page, action).filter(new Locator.FilterOptions().setVisible(true)).first();
  }

  private static Locator byRole(Page page, BrowserAction.Wait action) {
    Page.GetByRoleOptions options = new Page.GetByRoleOptions();
    if (action.name() != null) {
      options.setName(action.name());
    }
    return page.getByRole(roleOf(action), options);
  }

  private static AriaRole roleOf(BrowserAction.Wait action) {
    return AriaRole.valueOf(action.role().toUpperCase(Locale.ROOT));
  }

  /** The element waited for, in words: its role, and its name when it has one. */
  private static String described(BrowserAction.Wait action) {
    return action.role() + (action.name() == null ? "" : " named like \"" + action.name() + "\"");
  }

  /** What the page showed when the wait gave up, in a line. */
  private static String sawLast(Page page, BrowserAction.Wait action) {
    try {
      return switch (action.until()) {
        case TEXT_VISIBLE -> "the page never showed it (its URL " + page.url() + ")";
        case TEXT_HIDDEN ->
            "it is still shown, in "
                + page.evaluate(STILL_SHOWN, Map.of("text", action.text(), "most", QUOTE_CHARS));
        case URL -> "the URL is still " + page.url();
        case ELEMENT_VISIBLE -> {
          List<String> others = namesOf(page, action);
          yield "no visible "
              + described(action)
              + " appeared"
              + (others.isEmpty()
                  ? " (there is no visible " + action.role() + ")"
                  : "; the visible " + action.role() + "s are named " + String.join(", ", others));
        }
        case ELEMENT_HIDDEN -> "a " + described(action) + " is still visible";
        default -> "";
      };
    } catch (RuntimeException gone) {
      return "the page could not be read again";
    }
  }

  /** quote-names.js: the first few elements' names as a failure quotes them. */
  private static final String QUOTE_NAMES = PageScripts.script("quote-names");

  /** The names of the first few visible elements of the wait's role. */
  @SuppressWarnings("unchecked")
  private static List<String> namesOf(Page page, BrowserAction.Wait action) {
    Locator all =
        page.getByRole(roleOf(action)).filter(new Locator.FilterOptions().setVisible(true));
    return (List<String>) all.evaluateAll(QUOTE_NAMES, QUOTE_CHARS);
  }
}
