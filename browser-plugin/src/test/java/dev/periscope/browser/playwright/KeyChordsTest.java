package dev.periscope.browser.playwright;

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
 * browser_press takes Playwright's key syntax: chords reach the page as a person presses them,
 * modifiers are let go when the call ends, and chords that act on the browser are refused before
 * anything is pressed.
 */
class KeyChordsTest {
  /** Each keydown and click the page sees, with the modifiers held, as a line of its text. */
  static final String KEYS =
      """
      <!doctype html><title>Keys</title>
      <label>Before <input id="before"></label>
      <label>Name <input id="name" value="Ada Lovelace"></label>
      <button id="go" type="button">Go</button>
      <ol id="log" aria-live="polite"></ol>
      <script>
        const log = (line) => {
          const li = document.createElement('li');
          li.textContent = line;
          document.getElementById('log').append(li);
        };
        const held = (e) => (e.ctrlKey ? 'ctrl ' : '') + (e.shiftKey ? 'shift ' : '')
          + (e.altKey ? 'alt ' : '') + (e.metaKey ? 'meta ' : '');
        document.addEventListener('keydown', (e) => {
          if (['Control', 'Shift', 'Alt', 'Meta'].includes(e.key)) return;
          log('key ' + held(e) + e.key + ' on ' + (document.activeElement.id || 'body'));
        });
        document.getElementById('go').addEventListener('click', (e) => log('click ' + held(e) + 'go'));
      </script>
      """;

  /** Control+B exports through the page's own handler, which asks first with a confirm. */
  static final String SAVE =
      """
      <!doctype html><title>Editor</title>
      <label>Text <input id="text" value="draft"></label>
      <ol id="log"></ol>
      <script>
        const log = (line) => {
          const li = document.createElement('li');
          li.textContent = line;
          document.getElementById('log').append(li);
        };
        document.addEventListener('keydown', (e) => {
          if (['Control', 'Shift', 'Alt', 'Meta'].includes(e.key)) return;
          if (e.ctrlKey && e.key === 'b') { e.preventDefault(); log(confirm('Export the draft?') ? 'exported' : 'kept'); return; }
          log('key ' + (e.ctrlKey ? 'ctrl ' : '') + e.key);
        });
      </script>
      """;

  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = LocalBrowser.withCorpus(Map.of("/keys", KEYS, "/save", SAVE));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  @Test
  void chordsReachThePageAsAPersonPressesThemAndNoModifierStaysHeld() {
    ToolResult page = browser.open("chords", "/keys", "summary");
    ToolResult all = press("chords", page, "Name", "Control+A");
    assertFalse(all.isError(), all.text());
    assertTrue(text(all).contains("key ctrl a on name"), all.text());
    ToolResult typed =
        browser.call(
            "chords", "browser_type", with(target(all, "Name"), Map.of("text", "Grace Hopper")));
    assertFalse(typed.isError(), typed.text());
    assertEquals(List.of("value: Grace Hopper"), valueOf(typed, "Name"), typed.text());

    ToolResult back = browser.call("chords", "browser_press", Map.of("key", "Shift+Tab"));
    assertTrue(text(back).contains("key shift Tab on name"), back.text());
    ToolResult f2 = browser.call("chords", "browser_press", Map.of("key", "F2"));
    assertTrue(text(f2).contains("key F2 on before"), "Shift+Tab moved focus back: " + f2.text());
    ToolResult question = browser.call("chords", "browser_press", Map.of("key", "?"));
    assertTrue(text(question).contains("key ? on before"), question.text());

    ToolResult click = browser.call("chords", "browser_click", target(question, "Go"));
    assertTrue(text(click).contains("click go"), "no modifier stays held: " + click.text());
    ToolResult plain = browser.call("chords", "browser_press", Map.of("key", "x"));
    assertTrue(text(plain).contains("key x on go"), plain.text());
  }

