package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.observation;
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
 * browser_wait for what an agent can name without a ref: text that appears or goes, a URL that
 * reaches a glob, an element of a role and name that appears or goes, a plain delay; each returns
 * the observation, and one that times out says what it saw last.
 */
class WaitsTest {
  /**
   * Save shows "Saving…" at once and "Saved" 400 ms later; Check out moves the URL to
   * /checkout/payment 400 ms later (history.pushState, no load) and shows Continue then.
   */
  static final String APP =
      """
      <!doctype html><title>Shop</title>
      <p id="status">Always here: the shop is open.</p>
      <button id="save" type="button">Save</button>
      <button id="checkout" type="button">Check out</button>
      <div id="out"></div>
      <script>
        const out = document.getElementById('out');
        document.getElementById('save').addEventListener('click', () => {
          out.innerHTML = '<span class="spinner">Saving…</span>';
          setTimeout(() => { out.textContent = 'Saved'; }, 400);
        });
        document.getElementById('checkout').addEventListener('click', () => {
          setTimeout(() => {
            history.pushState({}, '', '/checkout/payment');
            out.innerHTML = '<button type="button">Continue to payment</button>';
          }, 400);
        });
      </script>
      """;

  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = new LocalBrowser(Map.of("/app", APP));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  @Test
  void waitsForTextToAppearAndGoAndReturnsTheObservation() {
    ToolResult page = browser.open("text", "/app", "summary");
    browser.call("text", "browser_click", target(page, "Save"));
    ToolResult saved = wait("text", "until", "text-visible", "text", "saved", "timeout_ms", 5_000);
    assertFalse(saved.isError(), saved.text());
    assertTrue(text(saved).contains("Saved"), "the observation after the wait: " + saved.text());
    ToolResult spinner =
        wait("text", "until", "text-hidden", "text", "Saving…", "timeout_ms", 5_000);
    assertFalse(spinner.isError(), spinner.text());
    assertFalse(text(spinner).contains("Saving"), spinner.text());
  }

  @Test
  void waitsForTheUrlToReachAGlobAndForAnElementByRoleAndName() {
    ToolResult page = browser.open("url", "/app", "summary");
    browser.call("url", "browser_click", target(page, "Check out"));
    ToolResult checkout = wait("url", "until", "url", "url", "**/checkout/*", "timeout_ms", 5_000);
    assertFalse(checkout.isError(), checkout.text());
    assertEquals(browser.url("/checkout/payment"), observation(checkout).get("url"));
    ToolResult shown =
        wait("url", "until", "element-visible", "role", "button", "name", "continue");
    assertFalse(shown.isError(), shown.text());
    assertTrue(
        LocalBrowser.names(shown).contains("Continue to payment"), "listed: " + shown.text());
    ToolResult gone = wait("url", "until", "element-hidden", "role", "button", "name", "Nothing");
    assertFalse(gone.isError(), "no such button: already gone. " + gone.text());
  }

  @Test
  void aWaitThatTimesOutSaysWhatItSawLast() {
    browser.open("late", "/app", "summary");
    ToolResult never =
        wait("late", "until", "text-visible", "text", "Order placed", "timeout_ms", 300);
    assertTrue(never.isError(), never.text());
    assertTrue(
        never.text().contains("the wait for text-visible timed out after 300 ms: the page never"),
        never.text());
    ToolResult still =
        wait("late", "until", "text-hidden", "text", "shop is open", "timeout_ms", 300);
    assertTrue(
        still.text().contains("it is still shown, in p \"Always here: the shop is open.\""),
        still.text());
    ToolResult url = wait("late", "until", "url", "url", "**/thanks", "timeout_ms", 300);
    assertTrue(url.text().contains("the URL is still " + browser.url("/app")), url.text());
    ToolResult button =
        wait(
            "late", "until", "element-visible", "role", "button", "name", "Pay", "timeout_ms", 300);
    assertTrue(
        button
            .text()
            .contains(
                "no visible button named like \"Pay\" appeared; the visible"
                    + " buttons are named \"Save\", \"Check out\""),
        button.text());
  }

  @Test
  void aPlainDelayWaitsAndIsBoundedToTenSeconds() {
    browser.open("delay", "/app", "summary");
    long start = System.nanoTime();
    ToolResult delay = wait("delay", "until", "delay", "timeout_ms", 500);
    assertFalse(delay.isError(), delay.text());
    assertTrue(System.nanoTime() - start >= 500_000_000L, "it waited");
    ToolResult tooLong = wait("delay", "until", "delay", "timeout_ms", 20_000);
    assertTrue(
        tooLong
            .text()
            .contains("/timeout_ms: an integer from 1 to 10000 is required for a" + " delay"),
        tooLong.text());
  }

  @Test
  void badWaitsAreRefusedNamingTheField() {
    browser.open("bad", "/app", "summary");
    Map<String, List<Object>> refusals =
        Map.of(
            "/url: '**/{a' leaves a brace open",
            List.of("until", "url", "url", "**/{a"),
            "/role: an ARIA role is required",
            List.of("until", "element-visible", "role", "buton"),
            "/text: the text to wait for",
            List.of("until", "text-visible"),
            "/text: does not apply to until load",
            List.of("until", "load", "text", "x"),
            "/url: a URL glob is required",
            List.of("until", "url"),
            "/element_ref: waiting for an element needs its ref, or its role",
            List.of("until", "element-hidden", "name", "Save"));
    refusals.forEach(
        (message, args) -> {
          ToolResult r = wait("bad", args.toArray());
          assertTrue(r.text().contains("code=BROWSER_INVALID_ARGUMENT"), r.text());
          assertTrue(r.text().contains(message), message + " in " + r.text());
        });
  }

  private static ToolResult wait(String agent, Object... pairs) {
    Map<String, Object> args = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      args.put((String) pairs[i], pairs[i + 1]);
    }
    return browser.call(agent, "browser_wait", args);
  }
}
