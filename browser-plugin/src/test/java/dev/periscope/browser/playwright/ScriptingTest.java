package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.browser.Transition;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalRequest;
import dev.periscope.api.host.ApprovalService;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.runtime.CredentialChannel;
import dev.periscope.browser.runtime.PageScripting;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code browser_evaluate} on real Chromium: a script runs only once the approval service, shown
 * its text and the page's origin, allows it; its value comes back as JSON inside the page fence,
 * bounded and redacted; it never runs in a tab where a secret was filled; its requests stay under
 * the network policy; the transitions keep its length and hash, never its text.
 */
class ScriptingTest {
  /** With a quote and a backslash, which JSON escapes: its escaped copy is redacted too. */
  static final String PASSWORD = "Pw\"" + UUID.randomUUID().toString().substring(0, 12) + "\\q";

  /** The password as a script spells it without holding it. */
  static String spelled(String secret) {
    StringBuilder codes = new StringBuilder();
    for (char c : secret.toCharArray()) {
      codes.append(codes.length() == 0 ? "" : ",").append((int) c);
    }
    return "String.fromCharCode(" + codes + ")";
  }

  static final String PAGE =
      """
      <!doctype html><html><head><title>Orders</title></head><body>
      <h1>Orders</h1><p id="total">3 orders</p>
      <label for="pw">Password</label><input id="pw" type="password">
      <button onclick="window.open('about:blank')">Blank window</button>
      <script>window.shop = {orders: [{id: 7, sum: 12.5}, {id: 9, sum: 3}]};</script>
      </body></html>""";

  static LocalBrowser browser;

  /** A second origin, 127.0.0.2, with the same page. */
  static com.sun.net.httpserver.HttpServer second;

  static final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
  static final AtomicReference<ApprovalDecision> answer = new AtomicReference<>();

