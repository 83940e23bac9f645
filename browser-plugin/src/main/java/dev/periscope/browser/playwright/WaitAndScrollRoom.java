package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.ElementState;
import com.microsoft.playwright.options.LoadState;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.spi.ProviderElement;

/**
 * Scrolling the current tab and waiting on it (for its load, the network to be idle, a text, a URL,
 * an element's state or a delay), each as an action that passes dialogs and new windows but not the
 * guards ({@link PlaywrightEnvironment#act}).
 */
final class WaitAndScrollRoom {
  private final PlaywrightEnvironment env;

  WaitAndScrollRoom(PlaywrightEnvironment env) {
    this.env = env;
  }

  void scroll(BrowserAction.Scroll action, ProviderElement element) {
    BrowserAction.Scroll.To to = action.to();
    double pages = action.pages();
    env.act(
        "scrolling",
        () -> {
          switch (to) {
            case UP, DOWN ->
                env.tab()
                    .page
                    .evaluate(
                        "pages => window.scrollBy(0, pages * window.innerHeight)",
                        to == BrowserAction.Scroll.To.UP ? -pages : pages);
            case TOP -> env.tab().page.evaluate("() => window.scrollTo(0, 0)");
            case BOTTOM ->
                env.tab()
                    .page
                    .evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)");
            case ELEMENT -> {
              ElementHandle target = env.resolve(element);
              try {
                target.scrollIntoViewIfNeeded();
              } finally {
                target.dispose();
              }
            }
          }
          // Scroll events run on the next frame: let the page's handlers (lazy loading, sticky
          // headers) see it first.
          env.nextFrame();
          return null;
        });
  }

  void waitFor(BrowserAction.Wait action, ProviderElement element) {
    BrowserAction.Wait.Until until = action.until();
    long timeoutMs = action.timeoutMs();
    double timeout = Math.min(timeoutMs, env.policy().timeouts().navigationMs());
    env.act(
        "waiting for " + until.id(),
        () -> {
          switch (until) {
            case LOAD ->
                env.tab()
                    .page
                    .waitForLoadState(
                        LoadState.LOAD, new Page.WaitForLoadStateOptions().setTimeout(timeout));
            case NETWORK_IDLE ->
                env.tab()
                    .page
                    .waitForLoadState(
                        LoadState.NETWORKIDLE,
                        new Page.WaitForLoadStateOptions().setTimeout(timeout));
            case TEXT_VISIBLE, TEXT_HIDDEN, URL, DELAY ->
                PageWaits.run(env.tab().page, action, timeout);
            case ELEMENT_VISIBLE, ELEMENT_HIDDEN -> {
              if (action.byRole()) {
                PageWaits.run(env.tab().page, action, timeout);
                return null;
              }
              ElementHandle target;
              try {
                target = env.resolve(element);
              } catch (BrowserException gone) {
                if (until == BrowserAction.Wait.Until.ELEMENT_HIDDEN) {
                  return null;
                }
                throw gone;
              }
              try {
                target.waitForElementState(
                    until == BrowserAction.Wait.Until.ELEMENT_VISIBLE
                        ? ElementState.VISIBLE
                        : ElementState.HIDDEN,
                    new ElementHandle.WaitForElementStateOptions().setTimeout(timeout));
              } finally {
                target.dispose();
              }
            }
          }
          return null;
        });
  }
}
