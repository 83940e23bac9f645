package dev.periscope.browser.playwright;

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
 * A page built from web components, open and closed shadow roots nested in each other, observed,
 * clicked, filled and typed into as the page's own elements are; real Chromium.
 */
class ShadowDomTest {
  static LocalBrowser browser;
  static final Map<String, String> PAGES =
      Map.of(
          "/catalog",
          """
          <!doctype html><html><head><title>Catalog</title></head><body>
          <product-list></product-list>
          <price-table></price-table>
          <script>
            class ProductList extends HTMLElement {
              constructor() {
                super();
                const root = this.attachShadow({ mode: 'closed' });
                root.innerHTML = '<ul>' + [1, 2, 3, 4].map((i) =>
                  `<li><h3><a href="/p/${i}">Product ${i}</a></h3><span>Price ${i}0</span></li>`).join('')
                  + '</ul>';
              }
            }
            class PriceTable extends HTMLElement {
              constructor() {
                super();
                this.attachShadow({ mode: 'open' }).innerHTML = `<table>
                  <tr><th>Plan</th><th>Price</th></tr>
                  <tr><td>Basic</td><td>5</td></tr><tr><td>Pro</td><td>15</td></tr></table>`;
              }
            }
            customElements.define('product-list', ProductList);
            customElements.define('price-table', PriceTable);
          </script></body></html>""",
          "/components",
          """
          <!doctype html><html><head><title>Components</title></head><body>
          <h1>Account</h1>
          <app-shell><span slot="note">Slotted light note</span></app-shell>
          <fancy-button><span>Buy now</span></fancy-button>
          <dsd-card><template shadowrootmode="closed"><button id="d">Declared action</button></template></dsd-card>
          <p id="out">nothing yet</p>
          <script>
            const out = (s) => document.getElementById('out').textContent = s;
            class LoginForm extends HTMLElement {
              constructor() {
                super();
                // Closed: no script of the page's but this one can reach inside.
                const root = this.attachShadow({ mode: 'closed' });
                root.innerHTML = `<label>Email <input id="email"></label>
                  <label>Password <input id="pw" type="password"></label>
                  <button id="go">Sign in</button>`;
                root.getElementById('go').addEventListener('click', () =>
                  out('signed in as ' + root.getElementById('email').value));
                root.getElementById('email').addEventListener('keydown', () => this.keys = (this.keys || 0) + 1);
              }
            }
            class AppShell extends HTMLElement {
              constructor() {
                super();
                const root = this.attachShadow({ mode: 'open' });
                root.innerHTML = `<nav><a href="/components#help">Help center</a></nav>
                  <p>Shadow greeting text</p><slot name="note"></slot><login-form></login-form>
                  <button id="more">Show more</button>`;
                root.getElementById('more').addEventListener('click', () => out('more shown'));
              }
            }
            class FancyButton extends HTMLElement {
              constructor() {
                super();
                // Its label is slotted: a click at its centre lands on the light-DOM span.
                const root = this.attachShadow({ mode: 'open' });
                root.innerHTML = '<button id="b" style="padding: 12px"><slot></slot></button>';
                root.getElementById('b').addEventListener('click', () => out('bought'));
              }
            }
            class DsdCard extends HTMLElement {
              constructor() {
                super();
                // Its closed root was declared in the HTML: it reaches it through its internals.
                const root = this.attachInternals().shadowRoot;
                root.getElementById('d').addEventListener('click', () => out('declared clicked'));
              }
            }
            customElements.define('dsd-card', DsdCard);
            customElements.define('fancy-button', FancyButton);
            customElements.define('login-form', LoginForm);
            customElements.define('app-shell', AppShell);
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

  static String text(ToolResult r) {
    return (String) LocalBrowser.observation(r).get("text");
  }

  @Test
  void elementsInOpenAndClosedShadowRootsAreObservedInDocumentOrderWithTheirSections() {
    ToolResult page =
        call("see", "browser_open", Map.of("url", browser.url("/components"), "mode", "document"));
    assertFalse(page.isError(), page.text());
    List<String> names =
        LocalBrowser.elements(page).stream().map(e -> (String) e.get("name")).toList();
    assertTrue(
        names.containsAll(List.of("Help center", "Email", "Password", "Sign in", "Show more")),
        page.text());
    assertEquals("navigation", LocalBrowser.element(page, "Help center").get("section"));
    assertEquals("input:password", LocalBrowser.element(page, "Password").get("kind"), page.text());
    assertTrue(text(page).contains("Shadow greeting text"), page.text());
    assertTrue(text(page).contains("Slotted light note"), page.text());
    assertEquals(
        1, text(page).split("Slotted light note", -1).length - 1, "shown once: " + page.text());
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, String>> rows(ToolResult r) {
    return (List<Map<String, String>>) r.structured().get("rows");
  }

  @Test
  void listsTablesAndLinksInOpenAndClosedShadowRootsAreExtracted() {
    ToolResult page = call("extract", "browser_open", Map.of("url", browser.url("/catalog")));
    assertFalse(page.isError(), page.text());
    ToolResult list = call("extract", "browser_extract_list", Map.of());
    assertFalse(list.isError(), list.text());
    assertEquals(4, rows(list).size(), list.text());
    assertEquals("Product 1", rows(list).get(0).get("title"));
    assertEquals(browser.url("/p/1"), rows(list).get(0).get("url"));
    assertTrue(rows(list).get(1).get("text").contains("Price 20"), list.text());
    // A record's link, a ref inside the closed root, stands for its listing.
    ToolResult region =
        call(
            "extract",
            "browser_extract_list",
            Map.of(
                "observation_id",
                LocalBrowser.observation(page).get("id"),
                "region_ref",
                LocalBrowser.element(page, "Product 3").get("ref")));
    assertEquals(4, rows(region).size(), region.text());
    ToolResult table = call("extract", "browser_extract_table", Map.of());
    assertEquals(List.of("index", "Plan", "Price"), table.structured().get("columns"));
    assertEquals(Map.of("index", "1", "Plan", "Basic", "Price", "5"), rows(table).get(0));
    ToolResult links = call("extract", "browser_extract_links", Map.of());
    assertEquals(
        List.of("Product 1", "Product 2", "Product 3", "Product 4"),
        rows(links).stream().map(r -> r.get("text")).toList(),
        links.text());
    ToolResult article = call("extract", "browser_extract_article", Map.of());
    assertTrue(rows(article).get(0).get("text").contains("Product 4"), article.text());
    assertTrue(rows(article).get(0).get("text").contains("Pro"), article.text());
  }

  @Test
  void aFieldAndAButtonInAClosedShadowRootAreFilledTypedAndClicked() {
    ToolResult page = call("act", "browser_open", Map.of("url", browser.url("/components")));
    Map<String, Object> email = new HashMap<>(LocalBrowser.target(page, "Email"));
    email.put("value", "ada@example.test");
    ToolResult filled = call("act", "browser_fill", email);
    assertFalse(filled.isError(), filled.text());
    ToolResult signed = call("act", "browser_click", LocalBrowser.target(filled, "Sign in"));
    assertFalse(signed.isError(), signed.text());
    assertTrue(signed.text().contains("signed in as ada@example.test"), signed.text());

    ToolResult more = call("act", "browser_click", LocalBrowser.target(signed, "Show more"));
    assertTrue(more.text().contains("more shown"), more.text());
    assertFalse(
        Boolean.TRUE.equals(LocalBrowser.element(more, "Show more").get("covered")),
        "an element in a shadow root is not covered by its own host: " + more.text());

    Map<String, Object> typed = new HashMap<>(LocalBrowser.target(more, "Email"));
    typed.put("text", "x");
    ToolResult keyed = call("act", "browser_type", typed);
    assertFalse(keyed.isError(), keyed.text());
  }

  @Test
  void aButtonWhoseLabelIsSlottedIsNotCoveredByItsLabelAndIsClicked() {
    ToolResult page = call("slot", "browser_open", Map.of("url", browser.url("/components")));
    assertEquals(
        false, LocalBrowser.element(page, "Buy now").getOrDefault("covered", false), page.text());
    ToolResult bought = call("slot", "browser_click", LocalBrowser.target(page, "Buy now"));
    assertFalse(bought.isError(), bought.text());
    assertTrue(bought.text().contains("bought"), bought.text());
  }

  @Test
  void aClosedRootDeclaredInHtmlIsObservedAndClickedThroughItsElementsInternals() {
    ToolResult page =
        call(
            "declared",
            "browser_open",
            Map.of("url", browser.url("/components"), "mode", "interactive"));
    assertFalse(page.isError(), page.text());
    ToolResult clicked =
        call("declared", "browser_click", LocalBrowser.target(page, "Declared action"));
    assertFalse(clicked.isError(), clicked.text());
    assertTrue(clicked.text().contains("declared clicked"), clicked.text());
  }

  @Test
  void thePasswordFieldOfAClosedShadowRootIsRefusedByRefAndByFocus() {
    ToolResult page = call("secret", "browser_open", Map.of("url", browser.url("/components")));
    Map<String, Object> pw = new HashMap<>(LocalBrowser.target(page, "Password"));
    pw.put("value", "hunter2");
    ToolResult filled = call("secret", "browser_fill", pw);
    assertTrue(filled.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), filled.text());

    ToolResult focused = call("secret", "browser_click", LocalBrowser.target(page, "Password"));
    assertFalse(focused.isError(), focused.text());
    ToolResult typed = call("secret", "browser_type", Map.of("text", "hunter2"));
    assertTrue(typed.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), typed.text());
  }
}