  @BeforeAll
  static void start() throws Exception {
    ApprovalService approval =
        (request, cancellation) -> {
          asked.add(request);
          return answer.get();
        };
    CredentialChannel typedPasswords =
        new CredentialChannel(
            Optional.empty(), Map.of(), name -> null, true, Optional.empty(), true);
    browser =
        new LocalBrowser(
            Map.of("/orders", PAGE),
            Map.of(),
            typedPasswords,
            LocalBrowser.withLoopback(Map.of("actionTimeoutMs", 1500)),
            Optional.empty(),
            new PageScripting(true, Optional.of(approval)));
    second =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getByName("127.0.0.2"), 0), 0);
    second.createContext("/", exchange -> LocalBrowser.respond(exchange, PAGE));
    second.start();
  }

  @AfterAll
  static void stop() {
    browser.close();
    second.stop(0);
  }

  static String secondUrl(String path) {
    return "http://127.0.0.2:" + second.getAddress().getPort() + path;
  }

  @BeforeEach
  void allow() {
    asked.clear();
    answer.set(ApprovalDecision.ALLOW_ONCE);
  }

  static ToolResult evaluate(String agent, String expression) {
    return browser.call(agent, "browser_evaluate", Map.of("expression", expression));
  }

  @Test
  void anApprovedScriptGivesItsValueAsJsonInsideThePageFence() {
    browser.open("approved", "/orders", "summary");
    String script = "() => ({title: document.title, orders: window.shop.orders, none: null})";
    ToolResult r = evaluate("approved", script);
    assertFalse(r.isError(), r.text());
    String json =
        "{\"title\":\"Orders\",\"orders\":[{\"id\":7,\"sum\":12.5},{\"id\":9,\"sum\":3}],\"none\":null}";
    assertTrue(r.text().startsWith("Script result, JSON of " + json.length()), r.text());
    int fence = r.text().indexOf("<<page-content nonce=");
    assertTrue(fence > 0 && r.text().indexOf(json) > fence, "inside the fence: " + r.text());
    @SuppressWarnings("unchecked")
    Map<String, Object> result = (Map<String, Object>) r.structured().get("result");
    assertEquals(json, result.get("json"));
    assertEquals(false, result.get("truncated"));
    assertTrue(String.valueOf(r.structured().get("page_content")).contains("fenced=true"));

    assertEquals(1, asked.size(), "asked once: " + asked);
    ApprovalRequest request = asked.get(0);
    assertEquals("browser_evaluate", request.toolName());
    assertEquals("http://127.0.0.1:" + browser.port(), request.origin());
    assertTrue(
        request.reason().contains(script), "the person sees the script: " + request.reason());

    Transition t = lastTransition();
    assertEquals("evaluate", t.action().get("kind"));
    assertEquals(script.length(), t.action().get("expression_chars"));
    assertEquals(64, String.valueOf(t.action().get("expression_sha256")).length());
    assertFalse(
        browser.runtime().transitions().toString().contains("window.shop"),
        "the transitions keep no script text");
  }

  @Test
  void aScriptNobodyApprovedDoesNotRun() {
    browser.open("refused", "/orders", "summary");
    answer.set(ApprovalDecision.DENY);
    ToolResult r = evaluate("refused", "document.title = 'changed'");
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains("BROWSER_POLICY_DENIED"), r.text());
    assertTrue(r.text().contains("was not approved"), r.text());
    answer.set(ApprovalDecision.ALLOW_ONCE);
    ToolResult title = evaluate("refused", "document.title");
    assertTrue(title.text().contains("\"Orders\""), "it did not run: " + title.text());
  }

  @Test
  void noScriptRunsWhereASecretWasFilledAndNobodyIsAsked() {
    ToolResult page = browser.open("secret", "/orders", "document");
    Map<String, Object> args = new HashMap<>(LocalBrowser.target(page, "Password"));
    args.put("value", PASSWORD);
    ToolResult filled = browser.call("secret", "browser_fill", args);
    assertFalse(filled.isError(), filled.text());
    ToolResult r = evaluate("secret", "document.getElementById('pw').value");
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains("a secret was filled in this tab"), r.text());
    assertTrue(asked.isEmpty(), "nobody was asked: " + asked);

    // Another tab of the same origin could read the field through its opener or a handle.
    ToolResult sameOrigin =
        browser.call(
            "secret", "browser_tabs", Map.of("action", "open", "url", browser.url("/orders")));
    assertFalse(sameOrigin.isError(), sameOrigin.text());
    ToolResult fromThere = evaluate("secret", "() => window.opener");
    assertTrue(
        fromThere.text().contains("a secret was filled in this tab or on a page of"),
        fromThere.text());
    assertTrue(asked.isEmpty(), "nobody was asked: " + asked);

    // A page of another origin runs scripts; a value that is the secret comes back redacted, its
    // JSON-escaped copy too (the password holds a quote and a backslash).
    ToolResult other =
        browser.call(
            "secret", "browser_tabs", Map.of("action", "open", "url", secondUrl("/orders")));
    assertFalse(other.isError(), other.text());
    ToolResult echoed = evaluate("secret", "({said: " + spelled(PASSWORD) + "})");
    assertFalse(echoed.isError(), echoed.text());
    String shown = echoed.text() + echoed.structured();
    assertFalse(shown.contains(PASSWORD), echoed.text());
    assertFalse(
        shown.contains(PASSWORD.replace("\\", "\\\\").replace("\"", "\\\"")), echoed.text());
    assertTrue(echoed.text().contains("{\"said\":\"[REDACTED:typed-password]\"}"), echoed.text());

    // A script that holds the secret itself is shown to no one and not run.
    asked.clear();
    ToolResult holding =
        evaluate("secret", "'" + PASSWORD.replace("\\", "\\\\").replace("\"", "\\\"") + "'.length");
    assertTrue(holding.isError(), holding.text());
    assertTrue(holding.text().contains("holds a secret of this session"), holding.text());
    assertTrue(asked.isEmpty(), "nobody was shown it: " + asked);
    assertFalse((holding.text() + holding.structured()).contains(PASSWORD), holding.text());
  }

  @Test
  void aPageWithoutAnOriginOfItsOwnRunsNoScript() {
    ToolResult page = browser.open("blank", "/orders", "document");
    // A window of about:blank shares its opener's origin: a script there could reach the opener.
    ToolResult opened =
        browser.call("blank", "browser_click", LocalBrowser.target(page, "Blank window"));
    assertFalse(opened.isError(), opened.text());
    ToolResult blank = browser.call("blank", "browser_tabs", Map.of("action", "select", "tab", 2));
    assertFalse(blank.isError(), blank.text());
    ToolResult r = evaluate("blank", "1 + 1");
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains("no origin of its own"), r.text());
    assertTrue(asked.isEmpty(), "nobody was asked: " + asked);
  }

  @Test
  void aValueJsonCannotWriteFailsClearlyAndOddNumbersAreNull() {
    browser.open("odd", "/orders", "summary");
    ToolResult cyclic = evaluate("odd", "() => { const a = {}; a.self = a; return a; }");
    assertTrue(cyclic.isError(), cyclic.text());
    assertTrue(cyclic.text().contains("the script's value is not JSON"), cyclic.text());
    ToolResult numbers =
        evaluate("odd", "({nan: NaN, inf: [Infinity], big: 2 ** 40, when: new Date(0)})");
    assertFalse(numbers.isError(), numbers.text());
    assertTrue(
        numbers
            .text()
            .contains(
                "{\"nan\":null,\"inf\":[null],\"big\":1099511627776,\"when\":\"1970-01-01T00:00:00.000Z\"}"),
        numbers.text());
    ToolResult huge = evaluate("odd", "'x'.repeat(5000000)");
    assertFalse(huge.isError(), huge.text());
    assertTrue(
        huge.text().contains("JSON of 5000002 characters (the first 20000 shown)"), huge.text());
  }

  @Test
  void aLongValueIsCutToItsBoundAndSaysSo() {
    browser.open("long", "/orders", "summary");
    ToolResult r = evaluate("long", "'a'.repeat(50000)");
    assertFalse(r.isError(), r.text());
    @SuppressWarnings("unchecked")
    Map<String, Object> result = (Map<String, Object>) r.structured().get("result");
    assertEquals(20_000, String.valueOf(result.get("json")).length());
    assertEquals(50_002, result.get("chars"));
    assertEquals(true, result.get("truncated"));
    assertTrue(r.text().contains("JSON of 50002 characters (the first 20000 shown)"), r.text());
  }

  @Test
  void aScriptThatThrowsFailsWithItsMessageAndTheSessionGoesOn() {
    browser.open("throws", "/orders", "summary");
    ToolResult r = evaluate("throws", "() => { throw new Error('no such order') }");
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains("BROWSER_ACTION_FAILED"), r.text());
    assertTrue(r.text().contains("no such order"), r.text());
    assertFalse(evaluate("throws", "1 + 1").isError());
  }

  @Test
  void aScriptThatNeverSettlesEndsWithItsCallAndTheSessionGoesOn() {
    browser.open("hangs", "/orders", "summary");
    long start = System.nanoTime();
    ToolResult r = evaluate("hangs", "() => new Promise(() => {})");
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains("the script did not settle within the call's time"), r.text());
    // actionTimeoutMs 1500 and the margin's share: well before the navigation timeout (30 s).
    assertTrue(ms < 10_000, "bounded by the call's deadline: " + ms + " ms");
    ToolResult after = evaluate("hangs", "document.title");
    assertFalse(after.isError(), after.text());
  }

  @Test
  void itsRequestsStayUnderTheNetworkPolicy() throws Exception {
    // A decoy on 127.0.0.3, outside the policy's allowlist: the script's fetch never reaches it.
    java.util.concurrent.atomic.AtomicInteger heard =
        new java.util.concurrent.atomic.AtomicInteger();
    com.sun.net.httpserver.HttpServer decoy =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getByName("127.0.0.3"), 0), 0);
    decoy.createContext(
        "/",
        exchange -> {
          heard.incrementAndGet();
          LocalBrowser.respond(exchange, "decoy");
        });
    decoy.start();
    try {
      browser.open("policy", "/orders", "summary");
      ToolResult r =
          evaluate(
              "policy",
              "() => fetch('http://127.0.0.3:"
                  + decoy.getAddress().getPort()
                  + "/').then(r => 'status ' + r.status, e => 'refused')");
      assertFalse(r.isError(), r.text());
      assertFalse(r.text().contains("status 200"), r.text());
      assertEquals(0, heard.get(), "the decoy heard nothing");
      ToolResult own = evaluate("policy", "() => fetch('/orders').then(r => 'status ' + r.status)");
      assertTrue(own.text().contains("\"status 200\""), own.text());
    } finally {
      decoy.stop(0);
    }
  }

  static Transition lastTransition() {
    List<Transition> all = browser.runtime().transitions();
    return all.get(all.size() - 1);
  }
}
