package dev.periscope.browser.playwright;

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
 * The pointer beyond a plain click (right and double clicks, a point inside a box, drags) and text
 * typed key by key, on real Chromium and pages served on 127.0.0.1.
 */
class PointerAndKeyboardTest {
  static LocalBrowser browser;
  static final Map<String, String> PAGES =
      Map.of(
          "/framed-login",
          """
          <!doctype html><html><head><title>Framed</title></head><body>
          <iframe src="/login" style="width: 400px; height: 200px"></iframe></body></html>""",
          "/clicks",
          """
          <!doctype html><html><head><title>Clicks</title></head><body>
          <button id="b">Target</button>
          <div id="pad" role="button" aria-label="Pad" style="width: 200px; height: 100px; background: #ddd"></div>
          <p id="log">none</p>
          <script>
            const log = (s) => document.getElementById('log').textContent = s;
            const b = document.getElementById('b');
            b.addEventListener('contextmenu', (e) => { e.preventDefault(); log('context menu, button ' + e.button); });
            b.addEventListener('dblclick', () => log('double-clicked'));
            b.addEventListener('auxclick', (e) => { if (e.button === 1) log('middle-clicked'); });
            document.getElementById('pad').addEventListener('click', (e) => log('pad at ' + e.offsetX + ',' + e.offsetY));
          </script></body></html>""",
          "/sortable",
          """
          <!doctype html><html><head><title>Sortable</title></head><body>
          <ul id="list">
            <li draggable="true">Apples</li><li draggable="true">Bananas</li><li draggable="true">Cherries</li>
          </ul>
          <p id="order"></p>
          <script>
            const list = document.getElementById('list');
            const show = () => document.getElementById('order').textContent = 'order: '
              + Array.from(list.children).map(li => li.textContent).join(', ');
            let dragged;
            list.addEventListener('dragstart', (e) => { dragged = e.target; e.dataTransfer.setData('text/plain', ''); });
            list.addEventListener('dragover', (e) => e.preventDefault());
            list.addEventListener('drop', (e) => {
              e.preventDefault();
              const over = e.target.closest('li');
              if (over && dragged && over !== dragged) list.insertBefore(dragged, over);
              show();
            });
            show();
          </script></body></html>""",
          "/pointer-sortable",
          """
          <!doctype html><html><head><title>Board</title>
          <style>.card { cursor: grab; padding: 8px; margin: 4px; background: #eee; width: 200px }</style></head><body>
          <div id="board"><div class="card">Write</div><div class="card">Review</div><div class="card">Ship</div></div>
          <p id="order"></p>
          <script>
            const board = document.getElementById('board');
            const show = () => document.getElementById('order').textContent = 'order: '
              + Array.from(board.children).map(c => c.textContent).join(', ');
            let held = null, moves = 0;
            board.addEventListener('pointerdown', (e) => { held = e.target.closest('.card'); moves = 0; });
            addEventListener('pointermove', () => { if (held) moves++; });
            addEventListener('pointerup', (e) => {
              const over = document.elementFromPoint(e.clientX, e.clientY);
              const card = over && over.closest('.card');
              if (held && card && card !== held && moves > 1) board.insertBefore(held, card.nextSibling);
              held = null; show();
            });
            show();
          </script></body></html>""",
          "/autocomplete",
          """
          <!doctype html><html><head><title>Find a product</title></head><body>
          <input id="q" aria-label="Product" autocomplete="off">
          <ul id="suggestions"></ul>
          <p id="keys">keys: 0</p>
          <script>
            const items = ['Lamps', 'Ladders', 'Laptops', 'Tables'];
            let keys = 0;
            const q = document.getElementById('q');
            q.addEventListener('keydown', () => document.getElementById('keys').textContent = 'keys: ' + (++keys));
            q.addEventListener('input', () => {
              const ul = document.getElementById('suggestions');
              ul.innerHTML = '';
              if (q.value.length < 2) return;
              for (const it of items.filter(i => i.toLowerCase().startsWith(q.value.toLowerCase()))) {
                const li = document.createElement('li');
                const b = document.createElement('button');
                b.textContent = it;
                b.onclick = () => { q.value = it; ul.innerHTML = ''; document.title = 'chose ' + it; };
                li.appendChild(b); ul.appendChild(li);
              }
            });
          </script></body></html>""",
          "/login",
          """
          <!doctype html><html><head><title>Sign in</title></head><body>
          <input id="user" aria-label="User">
          <input id="pass" type="password" aria-label="Password">
          <p id="state"></p>
          <script>
            document.getElementById('user').addEventListener('keydown', (e) => {
              if (e.key === 'Enter') document.getElementById('pass').focus();
            });
            document.getElementById('pass').addEventListener('input', (e) =>
              document.getElementById('state').textContent = 'password has ' + e.target.value.length);
          </script></body></html>""");

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

