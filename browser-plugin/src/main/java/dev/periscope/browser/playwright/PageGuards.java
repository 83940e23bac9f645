package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.Request;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.ProviderElement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What keeps the agent's page the only page and keeps it from handing anything to the system: the in-page
 * guards (guards.js) record what they block; downloads are cancelled as they start, and the environment closes
 * any other page as it appears. After
 * each action, whatever was blocked while it ran fails it with {@code BROWSER_POLICY_DENIED}.
 *
 * <p>Playwright delivers these events only while a call runs on the driver's thread, so the handlers only count
 * and cancel; none of them holds the page until the next call.
 */
final class PageGuards {
  private final Page page;
  private final String registryKey;
  private final long navigationTimeoutMs;
  private final AtomicInteger downloads = new AtomicInteger();
  private final AtomicInteger extraPages;
  private final AtomicInteger pendingNavigations = new AtomicInteger();

  /** Guards one primary page; {@code extraPages} counts the other pages the context closed. */
  PageGuards(Page page, String registryKey, long navigationTimeoutMs, AtomicInteger extraPages) {
    this.page = page;
    this.extraPages = extraPages;
    this.registryKey = registryKey;
    this.navigationTimeoutMs = navigationTimeoutMs;
    page.onRequest(request -> {
      if (isMainNavigation(request)) {
        pendingNavigations.incrementAndGet();
      }
    });
    page.onResponse(response -> {
      settle(response.request());
      String disposition = response.headers().getOrDefault("content-disposition", "");
      if (response.request().isNavigationRequest() && disposition.toLowerCase().startsWith("attachment")) {
        // A navigation that answers with a file to save: the browser turns it into a download.
        downloads.incrementAndGet();
      }
    });
    page.onRequestFailed(this::settle);
    page.onDownload(download -> {
      downloads.incrementAndGet();
      download.cancel();
    });
  }

  /** Refuses before dispatch an element whose activation would leave the page or hand something to the system. */
  static void refuseBeforeDispatch(ProviderElement element) {
    String f = element.fingerprint();
    String reason = "file".equals(element.inputType()) ? "it is a file input, and uploads are not allowed"
        : f.contains("\"opensNewPage\":true") ? "it opens a new page, and this browser keeps one page"
        : f.contains("\"downloads\":true") ? "it downloads a file, and downloads are not allowed"
        : f.contains("\"externalProtocol\":true") ? "it hands a link or form to another program" : null;
    if (reason != null) {
      throw new BrowserException(ErrorCode.BROWSER_POLICY_DENIED,
          "element \"" + element.name() + "\" was not activated: " + reason);
    }
  }

  /** Runs an action (on the driver's thread) and fails it with what the guards blocked while it ran. */
  <T> T around(String what, Callable<T> action) throws Exception {
    int downloadsBefore = downloads.get();
    int pagesBefore = extraPages.get();
    T result = action.call();
    awaitNavigationHeaders();
    List<String> blocked = new ArrayList<>();
    try {
      @SuppressWarnings("unchecked")
      List<String> recorded = (List<String>) page.evaluate(
          "key => { const r = window[key]; if (!r) return []; const b = r.blocked.slice(); r.blocked.length = 0;"
              + " return b; }", registryKey);
      blocked.addAll(recorded);
    } catch (PlaywrightException e) {
      // The document went away under the action; what it recorded went with it.
    }
    if (downloads.get() > downloadsBefore) {
      blocked.add("the page started a download, which was cancelled");
    }
    if (extraPages.get() > pagesBefore) {
      blocked.add("the page opened another page, which was closed");
    }
    if (!blocked.isEmpty()) {
      throw new BrowserException(ErrorCode.BROWSER_POLICY_DENIED, what + " was stopped: "
          + String.join("; ", new LinkedHashSet<>(blocked)), page.url(), false, null);
    }
    return result;
  }

  /**
   * Lets a navigation the action started reach its response headers (or fail), within the navigation timeout,
   * so a download or a refusal it leads to is seen as this action's. Events arrive only while a call runs, so
   * this waits in short Playwright calls. A navigation still without headers after the timeout closes the page.
   */
  private void awaitNavigationHeaders() {
    long deadline = System.nanoTime() + navigationTimeoutMs * 1_000_000L;
    page.waitForTimeout(25);
    while (pendingNavigations.get() > 0) {
      if (System.nanoTime() > deadline) {
        page.close();
        throw new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, "the page sent no response headers within "
            + navigationTimeoutMs + " ms; the page was closed", null, false, null);
      }
      page.waitForTimeout(25);
    }
  }

  private boolean isMainNavigation(Request request) {
    return request.isNavigationRequest() && request.frame() == page.mainFrame();
  }

  private void settle(Request request) {
    if (isMainNavigation(request)) {
      pendingNavigations.updateAndGet(n -> Math.max(0, n - 1));
    }
  }
}
