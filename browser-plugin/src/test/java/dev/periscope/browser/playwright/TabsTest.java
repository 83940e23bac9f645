package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tabs through the tools, on real Chromium: a page an action opens becomes a tab of the same
 * environment, reported in that action's result; {@code browser_tabs} lists, opens (policy first),
 * switches and closes; the tab limit refuses a new tab and closes no old one; a tab's traffic goes
 * through the environment's policy proxy. Pages on 127.0.0.1; a decoy on 127.0.0.3, which the
 * policy does not admit.
 */
class TabsTest {
  static LocalBrowser browser;
  static ServerSocket decoy;
  static final AtomicInteger decoyHits = new AtomicInteger();

  static final String START =
      """
      <!doctype html><html><head><title>Start</title></head><body>
      <a href="/invoice" target="_blank">View invoice</a>
      <button onclick="window.open('/popup', 'pay', 'width=400')">Pay</button>
      <button onclick="window.open('http://127.0.0.3:DECOY/')">Elsewhere</button>
      <button onclick="document.title = confirm('Sure?') ? 'sure' : 'unsure'">Ask</button>
      <script>
        // The OAuth-like end of the popup: it tells its opener, and closes itself.
        addEventListener('message', (e) => { if (e.data === 'authorized') document.title = 'Authorized'; });
      </script>
      </body></html>""";

