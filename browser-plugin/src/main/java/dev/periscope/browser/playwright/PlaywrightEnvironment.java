package dev.periscope.browser.playwright;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.JSHandle;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.ElementState;
import com.microsoft.playwright.options.LoadState;
import dev.periscope.api.browser.BrowserEnvironment;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.ProviderElement;
import dev.periscope.api.browser.ProviderObservation;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.browser.BrowserSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One BrowserContext with its primary page. Every call runs on the driver's thread. */
final class PlaywrightEnvironment implements BrowserEnvironment {
  private static final String OBSERVE_SCRIPT = resource("observe.js");
  private static final String EXTRACT_SCRIPT = resource("extract.js");
  /** The elements an observation considers, for observe.js and extract.js alike. */
  static final String CANDIDATES = "a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],"
      + "[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=switch],[role=option],"
      + "[contenteditable=\"\"],[contenteditable=true]";

  private final PlaywrightDriver driver;
  private final BrowserContext context;
  private final Page page;
  private final Runnable onClosed;
  private final long closeTimeoutMs;
  private final long navigationTimeoutMs;
  private final BrowserSettings budgets;
  /** The page-global name of this environment's registry: random, so page scripts cannot rely on it. */
  private final String registryKey;
  private static final String GUARDS_SCRIPT = resource("guards.js");
  private final java.util.concurrent.atomic.AtomicInteger downloads = new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicInteger extraPages = new java.util.concurrent.atomic.AtomicInteger();

  private final java.util.concurrent.atomic.AtomicInteger pendingNavigations =
      new java.util.concurrent.atomic.AtomicInteger();

