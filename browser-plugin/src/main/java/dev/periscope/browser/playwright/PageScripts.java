package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.JSHandle;
import com.microsoft.playwright.Page;
import dev.periscope.api.browser.BrowserEnvironment.ObservationBudget;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.ProviderElement;
import dev.periscope.api.browser.ProviderObservation;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The scripts that run inside Chromium, and what crosses back: observe.js (rank, group, cut; or find the very node
 * a target names), extract.js (fixed traversals), guards.js (installed in every document). Call on the driver's
 * thread.
 */
final class PageScripts {
  private static final String OBSERVE = resource("observe.js");
  private static final String EXTRACT = resource("extract.js");
  private static final String GUARDS = resource("guards.js");
  /** The elements an observation considers, for observe.js and extract.js alike. */
  static final String CANDIDATES = "a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],"
      + "[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=switch],[role=option],"
      + "[contenteditable=\"\"],[contenteditable=true]";

  private PageScripts() {}

  /** The observation script, for measuring what crosses from Chromium. */
  static String observeScript() {
    return OBSERVE;
  }

  /** guards.js for one environment, its registry under {@code registryKey}. */
  static String guards(String registryKey) {
    return GUARDS.replace("__KEY__", registryKey);
  }

  static ProviderObservation observe(Page page, String registryKey, ObservationBudget budget) {
    @SuppressWarnings("unchecked")
    Map<String, Object> raw = (Map<String, Object>) page.evaluate(OBSERVE,
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
  }

  /** The very node the element's target names, still with its fingerprint, or {@code BROWSER_STALE_REFERENCE}. */
  static ElementHandle resolve(Page page, String registryKey, ProviderElement element) {
    JSHandle handle = page.evaluateHandle(OBSERVE, Map.of("resolve", element.target(), "fingerprint",
        element.fingerprint(), "key", registryKey, "selector", CANDIDATES));
    ElementHandle target = handle.asElement();
    if (target == null) {
      handle.dispose();
      throw new BrowserException(ErrorCode.BROWSER_STALE_REFERENCE,
          "the element \"" + element.name() + "\" changed or is gone since it was observed; observe the page again",
          page.url(), false, null);
    }
    return target;
  }

  static Extraction extract(Page page, String registryKey, String kind, ProviderElement region, int limit,
      int maxFieldChars) {
    Map<String, Object> arg = new HashMap<>(Map.of("kind", kind, "limit", limit, "maxChars", maxFieldChars,
        "key", registryKey, "selector", CANDIDATES));
    if (region != null) {
      arg.put("region", region.target());
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> raw = (Map<String, Object>) page.evaluate(EXTRACT, arg);
    if (Boolean.TRUE.equals(raw.get("stale"))) {
      throw new BrowserException(ErrorCode.BROWSER_STALE_REFERENCE, "the region \"" + region.name()
          + "\" changed or is gone since it was observed; observe the page again", page.url(), false, null);
    }
    @SuppressWarnings("unchecked")
    List<Map<String, String>> rows = (List<Map<String, String>>) raw.get("rows");
    @SuppressWarnings("unchecked")
    List<String> columns = (List<String>) raw.get("columns");
    return new Extraction(kind, page.url(), null, columns, rows, ((Number) raw.get("total")).intValue());
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
    try (InputStream in = PageScripts.class.getResourceAsStream(name)) {
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
