package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.elements;
import static dev.periscope.browser.playwright.LocalBrowser.names;
import static dev.periscope.browser.playwright.LocalBrowser.observation;
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
 * Repeated structures are records whatever their tags (cards, inbox rows, feed items, comments):
 * each control is listed inside its record, which is told by its title and a short line of its
 * other text, and a record's ref acts as its title link or is refused naming its elements.
 */
class RecordsTest {
  static LocalBrowser browser;
  static final String DENIM_JACKET = "/products/denim-jacket";

  /** A grid of {@code n} product cards, each a title link, a price and an "Add to cart" button. */
  static String cards(int n) {
    StringBuilder b =
        new StringBuilder(
            "<!doctype html><html><head><title>Catalogue</title><style>.grid{display:grid;"
                + "grid-template-columns:repeat(4,1fr)}</style></head><body><h1>Catalogue</h1>"
                + "<div class=\"grid\">");
    for (int i = 1; i <= n; i++) {
      b.append("<div class=\"card\"><a class=\"title\" href=\"/p/")
          .append(i)
          .append("\">Product ")
          .append(i)
          .append("</a><div class=\"price\">$")
          .append(i % 90 + 10)
          .append(".00</div><button>Add to cart</button></div>");
    }
    return b.append("</div></body></html>").toString();
  }

  @BeforeAll
  static void start() throws Exception {
    browser = LocalBrowser.withCorpus(Map.of("/cards", cards(10_000)));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static ToolResult open(String agent, String page, String mode) {
    return browser.open(agent, page, mode);
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> groups(ToolResult r) {
    return (List<Map<String, Object>>) observation(r).getOrDefault("groups", List.of());
  }

  /** The elements of the record whose label (or title element's name) starts with {@code title}. */
  static List<Map<String, Object>> inRecord(ToolResult r, String title) {
    String group =
        elements(r).stream()
            .filter(e -> e.get("group") != null && ((String) e.get("name")).startsWith(title))
            .map(e -> (String) e.get("group"))
            .findFirst()
            .orElseGet(
                () ->
                    groups(r).stream()
                        .filter(g -> String.valueOf(g.get("label")).startsWith(title))
                        .map(g -> (String) g.get("ref"))
                        .findFirst()
                        .orElseThrow(
                            () -> new AssertionError("no record " + title + ": " + r.text())));
    return elements(r).stream().filter(e -> group.equals(e.get("group"))).toList();
  }

  @Test
  void productCardsAreRecordsThatTieEachButtonToItsProduct() {
    ToolResult r = open("cards", "/pages/shapes/product-grid.html", "summary");
    assertEquals(6, groups(r).size(), r.text());
    assertTrue(r.text().contains("a — Linen Shirt · $39.00\n"), r.text());
    assertTrue(r.text().contains("a — Leather Belt · $39.00\n"), r.text());
    List<Map<String, Object>> sneakers = inRecord(r, "Canvas Sneakers");
    assertEquals(
        java.util.Set.of("Canvas Sneakers", "Add to cart"),
        sneakers.stream().map(e -> e.get("name")).collect(java.util.stream.Collectors.toSet()),
        r.text());
    Map<String, Object> add =
        sneakers.stream()
            .filter(e -> "Add to cart".equals(e.get("name")))
            .findFirst()
            .orElseThrow();
    ToolResult added =
        browser.call(
            "cards",
            "browser_click",
            Map.of("observation_id", observation(r).get("id"), "element_ref", add.get("ref")));
    assertFalse(added.isError(), added.text());
    assertTrue(names(added).contains("Cart (1)"), added.text());
    assertTrue(
        inRecord(added, "Canvas Sneakers").stream().anyMatch(e -> "Added".equals(e.get("name"))),
        added.text());
  }

  @Test
  void aRecordsRefActsAsItsTitleLinkOrIsRefusedNamingItsElements() {
    ToolResult r = open("group-ref", "/pages/shapes/product-grid.html", "summary");
    String jacket = (String) inRecord(r, "Denim Jacket").get(0).get("group");
    ToolResult clicked =
        browser.call(
            "group-ref",
            "browser_click",
            Map.of("observation_id", observation(r).get("id"), "element_ref", jacket));
    assertFalse(clicked.isError(), clicked.text());
    assertTrue(
        String.valueOf(observation(clicked).get("url")).endsWith(DENIM_JACKET),
        "the title link was followed: " + clicked.text());

    ToolResult album = open("group-ref", "/pages/bootstrap/album.html", "summary");
    String card = (String) inRecord(album, "Trailhead Backpack 28L").get(0).get("group");
    ToolResult refused =
        browser.call(
            "group-ref",
            "browser_click",
            Map.of("observation_id", observation(album).get("id"), "element_ref", card));
    assertTrue(refused.isError(), refused.text());
    assertTrue(refused.text().contains("code=BROWSER_INVALID_ARGUMENT"), refused.text());
    assertTrue(refused.text().contains("(button — View)"), refused.text());
    assertTrue(refused.text().contains("(button — Edit)"), refused.text());
  }

  @Test
  void inboxRowsAreRecordsToldBySubjectAndSenderWithTheirOwnControls() {
    ToolResult r = open("inbox", "/pages/shapes/inbox.html", "interactive");
    assertEquals(8, groups(r).size(), r.text());
    assertTrue(r.text().contains("a — Notes on the Analytical Engine · Ada Lovelace\n"), r.text());
    List<Map<String, Object>> row = inRecord(r, "Paper draft");
    assertEquals(
        List.of("checkbox", "button", "link"),
        row.stream().map(e -> (String) e.getOrDefault("role", "link")).toList(),
        r.text());
    assertEquals("star", row.get(1).get("icon"));
    assertFalse(
        elements(r).stream().anyMatch(e -> String.valueOf(e.get("kind")).startsWith("clickable")),
        "a row its subject link stands for is not listed beside it: " + r.text());
  }

  @Test
  void commentsUnderAPostAreRecordsOfTheirOwn() {
    ToolResult r = open("feed", "/pages/shapes/feed.html", "interactive");
    List<Map<String, Object>> post = inRecord(r, "Tomás Rivera");
    assertEquals(
        List.of("reply", "like", "share"),
        post.stream().filter(e -> e.get("icon") != null).map(e -> e.get("icon")).toList(),
        r.text());
    List<Map<String, Object>> comment = inRecord(r, "Priya Nair");
    assertEquals(
        List.of("reply"),
        comment.stream().filter(e -> e.get("icon") != null).map(e -> e.get("icon")).toList(),
        r.text());
    assertTrue(
        r.text().contains("Priya Nair · Yes please, I'd take four for my balcony."), r.text());
  }

  @Test
  void tenThousandCardsStayWithinTheBudgetAndSayWhatWasLeftOut() {
    ToolResult r = open("many", "/cards", "summary");
    assertTrue(r.text().length() <= 8_000, "summary of 10,000 cards: " + r.text().length());
    Map<String, Object> o = observation(r);
    assertEquals(true, o.get("elements_truncated"));
    assertTrue((int) o.get("total_elements") >= 20_000, o.toString());
    assertTrue(r.text().contains("not shown"), r.text());
    assertTrue(r.text().contains("browser_observe_next"), r.text());
    assertTrue(r.text().contains("Product 1 · $11.00"), r.text());
  }
}
