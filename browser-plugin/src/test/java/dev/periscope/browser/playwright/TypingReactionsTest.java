package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.element;
import static dev.periscope.browser.playwright.LocalBrowser.names;
import static dev.periscope.browser.playwright.LocalBrowser.target;
import static dev.periscope.browser.playwright.LocalBrowser.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import dev.periscope.api.tool.ToolResult;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Typing that a page reacts to: the observation after browser_fill or browser_type shows the
 * suggestions the keys opened (after the widget's own pause, or after the request it made), with
 * each option an element that can be chosen (jQuery UI's autocomplete demos).
 */
class TypingReactionsTest {
  /** Part of the remote demo's bird list: common name, Latin name. */
  static final Map<String, String> BIRDS =
      Map.of(
          "Great Bittern", "Botaurus stellaris",
          "Little Grebe", "Tachybaptus ruficollis",
          "Black-necked Grebe", "Podiceps nigricollis",
          "Little Bittern", "Ixobrychus minutus",
          "Purple Heron", "Ardea purpurea",
          "White Stork", "Ciconia ciconia");

  static final AtomicInteger searches = new AtomicInteger();

  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser =
        new LocalBrowser(
            Map.of("/shop", SHOP),
            Map.of(
                "/pages/",
                PageCorpus.handler(),
                "/pages/jquery-ui/search.json",
                TypingReactionsTest::search,
                "/cart",
                TypingReactionsTest::cart));
  }

  /** A shop whose cart line is drawn from the answer of the request "Add to cart" makes. */
  static final String SHOP =
      """
      <!doctype html><title>Shop</title>
      <h1>Canvas Tote</h1>
      <button id="add">Add to cart</button>
      <p id="cart">Your cart is empty.</p>
      <script>
        document.getElementById('add').addEventListener('click', async () => {
          const answer = await fetch('/cart', { method: 'POST', body: 'tote' });
          document.getElementById('cart').textContent = await answer.text();
        });
      </script>
      """;

  /** As a cart service answers, a little later. */
  static void cart(HttpExchange exchange) throws IOException {
    exchange.getRequestBody().readAllBytes();
    try {
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    byte[] body = "Your cart: 1 item, Canvas Tote".getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Test
  void aClickThatFetchesShowsWhatTheAnswerDrew() {
    ToolResult page = browser.open("shop", "/shop", "document");
    ToolResult added = browser.call("shop", "browser_click", target(page, "Add to cart"));
    assertFalse(added.isError(), added.text());
    assertTrue(text(added).contains("Your cart: 1 item, Canvas Tote"), added.text());
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  /** As a search service answers, a little later: the birds whose name holds the term. */
  static void search(HttpExchange exchange) throws IOException {
    searches.incrementAndGet();
    String query = exchange.getRequestURI().getRawQuery();
    String term =
        URLDecoder.decode(
                query == null ? "" : query.replaceFirst(".*term=", ""), StandardCharsets.UTF_8)
            .toLowerCase(Locale.ROOT);
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    String json =
        BIRDS.entrySet().stream()
            .filter(b -> b.getKey().toLowerCase(Locale.ROOT).contains(term))
            .sorted(Map.Entry.comparingByKey())
            .map(
                b ->
                    "{\"id\":\""
                        + b.getValue()
                        + "\",\"label\":\""
                        + b.getKey()
                        + "\",\"value\":\""
                        + b.getKey()
                        + "\"}")
            .collect(Collectors.joining(",", "[", "]"));
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Test
  void fillingAnAutocompleteShowsItsSuggestionsAsElementsThatCanBeChosen() {
    ToolResult page = browser.open("local", "/pages/jquery-ui/autocomplete.html", "interactive");
    ToolResult filled =
        browser.call("local", "browser_fill", with(target(page, "Tags:"), "value", "ja"));
    assertFalse(filled.isError(), filled.text());
    assertTrue(
        names(filled).containsAll(List.of("Java", "JavaScript")),
        "the suggestions after the widget's 300 ms pause: " + filled.text());
    ToolResult chosen = browser.call("local", "browser_click", target(filled, "JavaScript"));
    assertFalse(chosen.isError(), chosen.text());
    assertEquals("JavaScript", element(chosen, "Tags:").get("value"), chosen.text());
    assertFalse(names(chosen).contains("Java"), "the menu closed: " + chosen.text());
  }

  @Test
  void typingIntoARemoteAutocompleteWaitsForTheSearchItStartedAndItsAnswer() {
    ToolResult page =
        browser.open("remote", "/pages/jquery-ui/autocomplete-remote.html", "interactive");
    int before = searches.get();
    ToolResult typed =
        browser.call("remote", "browser_type", with(target(page, "Birds:"), "text", "grebe"));
    assertFalse(typed.isError(), typed.text());
    assertTrue(searches.get() > before, "the page asked the server");
    assertTrue(
        names(typed).containsAll(List.of("Black-necked Grebe", "Little Grebe")),
        "the answer, drawn: " + typed.text());
    ToolResult chosen = browser.call("remote", "browser_click", target(typed, "Little Grebe"));
    assertFalse(chosen.isError(), chosen.text());
    ToolResult after = browser.call("remote", "browser_observe", Map.of("mode", "document"));
    assertTrue(
        text(after).contains("Selected: Little Grebe aka Tachybaptus ruficollis"), after.text());
  }

  @Test
  void theAuthoringPracticesComboboxListsTheOptionsItsTypingLeavesAndTakesAChord() {
    ToolResult page = browser.open("apg", "/pages/apg/combobox.html", "interactive");
    assertFalse(names(page).contains("New York"), "closed at load: " + page.text());
    ToolResult typed =
        browser.call("apg", "browser_type", with(target(page, "State"), "text", "new"));
    assertFalse(typed.isError(), typed.text());
    List<String> names = names(typed);
    assertTrue(
        names.containsAll(List.of("New Hampshire", "New Jersey", "New Mexico", "New York")),
        typed.text());
    assertFalse(names.contains("Nebraska"), "only what starts with it: " + typed.text());
    assertTrue(LocalBrowser.state(typed, "State").contains("expanded"), typed.text());
    ToolResult chosen = browser.call("apg", "browser_click", target(typed, "New York"));
    assertEquals("New York", element(chosen, "State").get("value"), chosen.text());
    assertFalse(names(chosen).contains("New Jersey"), "closed: " + chosen.text());

    ToolResult cleared =
        browser.call("apg", "browser_fill", with(target(chosen, "State"), "value", ""));
    ToolResult opened =
        browser.call(
            "apg", "browser_press", with(target(cleared, "State"), "key", "Alt+ArrowDown"));
    assertFalse(opened.isError(), opened.text());
    assertTrue(names(opened).contains("Alabama"), opened.text());
    ToolResult all = browser.call("apg", "browser_observe", Map.of("mode", "interactive"));
    assertTrue(
        names(all).contains("Wyoming"),
        "the options past the listbox's edge are scrolled to within it: " + all.text());
  }

  @Test
  void aDatalistsSuggestionsShowAsOptionsAndAClickChoosesOne() {
    ToolResult page = browser.open("datalist", "/pages/shapes/datalist.html", "interactive");
    assertFalse(names(page).contains("Coconut"), "nothing suggested at load: " + page.text());
    ToolResult typed =
        browser.call(
            "datalist", "browser_fill", with(target(page, "Choose a flavor:"), "value", "co"));
    assertFalse(typed.isError(), typed.text());
    assertTrue(names(typed).containsAll(List.of("Chocolate", "Coconut")), typed.text());
    assertFalse(names(typed).contains("Mint"), "only what holds the typed text: " + typed.text());
    assertTrue(typed.text().contains("option — Coconut"), typed.text());
    assertTrue(
        names(typed).indexOf("Coconut") == names(typed).indexOf("Choose a flavor:") + 2,
        "listed right under the field: " + names(typed));

    ToolResult chosen = browser.call("datalist", "browser_click", target(typed, "Coconut"));
    assertFalse(chosen.isError(), chosen.text());
    assertEquals("Coconut", element(chosen, "Choose a flavor:").get("value"), chosen.text());
    assertFalse(names(chosen).contains("Chocolate"), "the popup closed: " + chosen.text());
    assertTrue(chosen.text().contains("Changed flavor to Coconut"), chosen.text());

    // An option with a label: found by its label, named by the value it puts in, the label beside.
    ToolResult country =
        browser.call(
            "datalist",
            "browser_type",
            with(target(chosen, "Ship to (country code):"), "text", "portu"));
    assertFalse(country.isError(), country.text());
    assertEquals(List.of("PT"), names(country).stream().filter(n -> n.length() == 2).toList());
    assertEquals("Portugal", element(country, "PT").get("hint"), country.text());
    ToolResult shipped = browser.call("datalist", "browser_click", target(country, "PT"));
    assertEquals("PT", element(shipped, "Ship to (country code):").get("value"), shipped.text());
    assertTrue(shipped.text().contains("Changed country to PT"), shipped.text());

    // A disabled option is never offered.
    ToolResult united =
        browser.call(
            "datalist",
            "browser_fill",
            with(target(shipped, "Ship to (country code):"), "value", "united"));
    assertFalse(names(united).contains("GB"), united.text());
  }

  private static Map<String, Object> with(Map<String, Object> args, String key, Object value) {
    Map<String, Object> m = new HashMap<>(args);
    m.put(key, value);
    return m;
  }
}
