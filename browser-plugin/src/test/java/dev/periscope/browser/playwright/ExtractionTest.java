package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.runtime.CheckpointIndex;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.runtime.RuntimeSettings;
import dev.periscope.browser.tools.ToolsForTests;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Each extraction kind on real Chromium: fixed traversals, regions from refs, field narrowing. */
class ExtractionTest {
  static HttpServer server;
  static DefaultBrowserRuntime runtime;
  static PlaywrightProvider provider;
  static List<Tool> tools;
  static final Map<String, String> PAGES = Map.of(
      "/list", ObservationTest.listing(12),
      "/table", """
          <!doctype html><html><body><table>
          <thead><tr><th>Name</th><th>Steps</th></tr></thead>
          <tbody><tr><td>North light</td><td>217</td></tr><tr><td>South light</td><td>94</td></tr></tbody>
          </table></body></html>""",
      "/article", """
          <!doctype html><html><head><title>Keeper's log</title></head><body><nav><a href="/">Home</a></nav>
          <article><h1>A night at the lamp</h1><p class="byline">By Ada Keeper</p>
          <p>The lamp turned all night.</p><p>Read <a href="/ships">about the ships</a>.</p></article></body></html>""");

  @BeforeAll
  static void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      String page = PAGES.getOrDefault(exchange.getRequestURI().getPath(), "<html><body>other</body></html>");
      byte[] body = page.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    BrowserSettings settings = BrowserSettings.from(PluginConfiguration.empty());
    runtime = new DefaultBrowserRuntime(RuntimeSettings.defaults(), new CheckpointIndex());
    provider = new PlaywrightProvider(settings);
    runtime.registerProvider(provider);
    tools = ToolsForTests.tools(runtime, settings);
  }

  @AfterAll
  static void stop() {
    ToolsForTests.close();
    runtime.close();
    provider.dispose();
    server.stop(0);
  }

  static String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  static ToolResult call(String agent, String tool, Map<String, Object> args) {
    return tools.stream().filter(t -> t.descriptor().name().equals(tool)).findFirst().orElseThrow()
        .call(new ToolCall(args, agent, Cancellation.none()));
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> rows(ToolResult r) {
    return (List<Map<String, Object>>) r.structured().get("rows");
  }

  @SuppressWarnings("unchecked")
  static String refOf(ToolResult r, String name) {
    var o = (Map<String, Object>) r.structured().get("observation");
    for (Map<String, Object> e : (List<Map<String, Object>>) o.get("elements")) {
      if (name.equals(e.get("name"))) {
        return (String) e.get("ref");
      }
    }
    throw new AssertionError(name);
  }

  @SuppressWarnings("unchecked")
  static String observationId(ToolResult r) {
    return (String) ((Map<String, Object>) r.structured().get("observation")).get("id");
  }

  @Test
  void extractsTheListingARecordsLinkStandsForNarrowedToTheRequestedFields() {
    ToolResult page = call("list", "browser_open", Map.of("url", url("/list")));
    ToolResult all = call("list", "browser_extract_list", Map.of("observation_id", observationId(page),
        "region_ref", refOf(page, "Paper number 3"), "fields", List.of("title", "url")));
    assertFalse(all.isError(), all.text());
    assertEquals(12, rows(all).size());
    assertEquals(Map.of("title", "Paper number 1", "url", url("/paper/1")), rows(all).get(0));
    assertTrue(all.text().startsWith("Extracted 12 list records\n1. title=Paper number 1 | url=" + url("/paper/1")),
        all.text());
    ToolResult limited = call("list", "browser_extract_list", Map.of("limit", 5));
    assertTrue(limited.text().startsWith("Extracted 5 of 12 list records (truncated)"), limited.text());
    ToolResult unknown = call("list", "browser_extract_list", Map.of("fields", List.of("title", "price")));
    assertTrue(unknown.text().contains("unknown extraction fields: price; this region offers index, title, url, text"),
        unknown.text());
    assertTrue(unknown.text().contains("code=BROWSER_INVALID_ARGUMENT"), unknown.text());
  }

  @Test
  void extractsATableKeyedByItsHeaderCells() {
    call("table", "browser_open", Map.of("url", url("/table")));
    ToolResult t = call("table", "browser_extract_table", Map.of());
    assertEquals(List.of("index", "Name", "Steps"), t.structured().get("columns"));
    assertEquals(Map.of("index", "1", "Name", "North light", "Steps", "217"), rows(t).get(0));
    assertEquals(2, rows(t).size());
  }

  @Test
  void extractsLinksWithAbsoluteUrlsAndTheArticleBody() {
    call("article", "browser_open", Map.of("url", url("/article")));
    ToolResult links = call("article", "browser_extract_links", Map.of());
    assertEquals(url("/ships"), rows(links).get(1).get("url"));
    assertEquals("about the ships", rows(links).get(1).get("text"));
    ToolResult article = call("article", "browser_extract_article", Map.of("max_text_chars", 60));
    Map<String, Object> body = rows(article).get(0);
    assertEquals("A night at the lamp", body.get("title"));
    assertEquals("By Ada Keeper", body.get("byline"));
    assertTrue(((String) body.get("text")).length() <= 60);
    assertTrue(((String) body.get("text")).contains("The lamp turned"), (String) body.get("text"));
  }

  @Test
  void refusesARegionFromASupersededObservation() {
    ToolResult first = call("stale", "browser_open", Map.of("url", url("/list")));
    call("stale", "browser_observe", Map.of());
    ToolResult r = call("stale", "browser_extract_list", Map.of("observation_id", observationId(first),
        "region_ref", refOf(first, "Paper number 3")));
    assertTrue(r.isError());
    assertTrue(r.text().contains("code=BROWSER_STALE_REFERENCE"), r.text());
  }
}
