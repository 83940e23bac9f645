package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.runtime.CredentialChannel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The page's own complaints in the next observation's page events, on real Chromium: console errors
 * and warnings, an uncaught error, an unhandled rejection, a fetch that gets 404, a missing image,
 * a request the policy refuses; counted, the first five listed, each one line, redacted; told once.
 * {@code pageEvents.console: all} adds the other console messages, {@code off} lists none.
 */
class ConsoleEventsTest {
  static final String PASSWORD = "Pw-" + UUID.randomUUID().toString().substring(0, 12);

  static final String NOISY =
      """
      <!doctype html><html><head><title>Noisy</title></head><body>
      <h1>Noisy</h1>
      <img src="/missing.png" alt="missing">
      <button onclick="console.error('clicked and failed: ' + 'x'.repeat(1000))">Fail</button>
      <button onclick="fetch('/api/cart?again=1')">Reload cart</button>
      <button onclick="for (let i = 1; i <= 7; i++) console.error('complaint ' + i)">Complain</button>
      <label for="pw">Password</label><input id="pw" type="password">
      <button onclick="console.error('the password is ' + pw.value)">Leak</button>
      <script>
        console.log('hello from the page');
        console.warn('deprecated API used');
        console.error('cart failed to load');
        const answered = [
          fetch('/api/cart').then(r => r.status),
          fetch('http://127.0.0.3:8080/beacon').catch(() => {})];
        Promise.reject(new Error('nobody caught this'));
        setTimeout(() => { throw new TypeError('x is undefined'); }, 0);
        // Once every complaint above has come, the page says so (the tests wait for it).
        Promise.allSettled(answered).then(() => setTimeout(() => {
          document.querySelector('h1').after('Every request answered');
        }, 10));
      </script></body></html>""";

  static LocalBrowser browser(String console) throws Exception {
    CredentialChannel typedPasswords =
        new CredentialChannel(
            Optional.empty(), Map.of(), name -> null, true, Optional.empty(), true);
    return new LocalBrowser(
        Map.of(
            "/noisy",
            NOISY,
            "/quiet",
            "<html><head><title>Quiet</title></head><body>ok</body></html>"),
        Map.of(
            "/missing.png", ConsoleEventsTest::notFound, "/api/cart", ConsoleEventsTest::notFound),
        typedPasswords,
        LocalBrowser.withLoopback(Map.of("pageEvents", Map.of("console", console))),
        Optional.empty());
  }

  static void notFound(com.sun.net.httpserver.HttpExchange exchange) throws java.io.IOException {
    exchange.sendResponseHeaders(404, -1);
    exchange.close();
  }

  @SuppressWarnings("unchecked")
  static List<String> events(ToolResult r) {
    Object events = LocalBrowser.observation(r).get("page_events");
    return events == null ? List.of() : (List<String>) events;
  }

  /** The page events up to the page's saying that its late complaints have all come. */
  static List<String> settled(LocalBrowser browser, String agent, ToolResult opened) {
    List<String> all = new java.util.ArrayList<>(events(opened));
    all.addAll(
        events(
            browser.call(
                agent,
                "browser_wait",
                Map.of(
                    "until",
                    "text-visible",
                    "text",
                    "Every request answered",
                    "timeout_ms",
                    5_000))));
    return all;
  }

  @Test
  void thePagesComplaintsAreCountedListedAndToldOnce() throws Exception {
    try (LocalBrowser browser = browser("errors")) {
      ToolResult opened = browser.open("noisy", "/noisy", "summary");
      List<String> events = settled(browser, "noisy", opened);
      String all = String.join("\n", events);
      assertTrue(all.contains("the page reported"), all);
      assertTrue(all.contains("console error: cart failed to load"), all);
      assertTrue(all.contains("console warning: deprecated API used"), all);
      // Three errors (a console error, an uncaught one, a rejection), two 404s and the fetch the
      // policy refused (which CORS stops in the page): each counted once, in whichever observation
      // came after it, the fetch as an error or a failed request as Chromium's events came.
      assertEquals(6, counted(events, "failed request") + counted(events, "error"), all);
      // A cross-origin fetch CORS stopped is one complaint: Chromium's console line and the
      // request's failure are told as one line (when it is among the first five).
      List<String> beacon =
          events.stream().filter(e -> e.contains("127.0.0.3:8080/beacon")).toList();
      assertTrue(beacon.size() <= 1, all);
      beacon.forEach(line -> assertTrue(line.contains("CORS policy"), all));
      assertFalse(all.contains("Failed to load resource"), "Chromium's own line is not doubled");
      assertFalse(all.contains("hello from the page"), "a log is not an error: " + all);
      // Told once: a later observation repeats none of them.
      ToolResult later = browser.call("noisy", "browser_observe", Map.of());
      assertTrue(
          events(later).stream().noneMatch(e -> e.contains("cart failed to load")),
          "told once: " + events(later));

      ToolResult failed =
          browser.call("noisy", "browser_click", LocalBrowser.target(later, "Fail"));
      List<String> afterClick = events(failed);
      assertEquals("the page reported 1 error", afterClick.get(0), String.join("\n", afterClick));
      assertTrue(afterClick.get(1).startsWith("console error: clicked and failed: xxx"));
      assertTrue(afterClick.get(1).length() <= 300, "one line, cut: " + afterClick.get(1).length());

      ToolResult cart =
          browser.call("noisy", "browser_click", LocalBrowser.target(failed, "Reload cart"));
      String listed404 = String.join("\n", events(cart));
      assertTrue(
          listed404.contains("request failed: GET " + browser.url("/api/cart?again=1") + " (404)"),
          listed404);
    }
  }

