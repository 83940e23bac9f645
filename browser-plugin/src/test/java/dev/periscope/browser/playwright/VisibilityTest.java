package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.element;
import static dev.periscope.browser.playwright.LocalBrowser.names;
import static dev.periscope.browser.playwright.LocalBrowser.state;
import static dev.periscope.browser.playwright.LocalBrowser.target;
import static dev.periscope.browser.playwright.LocalBrowser.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What is in sight is listed and read, whatever its ARIA; what is hidden from sight (an off-canvas
 * menu, a carousel's other slides, a closed panel, text for screen readers only) is neither, on
 * every run of the same page.
 */
class VisibilityTest {
  static LocalBrowser browser;
  static final List<String> DRAWER = List.of("Home", "Shoes", "Bags", "Sale", "Contact");

  @BeforeAll
  static void start() throws Exception {
    browser = LocalBrowser.withCorpus(Map.of("/scroller", SCROLLER));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  /**
   * A pane 120 px tall that scrolls 30 links, and a skip link moved 10,000 px left of it: scrolling
   * the pane reaches every link but that one.
   */
  static final String SCROLLER =
      """
      <!doctype html><title>Pane</title>
      <div id="pane" style="height: 120px; overflow: auto; position: relative; width: 300px">
        <a href="#skip" style="position: absolute; left: -10000px">Skip to results</a>
        %s
      </div>
      """
          .formatted(
              java.util.stream.IntStream.rangeClosed(1, 30)
                  .mapToObj(n -> "<p><a href=\"#item-" + n + "\">Item " + n + "</a></p>")
                  .collect(java.util.stream.Collectors.joining()));

  @Test
  void whatAPaneScrollsToIsListedAndWhatLiesWhereNoScrollingReachesIsNot() {
    ToolResult pane = open("pane", "/scroller");
    List<String> names = LocalBrowser.names(pane);
    assertTrue(names.contains("Item 30"), "scrolled to within the pane: " + pane.text());
    assertFalse(
        names.contains("Skip to results"), "left of anything scrolling reaches: " + pane.text());
  }

  static ToolResult open(String agent, String page) {
    return browser.open(agent, page, "interactive");
  }

  /** Clicks the element named {@code name}, then observes every element. */
  static ToolResult click(String agent, ToolResult on, String name) {
    ToolResult r = browser.call(agent, "browser_click", target(on, name));
    assertFalse(r.isError(), r.text());
    return browser.call(agent, "browser_observe", Map.of("mode", "interactive"));
  }

  /** The page's text as a document observation reads it (its refs go stale). */
  static String read(String agent) {
    return text(browser.call(agent, "browser_observe", Map.of("mode", "document")));
  }

  @Test
  void aMenuThePageSlidesClosedAsItStartsIsNeitherListedNorReadOnEveryRun() {
    // The page closes its drawer as it starts, with a transition still running when it has loaded:
    // the observation is of where it comes to rest, every time.
    for (int run = 1; run <= 4; run++) {
      ToolResult r = open("drawer", "/pages/shapes/offcanvas-shop.html");
      for (String link : DRAWER) {
        assertFalse(names(r).contains(link), "run " + run + ": " + r.text());
      }
      String text = read("drawer");
      assertFalse(text.contains("Shoes"), "run " + run + ": " + text);
    }
  }

  @Test
  void whatIsOutOfSightIsLeftOutAndWhatCanBeScrolledToIsNot() {
    ToolResult r = open("sight", "/pages/shapes/offcanvas-shop.html");
    String text = read("sight");
    // A cart drawer past the right edge, a skip link at left:-9999px, a carousel's other slides, a
    // closed <details>, a toast at opacity 0, and a visually hidden span.
    for (String hidden :
        List.of(
            "Checkout",
            "Subtotal",
            "Skip to content",
            "New arrivals: canvas totes",
            "Free shipping over $50",
            "Free returns within 30 days",
            "Added to cart",
            "items in cart")) {
      assertFalse(text.contains(hidden), hidden + " in " + text);
    }
    assertFalse(names(r).contains("Checkout") || names(r).contains("Skip to content"), r.text());
    assertTrue(text.contains("Summer sale: 30% off sandals"), text);
    assertTrue(names(r).contains("City Backpack"), "below the fold is in reach: " + r.text());

    click("sight", browser.call("sight", "browser_observe", Map.of()), "Next slide");
    String next = read("sight");
    assertTrue(next.contains("New arrivals: canvas totes"), next);
    assertFalse(next.contains("Summer sale: 30% off sandals"), next);
    click("sight", browser.call("sight", "browser_observe", Map.of()), "Shipping & returns");
    assertTrue(read("sight").contains("Free returns within 30 days"));
  }

  @Test
  void anOffCanvasMenuIsListedOnceOpenedAndNoLongerOnceClosed() {
    ToolResult r = open("menu", "/pages/shapes/offcanvas-shop.html");
    assertEquals(List.of("collapsed"), state(r, "Menu"));
    ToolResult opened = click("menu", r, "Menu");
    assertTrue(names(opened).containsAll(DRAWER), opened.text());
    assertEquals(List.of("expanded"), state(opened, "Menu"));
    assertTrue(names(opened).contains("Close menu"), opened.text());
    ToolResult closed = click("menu", opened, "Close menu");
    for (String link : DRAWER) {
      assertFalse(names(closed).contains(link), closed.text());
    }

    ToolResult bootstrap = open("menu", "/pages/bootstrap/offcanvas.html");
    assertFalse(names(bootstrap).contains("Dashboard"), bootstrap.text());
    ToolResult shown = click("menu", bootstrap, "Button with data-bs-target");
    assertTrue(
        names(shown).containsAll(List.of("Dashboard", "Orders", "Products", "Customers")),
        shown.text());
  }

  @Test
  void contentHiddenFromAssistiveTechnologyButInSightIsNamedByWhatItShows() {
    ToolResult r = open("aria-hidden", "/pages/shapes/aria-hidden-visible.html");
    List<Map<String, Object>> overlays =
        LocalBrowser.elements(r).stream()
            .filter(e -> "Read the story".equals(e.get("name")))
            .toList();
    assertEquals(3, overlays.size(), r.text());
    overlays.forEach(e -> assertEquals(true, e.get("aria_hidden"), r.text()));
    assertFalse(r.text().contains("(unnamed)"), r.text());
    String d = read("aria-hidden");
    assertTrue(d.contains("TODAY'S PICKS"), d);
    for (String hidden : List.of("Hidden story", "Read the hidden story", "Off-screen story")) {
      assertFalse(d.contains(hidden) || r.text().contains(hidden), hidden + ": " + r.text());
    }
    assertFalse(element(r, "City council approves new bike lanes").containsKey("aria_hidden"));
  }
}