  @BeforeAll
  static void start() throws Exception {
    decoy = new ServerSocket();
    decoy.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.3"), 0));
    Thread accept =
        new Thread(
            () -> {
              while (!decoy.isClosed()) {
                try (Socket s = decoy.accept()) {
                  decoyHits.incrementAndGet();
                } catch (java.io.IOException e) {
                  return;
                }
              }
            },
            "tabs-decoy");
    accept.setDaemon(true);
    accept.start();
    browser =
        new LocalBrowser(
            Map.of(
                "/start",
                START.replace("DECOY", String.valueOf(decoy.getLocalPort())),
                "/invoice",
                """
                <!doctype html><html><head><title>Invoice 7</title></head><body>
                <p id="n">0</p>
                <button onclick="n.textContent = +n.textContent + 1">Count</button>
                </body></html>""",
                "/popup",
                """
                <!doctype html><html><head><title>Payment</title></head><body>
                <button onclick="window.opener.postMessage('authorized', '*'); window.close()">
                  Done</button>
                <button onclick="setTimeout(() => window.close(), 300)">Close soon</button>
                <button onclick="console.error('card declined: 4242'); window.close()">
                  Decline</button>
                </body></html>""",
                "/later",
                """
                <!doctype html><html><head><title>Later</title></head><body>
                <p>a report comes in a moment</p>
                <script>setTimeout(() => { location.href = '/report.csv'; }, 800);</script>
                </body></html>"""),
            Map.of(
                "/slow",
                exchange -> {
                  try {
                    Thread.sleep(1_500);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  byte[] body =
                      "<!doctype html><title>Slow</title><p>at last"
                          .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                  exchange.getResponseHeaders().set("Content-Type", "text/html");
                  exchange.sendResponseHeaders(200, body.length);
                  try (java.io.OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                  }
                },
                "/report.csv",
                exchange -> {
                  exchange
                      .getResponseHeaders()
                      .set("Content-Disposition", "attachment; filename=report.csv");
                  byte[] body = "a,b\n1,2\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                  exchange.sendResponseHeaders(200, body.length);
                  try (java.io.OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                  }
                }),
            dev.periscope.browser.runtime.CredentialChannel.none(),
            LocalBrowser.withLoopback(Map.of("maxTabs", 3)));
  }

  @AfterAll
  static void stop() throws Exception {
    browser.close();
    decoy.close();
  }

  static ToolResult call(String agent, String tool, Map<String, Object> args) {
    return browser.call(agent, tool, args);
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> tabs(ToolResult r) {
    // The structured form leaves the first tab alone out: it is the default.
    return (List<Map<String, Object>>)
        LocalBrowser.observation(r)
            .getOrDefault(
                "tabs",
                List.of(
                    Map.of(
                        "id", 1, "active", true, "url", LocalBrowser.observation(r).get("url"))));
  }

  static int current(ToolResult r) {
    return tabs(r).stream()
        .filter(t -> Boolean.TRUE.equals(t.get("active")))
        .map(t -> ((Number) t.get("id")).intValue())
        .findFirst()
        .orElseThrow();
  }

  static ToolResult click(String agent, ToolResult on, String name) {
    return call(agent, "browser_click", LocalBrowser.target(on, name));
  }

  static ToolResult open(String agent) {
    ToolResult r =
        call(agent, "browser_open", Map.of("url", browser.url("/start"), "mode", "interactive"));
    assertFalse(r.isError(), r.text());
    return r;
  }

  @Test
  void aLinkToANewWindowOpensATabOfTheSameEnvironmentReportedInTheClicksResult() {
    ToolResult start = open("links");
    assertTrue(start.text().contains("Tab: 1 of 1"), start.text());
    ToolResult clicked = click("links", start, "View invoice");
    assertFalse(clicked.isError(), clicked.text());
    assertTrue(clicked.text().contains("the click opened tab 2"), clicked.text());
    assertTrue(clicked.text().contains("/invoice"), clicked.text());
    // The observation stays on the tab the agent acted in, and says there is another.
    assertEquals(2, tabs(clicked).size(), clicked.text());
    assertEquals(1, current(clicked));
    assertTrue(clicked.text().contains("Tab: 1 of 2"), clicked.text());

    ToolResult second = call("links", "browser_tabs", Map.of("action", "select", "tab", 2));
    assertFalse(second.isError(), second.text());
    assertTrue(second.text().startsWith("Switched to tab 2 (2 open: 1, 2)"), second.text());
    assertEquals(browser.url("/invoice"), LocalBrowser.observation(second).get("url"));
    assertEquals("page-2", LocalBrowser.observation(second).get("page_id"));
    // A ref of tab 1's observation is not tab 2's.
    ToolResult stale = click("links", clicked, "Pay");
    assertTrue(stale.isError(), stale.text());
    assertTrue(stale.text().contains("code=BROWSER_STALE_REFERENCE"), stale.text());
    // The new tab is the environment's own: its page acts as any other.
    ToolResult counted = click("links", second, "Count");
    assertFalse(counted.isError(), counted.text());
    assertTrue(counted.text().contains("\n1\n") || counted.text().contains(" 1\n"), counted.text());
    ToolResult listed = call("links", "browser_tabs", Map.of("action", "list"));
    assertTrue(listed.text().startsWith("On tab 2 (2 open: 1, 2)"), listed.text());
    assertTrue(listed.text().contains("tab 1: Start - " + browser.url("/start")), listed.text());
  }

  @Test
  void anOauthLikePopupIsATabWhoseEndTheOpenerHearsOfWhenItClosesItself() {
    ToolResult start = open("popup");
    ToolResult clicked = click("popup", start, "Pay");
    assertFalse(clicked.isError(), clicked.text());
    assertTrue(clicked.text().contains("opened tab 2"), clicked.text());
    ToolResult payment = call("popup", "browser_tabs", Map.of("action", "select", "tab", 2));
    assertEquals("Payment", LocalBrowser.observation(payment).get("title"));
    ToolResult done = click("popup", payment, "Done");
    assertFalse(done.isError(), done.text());
    assertTrue(done.text().contains("tab 2 closed itself"), done.text());
    assertEquals(browser.url("/start"), LocalBrowser.observation(done).get("url"));
    assertEquals("Authorized", LocalBrowser.observation(done).get("title"), done.text());
    assertEquals(1, tabs(done).size(), done.text());
  }

  @Test
  void whatATabThatClosedItselfComplainedOfIsToldWithItsNumber() {
    ToolResult start = open("declined");
    click("declined", start, "Pay");
    ToolResult payment = call("declined", "browser_tabs", Map.of("action", "select", "tab", 2));
    ToolResult declined = click("declined", payment, "Decline");
    assertFalse(declined.isError(), declined.text());
    assertTrue(declined.text().contains("tab 2 closed itself"), declined.text());
    assertTrue(declined.text().contains("tab 2: the page reported 1 error"), declined.text());
    assertTrue(
        declined.text().contains("tab 2: console error: card declined: 4242"), declined.text());
  }

  @Test
  void refsOfATabThatClosedItselfBetweenCallsAreStaleOnTheTabThatTookItsPlace() throws Exception {
    ToolResult start = open("gone");
    click("gone", start, "Pay");
    ToolResult payment = call("gone", "browser_tabs", Map.of("action", "select", "tab", 2));
    ToolResult soon = click("gone", payment, "Close soon");
    assertFalse(soon.isError(), soon.text());
    // No call runs while the tab closes itself: the lane hears of it, and tab 1 takes its place.
    Thread.sleep(1500);
    ToolResult stale = click("gone", soon, "Done");
    assertTrue(stale.isError(), stale.text());
    assertTrue(stale.text().contains("code=BROWSER_STALE_REFERENCE"), stale.text());
    ToolResult now = call("gone", "browser_observe", Map.of());
    assertEquals(browser.url("/start"), LocalBrowser.observation(now).get("url"));
    assertTrue(now.text().contains("tab 2 closed itself"), now.text());
  }

  @Test
  void aTabHoldingADialogCannotBeLeftUntilItIsAnswered() {
    ToolResult start = open("dialog");
    ToolResult asked = click("dialog", start, "Ask");
    assertFalse(asked.isError(), asked.text());
    assertTrue(asked.text().contains("Dialog open (confirm)"), asked.text());
    ToolResult away =
        call("dialog", "browser_tabs", Map.of("action", "open", "url", browser.url("/invoice")));
    assertTrue(away.isError(), away.text());
    assertTrue(away.text().contains("code=BROWSER_DIALOG_PENDING"), away.text());
    ToolResult answered = call("dialog", "browser_dialog", Map.of("accept", true));
    assertEquals("sure", LocalBrowser.observation(answered).get("title"));
    ToolResult opened =
        call("dialog", "browser_tabs", Map.of("action", "open", "url", browser.url("/invoice")));
    assertFalse(opened.isError(), opened.text());
  }

  @Test
  void aScreenshotAfterATabFailedToOpenNamesThePageItShows() throws Exception {
    open("unreachable");
    int closed;
    try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      closed = gone.getLocalPort();
    }
    String nowhere = "http://127.0.0.1:" + closed + "/nowhere";
    ToolResult failed =
        call("unreachable", "browser_tabs", Map.of("action", "open", "url", nowhere));
    assertTrue(failed.isError(), failed.text());
    ToolResult shot = call("unreachable", "browser_screenshot", Map.of());
    assertFalse(shot.isError(), shot.text());
    @SuppressWarnings("unchecked")
    Map<String, Object> view = (Map<String, Object>) shot.structured().get("view");
    assertEquals(view.get("url"), shot.structured().get("url"), shot.structured().toString());
    assertFalse(
        String.valueOf(shot.structured().get("url")).endsWith("/start"),
        "the picture of tab 2 named as tab 1's page: " + shot.structured());
  }

  /**
   * A background tab whose renderer dies goes, as a browser shows that one tab crashed; the current
   * tab, the agent's refs and the browser are kept (the whole environment used to be discarded).
   */
  @Test
  void aBackgroundTabWhoseRendererCrashesGoesAndTheCurrentTabIsKept() throws Exception {
    open("crash");
    // Another site than the first tab's (127.0.0.1): a renderer of its own.
    com.sun.net.httpserver.HttpServer otherSite =
        com.sun.net.httpserver.HttpServer.create(
            new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0), 0);
    otherSite.createContext(
        "/", e -> LocalBrowser.respond(e, "<!doctype html><title>Other</title><p>another site"));
    otherSite.start();
    try {
      crashTheOtherSitesTab("http://127.0.0.2:" + otherSite.getAddress().getPort() + "/");
    } finally {
      otherSite.stop(0);
    }
  }

