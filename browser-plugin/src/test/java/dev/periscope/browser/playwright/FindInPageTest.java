package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** browser_find on real Chromium: matching elements and lines with refs, bounded patterns. */
class FindInPageTest {
  static LocalBrowser browser;
  static final Map<String, String> PAGES =
      Map.of(
          "/shop",
          """
          <!doctype html><html><head><title>Shop</title></head><body>
          <nav><a href="/cart">Cart</a><a href="/help">Help</a></nav>
          <p>Free shipping on orders over 50 EUR.</p>
          <ul>
            <li><a href="/p/1">Desk lamp</a> <span>19 EUR</span> <button onclick="document.title = 'added lamp'">Add lamp to cart</button></li>
            <li><a href="/p/2">Floor lamp</a> <span>49 EUR</span></li>
            <li><a href="/p/3">Ladder</a> <span>89 EUR</span></li>
          </ul>
          <p>Lamp warranty: two years.</p>
          <p>"""
              + "a".repeat(30_000)
              + "b</p></body></html>");

  @BeforeAll
  static void start() throws Exception {
    browser = new LocalBrowser(PAGES);
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static ToolResult call(String agent, String tool, Map<String, Object> args) {
    return browser.call(agent, tool, args);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> found(ToolResult r) {
    return (Map<String, Object>) r.structured().get("find");
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> list(ToolResult r, String key) {
    return (List<Map<String, Object>>) found(r).get(key);
  }

  @Test
  void plainTextFindsElementsAndLinesIgnoringCaseAndItsRefsCanBeActedOn() {
    call("find", "browser_open", Map.of("url", browser.url("/shop")));
    ToolResult r = call("find", "browser_find", Map.of("text", "LAMP"));
    assertFalse(r.isError(), r.text());
    List<String> names = list(r, "elements").stream().map(e -> (String) e.get("name")).toList();
    assertEquals(List.of("Add lamp to cart", "Desk lamp", "Floor lamp"), names, r.text());
    assertTrue(r.text().contains("Lamp warranty: two years."), r.text());
    assertFalse(r.text().contains("Ladder"), "only what matches is shown: " + r.text());
    assertFalse(r.text().contains("Free shipping"), r.text());

    Map<String, Object> add = list(r, "elements").get(0);
    ToolResult clicked =
        call(
            "find",
            "browser_click",
            Map.of(
                "observation_id", found(r).get("observation_id"), "element_ref", add.get("ref")));
    assertFalse(clicked.isError(), clicked.text());
    assertEquals("added lamp", LocalBrowser.observation(clicked).get("title"), clicked.text());
  }

  @Test
  void aRegularExpressionFindsPricesAndMaxResultsBoundsWhatIsShown() {
    call("regex", "browser_open", Map.of("url", browser.url("/shop")));
    ToolResult r =
        call(
            "regex",
            "browser_find",
            Map.of("text", "\\b\\d+ EUR\\b", "regex", true, "max_results", 2));
    assertFalse(r.isError(), r.text());
    assertEquals(4, found(r).get("text_matches"), r.text());
    assertEquals(2, list(r, "lines").size(), r.text());
    assertTrue(r.text().contains("(first 2 of 4)"), r.text());
  }

  @Test
  void aBadOrRunawayPatternIsRefusedNamingItAndTheSessionGoesOn() {
    call("bad", "browser_open", Map.of("url", browser.url("/shop")));
    ToolResult bad = call("bad", "browser_find", Map.of("text", "(unclosed", "regex", true));
    assertTrue(bad.text().contains("code=BROWSER_INVALID_ARGUMENT"), bad.text());
    assertTrue(bad.text().contains("not a valid regular expression"), bad.text());

    // Catastrophic backtracking over 30,000 a's: refused within its time budget, in Java.
    ToolResult runaway = call("bad", "browser_find", Map.of("text", "(a|aa)+$x", "regex", true));
    assertTrue(runaway.text().contains("code=BROWSER_INVALID_ARGUMENT"), runaway.text());
    assertTrue(runaway.text().contains("use a simpler pattern"), runaway.text());

    ToolResult after = call("bad", "browser_find", Map.of("text", "ladder"));
    assertFalse(after.isError(), after.text());
    assertEquals(1, found(after).get("element_matches"), after.text());
  }
}
