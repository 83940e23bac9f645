package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A transition's timings account for the whole call: the first open of a session, which waits for
 * its browser to start, says how long it waited, in its duration and on its own; a call whose
 * browser was ready says nothing of it.
 */
class TransitionTimingsTest {
  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = new LocalBrowser(Map.of("/", "<h1>Counter</h1><button>Add</button>"));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> metrics(ToolResult r) {
    return (Map<String, Object>)
        ((Map<String, Object>) r.structured().get("transition")).get("metrics");
  }

  static long ms(Map<String, Object> metrics, String key) {
    return ((Number) metrics.getOrDefault(key, 0)).longValue();
  }

  @Test
  void theFirstOpenCountsTheWaitForItsBrowserAndACallOnAReadyBrowserDoesNot() {
    Instant before = Instant.now();
    ToolResult first = browser.open("timed", "/", "summary");
    Map<String, Object> m = metrics(first);
    // No browser ran before this call: Node.js's driver and Chromium started inside it.
    long waited = ms(m, "environment_ms");
    assertTrue(waited > 0, m.toString());
    assertTrue(
        ms(m, "duration_ms") >= waited + ms(m, "action_ms") + ms(m, "observation_ms") - 2,
        m.toString());
    assertTrue(
        first.text().contains("ms total, " + waited + "ms waiting for the browser to be ready, "),
        first.text());
    // The call began when it asked for its browser, not when the navigation did.
    Instant startedAt =
        Instant.parse(
            (String) ((Map<?, ?>) first.structured().get("transition")).get("started_at"));
    assertTrue(!startedAt.isAfter(before.plus(Duration.ofMillis(50))), startedAt + " vs " + before);

    ToolResult again = browser.open("timed", "/", "summary");
    assertFalse(metrics(again).containsKey("environment_ms"), metrics(again).toString());
    assertFalse(again.text().contains("waiting for the browser"), again.text());
  }

  @Test
  void aWaitTheFirstCallSpentIsNotReportedByALaterOne() {
    // The first call of this session waits for its browser and is refused (no such observation):
    // the open after it waited for nothing.
    ToolResult refused =
        browser.call(
            "refused-first",
            "browser_click",
            Map.of("observation_id", "observation-none", "element_ref", "e1"));
    assertTrue(refused.isError(), refused.text());
    ToolResult open = browser.open("refused-first", "/", "summary");
    assertFalse(metrics(open).containsKey("environment_ms"), metrics(open).toString());
  }
}