  private void crashTheOtherSitesTab(String other) throws Exception {
    java.util.Set<Long> before = renderers();
    ToolResult opened = call("crash", "browser_tabs", Map.of("action", "open", "url", other));
    assertFalse(opened.isError(), opened.text());
    java.util.Set<Long> its = renderers();
    its.removeAll(before);
    assertFalse(its.isEmpty(), "the second tab has no renderer of its own");
    ToolResult first = call("crash", "browser_tabs", Map.of("action", "select", "tab", 1));
    assertFalse(first.isError(), first.text());
    for (long pid : its) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    for (long pid : its) {
      ProcessHandle.of(pid).ifPresent(p -> p.onExit().join());
    }
    ToolResult after = call("crash", "browser_observe", Map.of());
    assertFalse(after.isError(), after.text());
    assertTrue(
        after.text().contains("tab 2's page crashed (its renderer died); the tab was closed"),
        after.text());
    assertEquals("Start", LocalBrowser.observation(after).get("title"), after.text());
    ToolResult clicked = click("crash", after, "View invoice");
    assertFalse(clicked.isError(), clicked.text());
    assertFalse(clicked.text().contains("lease=rebuilt"), clicked.text());
  }

  private static java.util.Set<Long> renderers() {
    return ProcessHandle.current()
        .descendants()
        .filter(
            p -> {
              try {
                return java.nio.file.Files.readString(
                        java.nio.file.Path.of("/proc", String.valueOf(p.pid()), "cmdline"))
                    .contains("--type=renderer");
              } catch (java.io.IOException | java.io.UncheckedIOException e) {
                return false;
              }
            })
        .map(ProcessHandle::pid)
        .collect(java.util.stream.Collectors.toSet());
  }

  @Test
  void aDownloadAnotherTabStartsWhileTheAgentActsIsNotTheActionsAndIsTold() {
    open("bystander");
    ToolResult later =
        call("bystander", "browser_tabs", Map.of("action", "open", "url", browser.url("/later")));
    assertFalse(later.isError(), later.text());
    ToolResult back = call("bystander", "browser_tabs", Map.of("action", "select", "tab", 1));
    assertFalse(back.isError(), back.text());
    // Tab 2's script starts its download while the agent opens a slow page in tab 1.
    ToolResult waited = call("bystander", "browser_open", Map.of("url", browser.url("/slow")));
    assertFalse(waited.isError(), waited.text());
    assertFalse(waited.text().contains("Downloaded"), waited.text());
    assertTrue(
        waited.text().contains("tab 2: the page started a download, which was cancelled"),
        waited.text());
  }