  static ToolResult open(String agent, String path) {
    ToolResult r = call(agent, "browser_open", Map.of("url", browser.url(path)));
    assertFalse(r.isError(), r.text());
    return r;
  }

  static Map<String, Object> with(Map<String, Object> target, Object... more) {
    var m = new HashMap<>(target);
    for (int i = 0; i < more.length; i += 2) {
      m.put((String) more[i], more[i + 1]);
    }
    return m;
  }

  static String text(ToolResult r) {
    return (String) LocalBrowser.observation(r).get("text");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> recordedAction(ToolResult r) {
    var transition = (Map<String, Object>) r.structured().get("transition");
    return (Map<String, Object>) transition.get("action");
  }

  @Test
  void aRightClickOpensTheContextMenuHandlerAndADoubleClickDoubleClicks() {
    ToolResult page = open("clicks", "/clicks");
    ToolResult right =
        call(
            "clicks",
            "browser_click",
            with(LocalBrowser.target(page, "Target"), "button", "right"));
    assertFalse(right.isError(), right.text());
    assertTrue(text(right).contains("context menu, button 2"), right.text());
    assertEquals("right", recordedAction(right).get("button"), right.text());

    ToolResult twice =
        call(
            "clicks",
            "browser_click",
            with(LocalBrowser.target(right, "Target"), "click_count", 2));
    assertTrue(text(twice).contains("double-clicked"), twice.text());
    assertEquals(2, ((Number) recordedAction(twice).get("click_count")).intValue());

    ToolResult middle =
        call(
            "clicks",
            "browser_click",
            with(LocalBrowser.target(twice, "Target"), "button", "middle"));
    assertTrue(text(middle).contains("middle-clicked"), middle.text());
  }

  @Test
  void aClickAtAnOffsetLandsAtThatPointOfTheBoxAndAnOffsetOutsideItIsRefusedWithTheBoxSize() {
    ToolResult page = open("offset", "/clicks");
    ToolResult at =
        call(
            "offset",
            "browser_click",
            with(LocalBrowser.target(page, "Pad"), "offset_x", 150, "offset_y", 20));
    assertFalse(at.isError(), at.text());
    assertTrue(text(at).contains("pad at 150,20"), at.text());

    ToolResult outside =
        call(
            "offset",
            "browser_click",
            with(LocalBrowser.target(at, "Pad"), "offset_x", 250, "offset_y", 20));
    assertTrue(outside.isError(), outside.text());
    assertTrue(outside.text().contains("code=BROWSER_INVALID_ARGUMENT"), outside.text());
    assertTrue(outside.text().contains("200 x 100"), outside.text());

    ToolResult half =
        call("offset", "browser_click", with(LocalBrowser.target(at, "Pad"), "offset_x", 5));
    assertTrue(half.isError(), half.text());
    assertTrue(half.text().contains("offset_x and offset_y go together"), half.text());
  }

  @Test
  void aDragReordersAnHtmlDragAndDropList() {
    ToolResult page = open("html-drag", "/sortable");
    assertTrue(text(page).contains("order: Apples, Bananas, Cherries"), page.text());
    ToolResult dragged =
        call(
            "html-drag",
            "browser_drag",
            with(
                LocalBrowser.target(page, "Cherries"),
                "to_element_ref",
                LocalBrowser.element(page, "Apples").get("ref")));
    assertFalse(dragged.isError(), dragged.text());
    assertTrue(text(dragged).contains("order: Cherries, Apples, Bananas"), dragged.text());
    assertEquals("drag", recordedAction(dragged).get("kind"));
  }

  @Test
  void aDragReordersAPointerDrivenBoard() {
    ToolResult page = open("pointer-drag", "/pointer-sortable");
    ToolResult dragged =
        call(
            "pointer-drag",
            "browser_drag",
            with(
                LocalBrowser.target(page, "Write"),
                "to_element_ref",
                LocalBrowser.element(page, "Ship").get("ref")));
    assertFalse(dragged.isError(), dragged.text());
    assertTrue(text(dragged).contains("order: Review, Ship, Write"), dragged.text());
  }

  @Test
  void typingKeyByKeyOpensAnAutocompleteWhoseSuggestionCanBeChosen() {
    ToolResult page = open("type", "/autocomplete");
    ToolResult typed =
        call(
            "type",
            "browser_type",
            with(LocalBrowser.target(page, "Product"), "text", "lam", "delay_ms", 20));
    assertFalse(typed.isError(), typed.text());
    assertTrue(text(typed).contains("keys: 3"), typed.text());
    Map<String, Object> action = recordedAction(typed);
    assertEquals("[REDACTED]", action.get("value"), action.toString());
    assertFalse(typed.structured().toString().contains("\"lam\""), typed.structured().toString());

    ToolResult chose = call("type", "browser_click", LocalBrowser.target(typed, "Lamps"));
    assertEquals("chose Lamps", LocalBrowser.observation(chose).get("title"), chose.text());

    // Into whatever has focus: a click puts the focus in the field, the keys go there.
    ToolResult focused = call("type", "browser_click", LocalBrowser.target(chose, "Product"));
    ToolResult more = call("type", "browser_type", Map.of("text", "x"));
    assertFalse(more.isError(), more.text());
    assertTrue(text(more).contains("keys: 4"), more.text() + focused.text());
  }

  @Test
  void typingIntoAPasswordFieldIsRefusedByRefByFocusAndWhenEnterMovesTheFocusThere() {
    ToolResult page = open("secret", "/login");
    ToolResult byRef =
        call(
            "secret",
            "browser_type",
            with(LocalBrowser.target(page, "Password"), "text", "hunter2"));
    assertTrue(byRef.isError(), byRef.text());
    assertTrue(byRef.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), byRef.text());
    // By default a password the user gave is refused too, and the refusal names the setting.
    assertTrue(byRef.text().contains("credentials.modelTypedPasswords: allow"), byRef.text());
    Map<String, Object> fill = new HashMap<>(LocalBrowser.target(page, "Password"));
    fill.put("value", "hunter2");
    ToolResult filled = call("secret", "browser_fill", fill);
    assertTrue(filled.text().contains("credentials.modelTypedPasswords: allow"), filled.text());
    ToolResult pressed =
        call("secret", "browser_press", with(LocalBrowser.target(page, "Password"), "key", "h"));
    assertTrue(pressed.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), pressed.text());

