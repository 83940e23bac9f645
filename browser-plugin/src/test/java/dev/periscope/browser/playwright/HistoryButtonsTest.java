package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.observation;
import static dev.periscope.browser.playwright.LocalBrowser.target;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.browser.spi.LiveViewEnvironment;
import dev.periscope.api.tool.ToolResult;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A mouse's buttons 4 and 5 go back and forward, as they do in a person's browser. */
class HistoryButtonsTest {
  static final Map<String, String> PAGES =
      Map.of(
          "/one", "<!doctype html><title>One</title><a href=\"/two\">Two</a>",
          "/two", "<!doctype html><title>Two</title><a href=\"/one\">One</a>",
          "/a", "<!doctype html><title>A</title><a href=\"/c\">Somewhere else</a>",
          "/b", "<!doctype html><title>B</title><a href=\"/c\">Somewhere else</a>",
          "/c", "<!doctype html><title>C</title>");

  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = new LocalBrowser(PAGES);
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  @Test
  void theBackAndForwardButtonsMoveThroughTheTabsHistoryUnderItsGuards() {
    ToolResult one = browser.open("buttons", "/one", "interactive");
    ToolResult two = browser.call("buttons", "browser_click", target(one, "Two"));
    assertEquals(browser.url("/two"), observation(two).get("url"), two.text());

    ToolResult back = browser.call("buttons", "browser_click", button(two, "One", "back"));
    assertEquals(browser.url("/one"), observation(back).get("url"), back.text());
    ToolResult forward = browser.call("buttons", "browser_click", button(back, "Two", "forward"));
    assertEquals(browser.url("/two"), observation(forward).get("url"), forward.text());

    ToolResult further =
        browser.call("buttons", "browser_click", button(forward, "One", "forward"));
    assertTrue(
        further.text().contains("there is no history entry to go forward to"), further.text());
    Map<String, Object> twice = button(forward, "One", "back");
    twice.put("click_count", 2);
    ToolResult refused = browser.call("buttons", "browser_click", twice);
    assertTrue(refused.text().contains("code=BROWSER_INVALID_ARGUMENT"), refused.text());
    assertTrue(refused.text().contains("/button: back moves through the tab's history once"));
  }

  @Test
  void aPersonsBackAndForwardButtonsInTheLiveViewMoveThroughHistoryAndClickNothing()
      throws Exception {
    HttpServer server = RawPlaywright.serve(PAGES);
    try (Playwright playwright = RawPlaywright.create()) {
      Browser chromium = RawPlaywright.launch(playwright);
      Page page = chromium.newPage();
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      page.navigate(base + "/a");
      page.navigate(base + "/b");
      LivePage.play(page, press("down", "back"));
      LivePage.play(page, press("up", "back"));
      page.waitForURL(base + "/a");
      LivePage.play(page, press("down", "forward"));
      LivePage.play(page, press("up", "forward"));
      page.waitForURL(base + "/b");
      page.waitForTimeout(300);
      assertEquals(base + "/b", page.url(), "the link under the pointer was not clicked");
    } finally {
      server.stop(0);
    }
  }

  private static LiveViewEnvironment.PersonInput press(String kind, String button) {
    // On the link: a press that clicked would follow it to /c.
    return new LiveViewEnvironment.PersonInput(kind, 12, 12, button, 0, 0, null, null);
  }

  private static Map<String, Object> button(ToolResult from, String name, String button) {
    Map<String, Object> args = new HashMap<>(target(from, name));
    args.put("button", button);
    return args;
  }
}
