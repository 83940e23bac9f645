package dev.periscope.browser.playwright;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.JSHandle;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.LoadState;
import dev.periscope.api.browser.BrowserEnvironment;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.ProviderElement;
import dev.periscope.api.browser.ProviderObservation;
import dev.periscope.api.browser.Screenshot;
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

  private final PlaywrightDriver driver;
  private final BrowserContext context;
  private final Page page;
  private boolean closed;

  PlaywrightEnvironment(PlaywrightDriver driver, BrowserContext context, Page page) {
    this.driver = driver;
    this.context = context;
    this.page = page;
  }

  /**
   * Runs work on the driver's thread. A Playwright failure becomes {@code BROWSER_ACTION_FAILED} with a one-line
   * reason: the driver's JavaScript stack and its file paths never reach the model.
   */
  private <T> T call(String what, java.util.concurrent.Callable<T> work) {
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
          Map.of("maxTextChars", budget.maxTextChars(), "maxElements", budget.maxElements()));
      List<ProviderElement> elements = new ArrayList<>();
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> list = (List<Map<String, Object>>) raw.get("elements");
      for (Map<String, Object> e : list) {
        elements.add(element(e));
      }
      return new ProviderObservation(str(raw.get("url")), str(raw.get("title")), str(raw.get("text")),
          ((Number) raw.get("totalTextChars")).intValue(), elements, ((Number) raw.get("totalElements")).intValue());
    });
  }

  @Override
  public void navigate(String url) {
    call("opening " + url, () -> page.navigate(url));
  }

  @Override
  public void click(ProviderElement element) {
    call("the click", () -> {
      JSHandle handle = page.evaluateHandle(OBSERVE_SCRIPT,
          Map.of("resolve", element.target(), "fingerprint", element.fingerprint()));
      ElementHandle target = handle.asElement();
      if (target == null) {
        handle.dispose();
        throw new BrowserException(ErrorCode.BROWSER_STALE_REFERENCE,
            "the element \"" + element.name() + "\" changed or is gone since it was observed; observe the page again",
            page.url(), false, null);
      }
      try {
        target.click();
        page.waitForLoadState(LoadState.LOAD);
      } finally {
        target.dispose();
      }
      return null;
    });
  }

  @Override
  public Screenshot screenshot(boolean fullPage) {
    return call("the screenshot", () -> {
      byte[] png = page.screenshot(new Page.ScreenshotOptions().setFullPage(fullPage));
      ByteBuffer header = ByteBuffer.wrap(png, 16, 8);
      return new Screenshot(png, header.getInt(), header.getInt(), null, page.url(), page.title());
    });
  }

  @Override
  public void close() {
    driver.call(() -> {
      if (!closed) {
        closed = true;
        context.close();
      }
      return null;
    });
  }

  private static ProviderElement element(Map<String, Object> e) {
    return new ProviderElement(str(e.get("target")), str(e.get("fingerprint")), str(e.get("kind")),
        str(e.get("role")), str(e.get("name")), Boolean.TRUE.equals(e.get("disabled")),
        e.get("inputType") == null ? null : str(e.get("inputType")), ((Number) e.get("tier")).intValue());
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