  private void settleNavigation(com.microsoft.playwright.Request request) {
    if (request.isNavigationRequest() && request.frame() == page.mainFrame()) {
      pendingNavigations.updateAndGet(n -> Math.max(0, n - 1));
    }
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

  /** The observation script, for measuring what crosses from Chromium. */
  static String observeScript() {
    return OBSERVE_SCRIPT;
  }

  static String guardsScript(String registryKey) {
    return GUARDS_SCRIPT.replace("__KEY__", registryKey);
  }
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

  PlaywrightEnvironment(PlaywrightDriver driver, BrowserContext context, Page page, String registryKey,
      BrowserSettings budgets, Runnable onClosed) {
    this.registryKey = registryKey;
    // Events reach these handlers only while a call runs on the driver's thread; they hold nothing up in between.
    page.onRequest(request -> {
      if (request.isNavigationRequest() && request.frame() == page.mainFrame()) {
        pendingNavigations.incrementAndGet();
      }
    });
    page.onResponse(response -> {
      settleNavigation(response.request());
      String disposition = response.headers().getOrDefault("content-disposition", "");
      if (response.request().isNavigationRequest() && disposition.toLowerCase().startsWith("attachment")) {
        // A navigation that answers with a file to save: the browser turns it into a download.
        downloads.incrementAndGet();
      }
    });
    page.onRequestFailed(this::settleNavigation);
    page.onDownload(download -> {
      downloads.incrementAndGet();
      download.cancel();
    });
    context.onPage(other -> {
      if (other != page) {
        extraPages.incrementAndGet();
        other.close();
      }
    });
    this.budgets = budgets;
    this.navigationTimeoutMs = budgets.navigationTimeoutMs();
    this.closeTimeoutMs = budgets.cleanupTimeoutMs();
    this.driver = driver;
    this.context = context;
    this.page = page;
    this.onClosed = onClosed;
  }

  /**
   * Runs an action on the driver's thread and then reports, as {@code BROWSER_POLICY_DENIED}, whatever the page
   * guards blocked while it ran: a new window or page, a download, a file picker, an external program.
   */
  private <T> T guarded(String what, java.util.concurrent.Callable<T> work) {
    return call(what, () -> {
      int downloadsBefore = downloads.get();
      int pagesBefore = extraPages.get();
      T result = work.call();
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
            + String.join("; ", new java.util.LinkedHashSet<>(blocked)), page.url(), false, null);
      }
      return result;
    });
  }

  /** Refuses before dispatch an element whose activation would leave the page or hand something to the system. */
  private static void refuseBeforeDispatch(ProviderElement element) {
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

  /**
   * Runs work on the driver's thread. A Playwright failure becomes {@code BROWSER_ACTION_FAILED} with a one-line
   * reason: the driver's JavaScript stack and its file paths never reach the model.
   */
  private <T> T call(String what, java.util.concurrent.Callable<T> work) {
    if (driver.killed()) {
      throw new BrowserException(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "this browser environment was aborted");
    }
    try {
      return driver.call(work);
    } catch (PlaywrightException e) {
      throw new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, what + " failed: " + ChromiumLog.summary(e.getMessage()),
          null, false, e);
    }
  }

  @Override
  public ProviderObservation observe(ObservationBudget budget) {
    return call("observing the page", () -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> raw = (Map<String, Object>) page.evaluate(OBSERVE_SCRIPT,
          Map.of("maxTextChars", budget.maxTextChars(), "maxElements", budget.maxElements(),
              "tiers", List.copyOf(budget.tiers()), "key", registryKey, "selector", CANDIDATES));
      List<ProviderElement> elements = new ArrayList<>();
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> list = (List<Map<String, Object>>) raw.get("elements");
      for (Map<String, Object> e : list) {
        elements.add(element(e));
      }
      return new ProviderObservation(str(raw.get("url")), str(raw.get("title")), str(raw.get("text")),
          ((Number) raw.get("totalTextChars")).intValue(), elements, ((Number) raw.get("totalElements")).intValue(),
          Boolean.TRUE.equals(raw.get("elementsTruncated")));
    });
  }

  @Override
  public void navigate(String url) {
    guarded("opening " + url, () -> page.navigate(url));
  }

  @Override
  public void click(ProviderElement element) {
    refuseBeforeDispatch(element);
    guarded("the click", () -> {
      ElementHandle target = resolve(element);
      try {
        target.click();
      } finally {
        target.dispose();
      }
      try {
        page.waitForLoadState(LoadState.LOAD);
      } catch (PlaywrightException e) {
        // The click happened: a page still loading is for the after-observation to show, not a failed click
        // that the model might repeat.
      }
      return null;
    });
  }

  @Override
  public void fill(ProviderElement element, String value) {
    guarded("filling the field", () -> {
      ElementHandle target = resolve(element);
      try {
        target.fill(value);
      } finally {
        target.dispose();
      }
      return null;
    });
  }

  @Override
  public void press(ProviderElement element, String key) {
    String playwrightKey = key.equals("Space") ? " " : key;
    if (element != null && "file".equals(element.inputType())) {
      refuseBeforeDispatch(element);
    }
    guarded("pressing " + key, () -> {
      if (element == null) {
        page.keyboard().press(playwrightKey);
      } else {
        ElementHandle target = resolve(element);
        try {
          target.press(playwrightKey);
        } finally {
          target.dispose();
        }
      }
      settle();
      return null;
    });
  }

  @Override
  public void select(ProviderElement element, List<String> values) {
    guarded("choosing an option", () -> {
      ElementHandle target = resolve(element);
      try {
        @SuppressWarnings("unchecked")
        Map<String, Object> fit = (Map<String, Object>) target.evaluate("""
            (el, values) => ({
              isSelect: el.tagName === 'SELECT', multiple: !!el.multiple,
              unmatched: values.filter(v => !Array.from(el.options || []).some(
                  o => o.value === v || o.label === v || o.text.trim() === v))
            })""", values);
        if (!Boolean.TRUE.equals(fit.get("isSelect"))) {
          throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "element \"" + element.name()
              + "\" is not a select");
        }
        if (values.size() > 1 && !Boolean.TRUE.equals(fit.get("multiple"))) {
          throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT,
              "/values: \"" + element.name() + "\" takes one option; more than one needs a multi-select");
        }
        List<?> unmatched = (List<?>) fit.get("unmatched");
        if (!unmatched.isEmpty()) {
          throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT,
              "/values: no option of \"" + element.name() + "\" has the value or label " + unmatched);
        }
        target.selectOption(values.toArray(String[]::new));
      } finally {
        target.dispose();
      }
      return null;
    });
  }

  @Override
  public void check(ProviderElement element, boolean checked) {
    guarded(checked ? "checking" : "unchecking", () -> {
      ElementHandle target = resolve(element);
      try {
        target.setChecked(checked);
      } finally {
        target.dispose();
      }
      return null;
    });
  }

  @Override
  public void scroll(String to, double pages, ProviderElement element) {
    call("scrolling", () -> {
      switch (to) {
        case "up", "down" -> page.evaluate("pages => window.scrollBy(0, pages * window.innerHeight)",
            to.equals("up") ? -pages : pages);
        case "top" -> page.evaluate("() => window.scrollTo(0, 0)");
        case "bottom" -> page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)");
        default -> {
          ElementHandle target = resolve(element);
          try {
            target.scrollIntoViewIfNeeded();
          } finally {
            target.dispose();
          }
        }
      }
      // Scroll events run on the next frame: let the page's handlers (lazy loading, sticky headers) see it first.
      page.evaluate("() => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))");
      return null;
    });
  }

  @Override
  public void waitFor(String until, ProviderElement element, long timeoutMs) {
    double timeout = Math.min(timeoutMs, navigationTimeoutMs);
    call("waiting for " + until, () -> {
      switch (until) {
        case "load" -> page.waitForLoadState(LoadState.LOAD, new Page.WaitForLoadStateOptions().setTimeout(timeout));
        case "network-idle" -> page.waitForLoadState(LoadState.NETWORKIDLE,
            new Page.WaitForLoadStateOptions().setTimeout(timeout));
        default -> {
          ElementHandle target;
          try {
            target = resolve(element);
          } catch (BrowserException gone) {
            if (until.equals("element-hidden")) {
              return null;
            }
            throw gone;
          }
          try {
            target.waitForElementState(until.equals("element-visible") ? ElementState.VISIBLE : ElementState.HIDDEN,
                new ElementHandle.WaitForElementStateOptions().setTimeout(timeout));
          } finally {
            target.dispose();
          }
        }
      }
      return null;
    });
  }

  @Override
  public void history(String move) {
    guarded(move, () -> {
      if (move.equals("reload")) {
        if (page.url().equals("about:blank")) {
          throw new BrowserException(ErrorCode.BROWSER_POLICY_DENIED, "there is no page to reload", page.url(), false,
              null);
        }
        page.reload();
        return null;
      }
      String before = page.url();
      Object response = move.equals("back") ? page.goBack() : page.goForward();
      boolean moved = response != null || !page.url().equals(before);
      if (!moved) {
        throw new BrowserException(ErrorCode.BROWSER_POLICY_DENIED, "there is no history entry to go " + move + " to",
            page.url(), false, null);
      }
      return null;
    });
  }

  /** After a key press that may submit a form, let a started navigation load; a page still loading is not a failure. */
  private void settle() {
    try {
      page.waitForLoadState(LoadState.LOAD);
    } catch (PlaywrightException e) {
      // the after-observation shows what there is
    }
  }

  /** Finds the element again by its ordinal and checks it is still the one observed. On the driver's thread. */
  private ElementHandle resolve(ProviderElement element) {
    JSHandle handle = page.evaluateHandle(OBSERVE_SCRIPT,
        Map.of("resolve", element.target(), "fingerprint", element.fingerprint(), "key", registryKey,
            "selector", CANDIDATES));
    ElementHandle target = handle.asElement();
    if (target == null) {
      handle.dispose();
      throw new BrowserException(ErrorCode.BROWSER_STALE_REFERENCE,
          "the element \"" + element.name() + "\" changed or is gone since it was observed; observe the page again",
          page.url(), false, null);
    }
    return target;
  }

  /**
   * A PNG of the viewport or the full page. The device-pixel budget is checked before capture, the byte budget
   * after PNG encoding; either refusal is {@code BROWSER_POLICY_DENIED}.
   */
  @Override
  public Screenshot screenshot(boolean fullPage) {
    return call("the screenshot", () -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> size = (Map<String, Object>) page.evaluate("""
          full => ({ width: full ? Math.max(document.documentElement.scrollWidth, innerWidth) : innerWidth,
                     height: full ? Math.max(document.documentElement.scrollHeight, innerHeight) : innerHeight,
                     ratio: devicePixelRatio })""", fullPage);
      double ratio = ((Number) size.get("ratio")).doubleValue();
      long pixels = Math.round(((Number) size.get("width")).doubleValue() * ratio)
          * Math.round(((Number) size.get("height")).doubleValue() * ratio);
      if (pixels > budgets.maxScreenshotPixels()) {
        throw new BrowserException(ErrorCode.BROWSER_POLICY_DENIED, "the screenshot would be " + pixels
            + " device pixels, over the budget of " + budgets.maxScreenshotPixels()
            + "; take the viewport instead of the full page", page.url(), false, null);
      }
      byte[] png = page.screenshot(new Page.ScreenshotOptions().setFullPage(fullPage));
      if (png.length > budgets.maxScreenshotBytes()) {
        throw new BrowserException(ErrorCode.BROWSER_POLICY_DENIED, "the screenshot is " + png.length
            + " bytes as PNG, over the budget of " + budgets.maxScreenshotBytes(), page.url(), false, null);
      }
      ByteBuffer header = ByteBuffer.wrap(png, 16, 8);
      return new Screenshot(png, header.getInt(), header.getInt(), null, page.url(), page.title());
    });
  }

  @Override
  public Extraction extract(String kind, ProviderElement region, int limit, int maxFieldChars) {
    return call("extracting " + kind, () -> {
      Map<String, Object> arg = new java.util.HashMap<>(Map.of("kind", kind, "limit", limit, "maxChars", maxFieldChars,
          "key", registryKey, "selector", CANDIDATES));
      if (region != null) {
        arg.put("region", region.target());
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> raw = (Map<String, Object>) page.evaluate(EXTRACT_SCRIPT, arg);
      if (Boolean.TRUE.equals(raw.get("stale"))) {
        throw new BrowserException(ErrorCode.BROWSER_STALE_REFERENCE, "the region \"" + region.name()
            + "\" changed or is gone since it was observed; observe the page again", page.url(), false, null);
      }
      @SuppressWarnings("unchecked")
      List<Map<String, String>> rows = (List<Map<String, String>>) raw.get("rows");
      @SuppressWarnings("unchecked")
      List<String> columns = (List<String>) raw.get("columns");
      return new Extraction(kind, page.url(), null, columns, rows, ((Number) raw.get("total")).intValue());
    });
  }

  /** Kills this environment's driver: a running operation fails at once. Waits for nothing but the kill. */
  @Override
  public void abort() {
    driver.kill();
  }

  /** Closes the context and the driver (Chromium, Node.js, the thread), then removes the temp directory. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    RuntimeException failure = null;
    try {
      if (!driver.killed()) {
        driver.call(() -> {
          context.close();
          return null;
        }, closeTimeoutMs);
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      driver.close();
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = e;
      } else {
        failure.addSuppressed(e);
      }
    }
    try {
      onClosed.run();
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = e;
      } else {
        failure.addSuppressed(e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static ProviderElement element(Map<String, Object> e) {
    return new ProviderElement(str(e.get("target")), str(e.get("fingerprint")), str(e.get("kind")),
        str(e.get("role")), str(e.get("name")), Boolean.TRUE.equals(e.get("disabled")),
        e.get("inputType") == null ? null : str(e.get("inputType")), ((Number) e.get("tier")).intValue(),
        Boolean.TRUE.equals(e.get("pagination")), str(e.get("section")),
        e.get("groupKey") == null ? null : str(e.get("groupKey")),
        e.get("groupLabel") == null ? null : str(e.get("groupLabel")));
  }

  private static String str(Object o) {
    return o == null ? "" : o.toString();
  }

  private static String resource(String name) {
    try (InputStream in = PlaywrightEnvironment.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      // Leading comment lines would keep Playwright from seeing the text as a function.
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("(?m)\\A(\\s*//[^\\n]*\\n)+", "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
