package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.element;
import static dev.periscope.browser.playwright.LocalBrowser.state;
import static dev.periscope.browser.playwright.LocalBrowser.target;
import static dev.periscope.browser.playwright.LocalBrowser.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A control partly under another is pressed where a person presses it, on its visible part: click,
 * double-click, hover, check and drag; only one with no visible point is refused, naming its cover
 * (pages/shapes/overlaps.html).
 */
class PartlyCoveredTest {
  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = LocalBrowser.withCorpus(Map.of());
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  private static ToolResult open(String agent) {
    return browser.open(agent, "/pages/shapes/overlaps.html", "interactive");
  }

  @Test
  void aButtonHalfUnderAChatBubbleIsClickedOnItsVisibleHalf() {
    ToolResult page = open("click");
    assertFalse(Boolean.TRUE.equals(element(page, "Place order").get("covered")), page.text());
    assertEquals(true, element(page, "Subscribe").get("covered"), page.text());
    ToolResult clicked = browser.call("click", "browser_click", target(page, "Place order"));
    assertFalse(clicked.isError(), clicked.text());
    ToolResult once = observe("click");
    assertTrue(text(once).contains("Order placed"), "not the bubble: " + once.text());

    ToolResult twice =
        browser.call("click", "browser_click", with(target(once, "Place order"), "click_count", 2));
    assertFalse(twice.isError(), twice.text());
    assertTrue(text(observe("click")).contains("Order placed twice"));
  }

  @Test
  void hoverCheckAndDragReachTheVisiblePartToo() {
    ToolResult page = open("hands");
    ToolResult hovered = browser.call("hands", "browser_hover", target(page, "Place order"));
    assertFalse(hovered.isError(), hovered.text());
    ToolResult hovering = observe("hands");
    assertTrue(text(hovering).contains("Hovering Place order"), hovering.text());

    ToolResult checked =
        browser.call(
            "hands", "browser_check", with(target(hovering, "Remember me"), "checked", true));
    assertFalse(checked.isError(), checked.text());
    assertEquals(List.of("checked"), state(checked, "Remember me"), checked.text());
    ToolResult before = observe("hands");
    assertTrue(text(before).contains("Remember me: true"), before.text());

    ToolResult dragged =
        browser.call(
            "hands",
            "browser_drag",
            with(
                target(before, "Move card"),
                "to_element_ref",
                element(before, "Done column").get("ref")));
    assertFalse(dragged.isError(), dragged.text());
    String after = text(observe("hands"));
    assertTrue(
        after.contains("Card moved to Done"), "pressed on the handle, not the badge: " + after);
  }

  @Test
  void aButtonWhollyUnderABannerIsRefusedNamingTheBannerUntilItGoes() {
    ToolResult page = open("covered");
    ToolResult refused = browser.call("covered", "browser_click", target(page, "Subscribe"));
    assertTrue(refused.text().contains("code=BROWSER_TARGET_COVERED"), refused.text());
    assertTrue(refused.text().contains("\"Subscribe\" is covered by"), refused.text());
    assertTrue(refused.text().contains("div \"Cookies\""), refused.text());
    assertFalse(text(observe("covered")).contains("Subscribed"), "nothing was pressed");
    ToolResult fresh = observe("covered");
    browser.call("covered", "browser_click", target(fresh, "Accept"));
    ToolResult now = observe("covered");
    ToolResult subscribed = browser.call("covered", "browser_click", target(now, "Subscribe"));
    assertFalse(subscribed.isError(), subscribed.text());
    assertTrue(text(observe("covered")).contains("Subscribed"));
  }

  private static ToolResult observe(String agent) {
    return browser.call(agent, "browser_observe", Map.of("mode", "document"));
  }

  private static Map<String, Object> with(Map<String, Object> args, String key, Object value) {
    Map<String, Object> m = new HashMap<>(args);
    m.put(key, value);
    return m;
  }
}
