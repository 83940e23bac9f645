package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.tools.ToolsForTests;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Observation size and time, side by side with Playwright's AI aria snapshot of the same pages, in
 * one process. Run with {@code ./bench}. Prints figures and ratios; asserts nothing.
 */
public final class ObservationBenchmark {
  private static final int ROUNDS = 10;

  public static void main(String[] args) throws Exception {
    String big = ObservationTest.listing(300);
    StringBuilder mb =
        new StringBuilder(ObservationTest.listing(300).replace("</body></html>", ""));
    while (mb.length() < 1_000_000) {
      mb.append("<p>")
          .append("Filler prose about lighthouses and the ships they guide. ".repeat(20))
          .append("</p>");
    }
    mb.append("</body></html>");
    Map<String, String> pages =
        Map.of(
            "/big",
            big,
            "/mb",
            mb.toString(),
            "/big-without-headings",
            ObservationTest.listing(300, false));
    HttpServer server = RawPlaywright.serve(pages);
    String base = "http://127.0.0.1:" + server.getAddress().getPort();

    BrowserSettings settings =
        BrowserSettings.from(LocalBrowser.withLoopback(Map.of("persistence", "ephemeral")));
    DefaultBrowserRuntime runtime = DefaultBrowserRuntime.builder(settings.runtime()).build();
    PlaywrightProvider provider = new PlaywrightProvider(settings.playwright());
    runtime.registerProvider(provider);
    List<Tool> tools = ToolsForTests.tools(runtime, settings);

    try (Playwright playwright = RawPlaywright.create();
        Browser browser = RawPlaywright.launch(playwright)) {
      Page baseline = browser.newPage();
      System.out.println(
          "page                 | Periscope summary | AI aria snapshot | size ratio | observe ms (median of "
              + ROUNDS
              + ") ours / AI | script bytes to Java");
      for (String path : List.of("/big", "/mb")) {
        ToolResult opened = call(tools, "browser_open", Map.of("url", base + path));
        int ours = opened.text().length();
        double ourMs = median(() -> call(tools, "browser_observe", Map.of()));
        baseline.navigate(base + path);
        String snapshot = RawPlaywright.aiSnapshot(baseline);
        double aiMs = median(() -> RawPlaywright.aiSnapshot(baseline));
        Number bytes =
            (Number)
                baseline.evaluate(
                    "args => JSON.stringify((" + PageScripts.script("observe") + ")(args)).length",
                    Map.of(
                        "maxTextChars",
                        60_000,
                        "maxElements",
                        500,
                        "tiers",
                        List.of(1, 2, 3),
                        "key",
                        "__bench",
                        "selector",
                        PageScripts.CANDIDATES));
        System.out.printf(
            "%-20s | %,17d | %,16d | %9.1fx | %8.1f / %-8.1f (%.2fx) | %,d%n",
            path + " (" + (pages.get(path).length() / 1024) + " KiB)",
            ours,
            snapshot.length(),
            (double) snapshot.length() / ours,
            ourMs,
            aiMs,
            ourMs / aiMs,
            bytes.longValue());
        if (path.equals("/big")) {
          coverage(tools, call(tools, "browser_observe", Map.of()));
        }
      }
      sizes(tools, base);
    } finally {
      ToolsForTests.close();
      runtime.close();
      provider.dispose();
      server.stop(0);
    }
  }

  /**
   * Whether the default summary holds the form, every paging link and record titles, and paging
   * reaches all.
   */
  @SuppressWarnings("unchecked")
  private static void coverage(List<Tool> tools, ToolResult first) {
    List<String> names = new ArrayList<>();
    ToolResult page = first;
    int pages = 1;
    Set<String> titles = new HashSet<>();
    while (true) {
      var o = (Map<String, Object>) page.structured().get("observation");
      for (Map<String, Object> e : (List<Map<String, Object>>) o.get("elements")) {
        String name = (String) e.get("name");
        if (pages == 1) {
          names.add(name);
        }
        if (name.startsWith("Paper number")) {
          titles.add(name);
        }
      }
      if (o.get("continuation") == null) {
        break;
      }
      page = call(tools, "browser_observe_next", Map.of("continuation", o.get("continuation")));
      pages++;
    }
    System.out.printf(
        "  summary of /big: %,d chars; form and paging links present: %s; titles on the first page: %d;"
            + " all %d titles reached in %d pages%n",
        first.text().length(),
        names.containsAll(List.of("Search papers", "Search", "1", "2", "3", "Next")),
        names.stream().filter(n -> n.startsWith("Paper number")).count(),
        titles.size(),
        pages);
  }

  /**
   * The summary's text and its structured form (what clients such as LangChain4j hand a model) in
   * characters, for both shapes of the 300-record listing.
   */
  private static void sizes(List<Tool> tools, String base) throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    System.out.println();
    System.out.println(
        "listing (300 records)           | summary text | structured | structured / text");
    for (String path : List.of("/big", "/big-without-headings")) {
      ToolResult r = call(tools, "browser_open", Map.of("url", base + path));
      int text = r.text().length();
      int structured = json.writeValueAsString(r.structured()).length();
      System.out.printf(
          "%-31s | %,12d | %,10d | %.2fx%n",
          path.equals("/big") ? "titles in headings" : "no headings (title link, by ...)",
          text,
          structured,
          (double) structured / text);
    }
  }

  private static ToolResult call(List<Tool> tools, String name, Map<String, Object> args) {
    return tools.stream()
        .filter(t -> t.descriptor().name().equals(name))
        .findFirst()
        .orElseThrow()
        .call(new ToolCall(args, "bench", Cancellation.none()));
  }

  private static double median(Supplier<?> work) {
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < ROUNDS; i++) {
      long start = System.nanoTime();
      work.get();
      times.add((System.nanoTime() - start) / 1e6);
    }
    Collections.sort(times);
    return times.get(ROUNDS / 2);
  }
}
