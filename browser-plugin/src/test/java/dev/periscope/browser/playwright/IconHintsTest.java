package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A control drawn only as an icon is hinted by what the icon depicts, never named by it: an SVG's
 * title, a sprite's symbol, an icon font's ligature or class, a background image, a data-icon, an
 * image's file.
 */
class IconHintsTest {
  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = LocalBrowser.withCorpus(Map.of());
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  @Test
  void everyKindOfIconGivesItsControlAHint() {
    ToolResult r = browser.open("icons", "/pages/shapes/icons.html", "interactive");
    List<Map<String, Object>> elements = LocalBrowser.elements(r);
    // In the page's order: an SVG's <title>, <use href="#icon-reply">, a Material ligature,
    // fa-star, bi-bookmark, glyphicon-remove, icon-forward over a background image, a bare "flag"
    // class, data-icon, and an image's file name.
    assertEquals(
        List.of(
            "trash",
            "reply",
            "delete",
            "star",
            "bookmark",
            "remove",
            "forward",
            "flag",
            "heart",
            "share",
            ""),
        elements.stream().map(e -> e.getOrDefault("icon", "")).toList(),
        r.text());
    for (Map<String, Object> e : elements.subList(0, 10)) {
      assertEquals("", e.get("name"), "a hint is never a name: " + r.text());
    }
    assertEquals("Archive", elements.get(10).get("name"));
    assertTrue(r.text().contains("button — (unnamed) (icon: trash)"), r.text());
    assertTrue(r.text().contains("a — (unnamed) (icon: share)"), r.text());
  }

  @Test
  void aCountBesideAnIconKeepsTheIconsHint() {
    ToolResult r = browser.open("feed", "/pages/shapes/feed.html", "interactive");
    assertTrue(r.text().contains("button — 3 (icon: like)"), r.text());
    assertTrue(r.text().contains("button — (unnamed) (icon: reply)"), r.text());
  }
}