  /** The sum of what the count lines say of one kind ("failed request", "error", ...). */
  static int counted(List<String> events, String kind) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(\\d+) " + kind + "s?\\b")
            .matcher(
                String.join(
                    "\n", events.stream().filter(e -> e.startsWith("the page reported")).toList()));
    int sum = 0;
    while (m.find()) {
      sum += Integer.parseInt(m.group(1));
    }
    return sum;
  }

  @Test
  void pastTheFirstFiveComplaintsAreCountedNotListed() throws Exception {
    try (LocalBrowser browser = browser("errors")) {
      ToolResult opened = browser.open("many", "/noisy", "summary");
      settled(browser, "many", opened);
      ToolResult complained =
          browser.call(
              "many",
              "browser_click",
              LocalBrowser.target(browser.call("many", "browser_observe", Map.of()), "Complain"));
      List<String> events = events(complained);
      String all = String.join("\n", events);
      assertEquals("the page reported 7 errors (the first 5 listed)", events.get(0), all);
      assertEquals(
          List.of("complaint 1", "complaint 2", "complaint 3", "complaint 4", "complaint 5"),
          events.subList(1, events.size()).stream()
              .map(e -> e.replaceFirst("^console error: ", "").replaceFirst(" \\(noisy.*$", ""))
              .toList(),
          all);
    }
  }

  @Test
  void everyKindOfComplaintIsCaught() throws Exception {
    try (LocalBrowser browser = browser("errors")) {
      ToolResult opened = browser.open("kinds", "/noisy", "summary");
      List<String> events = new java.util.ArrayList<>(settled(browser, "kinds", opened));
      // Each kind is seen in some observation of a fresh load.
      for (int i = 0; i < 4 && !String.join("\n", events).contains("nobody caught this"); i++) {
        events.addAll(settled(browser, "kinds", browser.call("kinds", "browser_reload", Map.of())));
      }
      String all = String.join("\n", events);
      System.out.println("page events of a noisy page:\n" + all);
      assertTrue(all.contains("failed request"), all);
      assertTrue(all.contains("uncaught error: TypeError: x is undefined (noisy:"), all);
      assertTrue(all.contains("uncaught error: Error: nobody caught this (noisy:"), all);
    }
  }

  @Test
  void aSecretThePageLogsIsRedacted() throws Exception {
    try (LocalBrowser browser = browser("errors")) {
      ToolResult page = browser.open("leak", "/quiet", "summary");
      page = browser.open("leak", "/noisy", "document");
      Map<String, Object> args = new HashMap<>(LocalBrowser.target(page, "Password"));
      args.put("value", PASSWORD);
      ToolResult filled = browser.call("leak", "browser_fill", args);
      assertFalse(filled.isError(), filled.text());
      ToolResult leaked =
          browser.call("leak", "browser_click", LocalBrowser.target(filled, "Leak"));
      String all = String.join("\n", events(leaked));
      assertTrue(all.contains("console error: the password is [REDACTED:typed-password]"), all);
      assertFalse((leaked.text() + leaked.structured()).contains(PASSWORD), leaked.text());
    }
  }

  @Test
  void allAddsEveryConsoleMessageAndOffListsNone() throws Exception {
    try (LocalBrowser browser = browser("all")) {
      ToolResult opened = browser.open("all", "/noisy", "summary");
      String all = String.join("\n", settled(browser, "all", opened));
      assertTrue(all.contains("other console message"), all);
    }
    try (LocalBrowser browser = browser("off")) {
      ToolResult opened = browser.open("off", "/noisy", "summary");
      List<String> events = settled(browser, "off", opened);
      assertTrue(
          events.stream().noneMatch(e -> e.contains("reported") || e.contains("console")),
          String.join("\n", events));
    }
  }
}