    ToolResult moved =
        call(
            "secret",
            "browser_type",
            with(LocalBrowser.target(page, "User"), "text", "ada\nhunter2"));
    assertTrue(moved.isError(), moved.text());
    assertTrue(moved.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), moved.text());

    ToolResult focus = call("secret", "browser_observe", Map.of("mode", "document"));
    assertFalse(text(focus).contains("password has"), focus.text());
    ToolResult byFocus = call("secret", "browser_type", Map.of("text", "hunter2"));
    assertTrue(byFocus.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), byFocus.text());
    ToolResult after = call("secret", "browser_observe", Map.of("mode", "document"));
    assertFalse(text(after).contains("password has"), after.text());
    assertFalse(after.text().contains("hunter2"), after.text());
  }

  @Test
  void typingIntoAPasswordFieldFocusedInsideAFrameIsRefused() {
    ToolResult page = open("framed", "/framed-login");
    ToolResult clicked = call("framed", "browser_click", LocalBrowser.target(page, "Password"));
    assertFalse(clicked.isError(), clicked.text());
    ToolResult typed = call("framed", "browser_type", Map.of("text", "hunter2"));
    assertTrue(typed.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), typed.text());
    ToolResult user = call("framed", "browser_click", LocalBrowser.target(clicked, "User"));
    ToolResult name = call("framed", "browser_type", Map.of("text", "ada"));
    assertFalse(name.isError(), name.text() + user.text());
  }

  @Test
  void controlCharactersOtherThanALineBreakAreRefusedBeforeAnythingIsTyped() {
    ToolResult page = open("tab", "/login");
    ToolResult tabbed =
        call(
            "tab", "browser_type", with(LocalBrowser.target(page, "User"), "text", "ada\thunter2"));
    assertTrue(tabbed.isError(), tabbed.text());
    assertTrue(tabbed.text().contains("code=BROWSER_INVALID_ARGUMENT"), tabbed.text());
    assertTrue(tabbed.text().contains("U+0009"), tabbed.text());
  }
}
