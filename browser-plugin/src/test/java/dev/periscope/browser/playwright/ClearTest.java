package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.element;
import static dev.periscope.browser.playwright.LocalBrowser.target;
import static dev.periscope.browser.playwright.LocalBrowser.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * browser_clear on real Chromium: it empties a search field the page filters on as a person's
 * deletion would (the page reacts), a textarea, an editable element and a password field, and
 * refuses what holds no text.
 */
class ClearTest {
  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = new LocalBrowser(Map.of("/form", FORM));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  /** A product filter that counts matches on input, as shop search boxes do. */
  static final String FORM =
      """
      <!doctype html><title>Lamps</title>
      <label>Search <input id="q" type="search" value="desk"></label>
      <p id="count">1 result</p>
      <label>Note <textarea id="note">Leave at the door</textarea></label>
      <div contenteditable="true" role="textbox" aria-label="Message">Hello there</div>
      <label>Password <input id="pw" type="password"></label>
      <button id="go">Go</button>
      <script>
        const products = ['desk lamp', 'floor lamp', 'wall lamp'];
        const q = document.getElementById('q');
        q.addEventListener('input', () => {
          const n = products.filter((p) => p.includes(q.value)).length;
          document.getElementById('count').textContent = n + (n === 1 ? ' result' : ' results');
        });
        document.getElementById('pw').value = 'autofilled';
      </script>
      """;

  @Test
  void aSearchFieldIsEmptiedAndThePageReactsAsToAPersonsDeletion() {
    ToolResult page = browser.open("clear-search", "/form", "document");
    assertTrue(text(page).contains("1 result"), page.text());
    ToolResult cleared = browser.call("clear-search", "browser_clear", target(page, "Search"));
    assertFalse(cleared.isError(), cleared.text());
    assertTrue(text(cleared).contains("3 results"), "the page's filter ran: " + cleared.text());
    assertEquals("", String.valueOf(element(cleared, "Search").getOrDefault("value", "")));
  }

  @Test
  void aTextareaAnEditableElementAndAPasswordFieldAreEmptied() {
    ToolResult page = browser.open("clear-fields", "/form", "document");
    ToolResult note = browser.call("clear-fields", "browser_clear", target(page, "Note"));
    assertFalse(note.isError(), note.text());
    assertFalse(text(note).contains("Leave at the door"), note.text());
    ToolResult message = browser.call("clear-fields", "browser_clear", target(note, "Message"));
    assertFalse(message.isError(), message.text());
    assertFalse(text(message).contains("Hello there"), message.text());
    ToolResult password =
        browser.call("clear-fields", "browser_clear", target(message, "Password"));
    assertFalse(password.isError(), password.text());
    Map<String, Object> args = new HashMap<>(target(password, "Password"));
    ToolResult again = browser.call("clear-fields", "browser_clear", args);
    assertFalse(
        again.isError(), "an empty field is emptied again without complaint: " + again.text());
  }

  @Test
  void aButtonIsRefusedNamingWhatItIsAndNothingHappens() {
    ToolResult page = browser.open("clear-button", "/form", "document");
    ToolResult button = browser.call("clear-button", "browser_clear", target(page, "Go"));
    assertTrue(button.isError(), button.text());
    assertTrue(button.text().contains("BROWSER_INVALID_ARGUMENT"), button.text());
    assertTrue(button.text().contains("holds no text to empty"), button.text());
    ToolResult after = browser.call("clear-button", "browser_observe", Map.of());
    assertTrue(text(after).contains("1 result"), "the page is as it was: " + after.text());
  }
}
