package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.element;
import static dev.periscope.browser.playwright.LocalBrowser.names;
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
 * Targets as a person sees them: listeners of every kind a hand triggers make targets, and a list
 * whose one listener handles its items' events lists each item's own text instead of itself.
 */
class DelegatedTargetsTest {
  /** Invoices whose rows open on a click, handled once on the table body. */
  static final String TABLE =
      """
      <!doctype html><title>Invoices</title>
      <table><thead><tr><th>Invoice</th><th>Customer</th><th>Total</th></tr></thead>
      <tbody id="rows">
        <tr><td>Invoice #2041</td><td>Acme Corp</td><td>$120.00</td></tr>
        <tr><td>Invoice #2042</td><td>Globex</td><td>$75.50</td></tr>
        <tr><td>Invoice #2043</td><td>Initech</td><td>$310.00</td></tr>
      </tbody></table>
      <p id="status" role="status">No invoice open</p>
      <script>
        document.getElementById('rows').addEventListener('click', (e) => {
          const row = e.target.closest('tr');
          document.getElementById('status').textContent = 'Opened ' + row.cells[0].textContent;
        });
      </script>
      """;

  /** One element per kind of listener, each without semantics, and what must stay no target. */
  static final String KINDS =
      """
      <!doctype html><title>Kinds</title>
      <div id="menu">Right-click me</div>
      <div id="up">Release on me</div>
      <span id="twice">Double-click me</span>
      <div id="keys" tabindex="-1">Focus and type</div>
      <div id="deaf">Keys without focus</div>
      <div id="root"><div class="app"><h1>App</h1><p>First paragraph</p><p>Second paragraph</p></div></div>
      <p id="status" role="status">Nothing yet</p>
      <script>
        const say = (t) => { document.getElementById('status').textContent = t; };
        document.getElementById('menu').addEventListener('contextmenu', (e) => { e.preventDefault(); say('menu'); });
        document.getElementById('up').addEventListener('mouseup', () => say('up'));
        document.getElementById('twice').addEventListener('dblclick', () => say('twice'));
        document.getElementById('keys').addEventListener('keydown', () => say('keys'));
        document.getElementById('deaf').addEventListener('keydown', () => say('deaf'));
        document.getElementById('root').addEventListener('click', () => say('root'));
      </script>
      """;

  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = LocalBrowser.withCorpus(Map.of("/invoices", TABLE, "/kinds", KINDS));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  @Test
  void doubleClickingAToDosLabelEditsThatToDoNotTheOneAtTheListsCentre() {
    ToolResult page = browser.open("todo", "/pages/shapes/todo.html", "interactive");
    List<String> names = names(page);
    assertTrue(
        names.containsAll(List.of("Buy milk", "Walk the dog", "Write the report")), page.text());
    assertFalse(
        names.stream().anyMatch(n -> n.contains("Buy milk") && n.contains("Walk the dog")),
        "the list is no target named by all its items: " + page.text());

    ToolResult edited =
        browser.call("todo", "browser_click", with(target(page, "Buy milk"), "click_count", 2));
    assertFalse(edited.isError(), edited.text());
    assertEquals("Buy milk", element(edited, "Edit Buy milk").get("value"), edited.text());
    assertTrue(names(edited).contains("Write the report"), "the others stay: " + edited.text());

    ToolResult filled =
        browser.call(
            "todo", "browser_fill", with(target(edited, "Edit Buy milk"), "value", "Buy oat milk"));
    ToolResult saved =
        browser.call(
            "todo", "browser_press", with(target(filled, "Edit Buy milk"), "key", "Enter"));
    assertTrue(names(saved).contains("Buy oat milk"), saved.text());
  }

  @Test
  void eachCellOfATableWhoseBodyHandlesClicksIsATargetThatOpensItsRow() {
    ToolResult page = browser.open("table", "/invoices", "interactive");
    assertTrue(names(page).containsAll(List.of("Invoice #2042", "Globex", "$310.00")), page.text());
    ToolResult opened = browser.call("table", "browser_click", target(page, "Globex"));
    assertFalse(opened.isError(), opened.text());
    ToolResult after = browser.call("table", "browser_observe", Map.of("mode", "document"));
    assertTrue(text(after).contains("Opened Invoice #2042"), after.text());
  }

  @Test
  void everyKindOfListenerAHandTriggersMakesATarget() {
    ToolResult page = browser.open("kinds", "/kinds", "interactive");
    List<String> names = names(page);
    for (String target :
        List.of("Right-click me", "Release on me", "Double-click me", "Focus and type")) {
      assertTrue(names.contains(target), target + " in " + page.text());
    }
    assertFalse(names.contains("Keys without focus"), "keys reach only what has focus");
    assertFalse(
        names.contains("First paragraph") || names.contains("Second paragraph"),
        "an app's root is no list of items: " + page.text());

    ToolResult twice =
        browser.call(
            "kinds", "browser_click", with(target(page, "Double-click me"), "click_count", 2));
    assertFalse(twice.isError(), twice.text());
    ToolResult menu =
        browser.call(
            "kinds", "browser_click", with(target(twice, "Right-click me"), "button", "right"));
    assertFalse(menu.isError(), menu.text());
    ToolResult after = browser.call("kinds", "browser_observe", Map.of("mode", "document"));
    assertTrue(text(after).contains("menu"), after.text());
  }

  private static Map<String, Object> with(Map<String, Object> args, String key, Object value) {
    Map<String, Object> m = new HashMap<>(args);
    m.put(key, value);
    return m;
  }
}