  @Test
  void aChordWhoseKeyOpensADialogLetsGoOfItsModifiersOnceTheDialogIsAnswered() {
    ToolResult page = browser.open("dialog", "/save", "summary");
    ToolResult asked = press("dialog", page, "Text", "Control+B");
    assertFalse(asked.isError(), asked.text());
    assertEquals(
        "Export the draft?",
        ((Map<?, ?>) LocalBrowser.observation(asked).get("dialog")).get("message"),
        asked.text());
    ToolResult answered = browser.call("dialog", "browser_dialog", Map.of("accept", true));
    assertFalse(answered.isError(), answered.text());
    ToolResult typed = browser.call("dialog", "browser_press", Map.of("key", "x"));
    assertFalse(typed.isError(), typed.text());
    assertTrue(text(typed).contains("exported"), typed.text());
    assertTrue(text(typed).contains("key x"), typed.text());
    assertFalse(text(typed).contains("key ctrl x"), "Control was let go: " + typed.text());
  }

  @Test
  void chordsThatActOnTheBrowserAreRefusedAndNothingIsPressed() {
    ToolResult page = browser.open("browser-chords", "/keys", "summary");
    for (String chord :
        List.of("Control+W", "Control+T", "Control+L", "F5", "Control+R", "Alt+ArrowLeft")) {
      ToolResult refused = press("browser-chords", page, "Name", chord);
      assertTrue(refused.isError(), chord + ": " + refused.text());
      assertTrue(refused.text().contains("code=BROWSER_INVALID_ARGUMENT"), refused.text());
      assertTrue(refused.text().contains("acts on the browser, not the page"), refused.text());
    }
    ToolResult after = browser.call("browser-chords", "browser_observe", Map.of());
    assertFalse(text(after).contains("key "), "the page saw no key: " + after.text());
    assertEquals(browser.url("/keys"), LocalBrowser.observation(after).get("url"));
  }

  @Test
  void keysThatDoNotParseAreRefusedNamingTheFieldAndNothingIsPressed() {
    ToolResult page = browser.open("bad-keys", "/keys", "summary");
    for (String key : List.of("Control+", "Hyper+A", "Control+Control+A", "Foo", "")) {
      ToolResult refused = press("bad-keys", page, "Name", key);
      assertTrue(refused.text().contains("code=BROWSER_INVALID_ARGUMENT"), refused.text());
      assertTrue(refused.text().contains("/key: "), refused.text());
    }
    ToolResult after = browser.call("bad-keys", "browser_observe", Map.of());
    assertFalse(text(after).contains("key "), after.text());
  }

  @Test
  void arrowKeysMoveTheSelectionOfTheAuthoringPracticesTabs() {
    ToolResult tabs = browser.open("tabs", "/pages/apg/tabs.html", "interactive");
    assertEquals(List.of("selected"), state(tabs, "Maria Ahlefeldt"), tabs.text());
    ToolResult right = press("tabs", tabs, "Maria Ahlefeldt", "ArrowRight");
    assertEquals(List.of("selected"), state(right, "Carl Andersen"), right.text());
    ToolResult end = browser.call("tabs", "browser_press", Map.of("key", "End"));
    assertEquals(List.of("selected"), state(end, "Peter Müller"), end.text());
  }

  @Test
  void arrowKeysAndEndMoveTheChoiceOfTheAuthoringPracticesListbox() {
    ToolResult list = browser.open("listbox", "/pages/apg/listbox.html", "interactive");
    ToolResult plutonium = browser.call("listbox", "browser_click", target(list, "Plutonium"));
    assertTrue(
        plutonium.text().contains("listbox — Transuranium elements: = \"Plutonium\""),
        plutonium.text());
    ToolResult down = browser.call("listbox", "browser_press", Map.of("key", "ArrowDown"));
    assertTrue(
        down.text().contains("listbox — Transuranium elements: = \"Americium\""), down.text());
    ToolResult end = browser.call("listbox", "browser_press", Map.of("key", "End"));
    // The last option, scrolled into the box, is chosen and listed.
    assertTrue(end.text().contains("listbox — Transuranium elements: = \"Oganesson\""), end.text());
    assertEquals(List.of("selected"), state(end, "Oganesson"), end.text());
  }

  private static ToolResult press(String agent, ToolResult from, String name, String key) {
    return browser.call(agent, "browser_press", with(target(from, name), Map.of("key", key)));
  }

  private static List<String> valueOf(ToolResult r, String name) {
    Object value = LocalBrowser.element(r, name).get("value");
    return value == null ? List.of() : List.of("value: " + value);
  }

  private static Map<String, Object> with(Map<String, Object> a, Map<String, Object> b) {
    Map<String, Object> m = new HashMap<>(a);
    m.putAll(b);
    return m;
  }
}