  @Test
  void openSelectAndCloseTabsWithClearErrorsForTabsThatAreNotThere() {
    open("manage");
    ToolResult opened =
        call("manage", "browser_tabs", Map.of("action", "open", "url", browser.url("/invoice")));
    assertFalse(opened.isError(), opened.text());
    assertTrue(opened.text().startsWith("Opened tab 2 (2 open: 1, 2)"), opened.text());
    assertEquals("Invoice 7", LocalBrowser.observation(opened).get("title"));

    ToolResult missing = call("manage", "browser_tabs", Map.of("action", "select", "tab", 9));
    assertTrue(missing.isError(), missing.text());
    assertTrue(missing.text().contains("code=BROWSER_INVALID_ARGUMENT"), missing.text());
    assertTrue(missing.text().contains("the open tabs are 1, 2"), missing.text());
    ToolResult noTab = call("manage", "browser_tabs", Map.of("action", "close"));
    assertTrue(noTab.text().contains("code=BROWSER_INVALID_ARGUMENT"), noTab.text());
    assertTrue(noTab.text().contains("/tab"), noTab.text());

    // Closing the current tab gives the one used before it.
    ToolResult closed = call("manage", "browser_tabs", Map.of("action", "close", "tab", 2));
    assertFalse(closed.isError(), closed.text());
    assertTrue(closed.text().startsWith("Closed the tab; now on tab 1 (1 open: 1)"), closed.text());
    assertEquals(browser.url("/start"), LocalBrowser.observation(closed).get("url"));
    ToolResult only = call("manage", "browser_tabs", Map.of("action", "close", "tab", 1));
    assertTrue(only.isError(), only.text());
    assertTrue(only.text().contains("is the only one"), only.text());
  }

  @Test
  void theTabLimitRefusesANewTabAndNeverClosesAnOldOne() {
    ToolResult start = open("limit");
    for (int i = 0; i < 2; i++) {
      ToolResult more =
          call("limit", "browser_tabs", Map.of("action", "open", "url", browser.url("/invoice")));
      assertFalse(more.isError(), more.text());
    }
    ToolResult fourth =
        call("limit", "browser_tabs", Map.of("action", "open", "url", browser.url("/invoice")));
    assertTrue(fourth.isError(), fourth.text());
    assertTrue(fourth.text().contains("code=BROWSER_POLICY_DENIED"), fourth.text());
    assertTrue(fourth.text().contains("plugins.browser.maxTabs"), fourth.text());

    assertFalse(
        call("limit", "browser_tabs", Map.of("action", "select", "tab", 1)).isError(),
        "tab 1 is still there");
    ToolResult back = call("limit", "browser_observe", Map.of("mode", "interactive"));
    ToolResult clicked = click("limit", back, "View invoice");
    assertTrue(clicked.isError(), clicked.text());
    assertTrue(clicked.text().contains("code=BROWSER_POLICY_DENIED"), clicked.text());
    assertTrue(clicked.text().contains("at most 3 tabs"), clicked.text());
    ToolResult after = call("limit", "browser_tabs", Map.of("action", "list"));
    assertTrue(after.text().startsWith("On tab 1 (3 open: 1, 2, 3)"), after.text());
    assertTrue(start.text().contains("Tab: 1 of 1"), start.text());
  }

  @Test
  void everyTabGoesThroughThePolicyProxy() {
    int before = decoyHits.get();
    ToolResult refused =
        call(
            "policy",
            "browser_tabs",
            Map.of("action", "open", "url", "http://127.0.0.3:" + decoy.getLocalPort() + "/"));
    assertTrue(refused.isError(), refused.text());
    assertTrue(refused.text().contains("code=BROWSER_POLICY_DENIED"), refused.text());

    // A popup the page opens to a destination the policy denies is a tab whose page is refused
    // by the proxy: the decoy hears nothing.
    ToolResult start = open("policy");
    assertEquals(1, tabs(start).size(), "the refused open left a tab behind: " + start.text());
    ToolResult clicked = click("policy", start, "Elsewhere");
    assertFalse(clicked.isError(), clicked.text());
    ToolResult elsewhere = call("policy", "browser_tabs", Map.of("action", "select", "tab", 2));
    assertFalse(
        String.valueOf(LocalBrowser.observation(elsewhere).get("text")).contains("decoy"),
        elsewhere.text());
    assertEquals(
        before, decoyHits.get(), "a tab's request reached a destination the policy denies");
  }
}
