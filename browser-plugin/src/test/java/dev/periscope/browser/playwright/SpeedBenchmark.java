package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.policy.Resolver;
import dev.periscope.browser.policy.Upstream;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.tools.ToolsForTests;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-call speed, side by side with raw Playwright on the same Chromium in the same process: click
 * and the observation after it, open and its observation, refused navigations (the SSRF corpus in a
 * row), the summary of the 300-record listing, a new agent session on a warm runtime, eight agents
 * at once, and cold start (each in a process of its own). Run with {@code ./bench speed}. Prints
 * figures and ratios; asserts nothing.
 *
 * <p>Arguments: the sections to run ({@code click fill open refusals summary warm agents cold
 * guarded recording}); all by default.
 */
public final class SpeedBenchmark {
  static final int ROUNDS = 40;
  static final String COUNTER =
      "<!doctype html><html><head><title>Counter</title></head><body><h1>Counter</h1>"
          + "<p id=n>0</p><button onclick=\"document.getElementById('n').textContent ="
          + " ++window.count || (window.count = 1)\">Add</button>"
          + "<a href=/counter>Again</a><input aria-label=Note></body></html>";

  private final HttpServer server;
  private final String base;

  private SpeedBenchmark() throws IOException {
    server =
        RawPlaywright.serve(
            Map.of(
                "/counter",
                COUNTER,
                "/login-counter",
                COUNTER.replace(
                    "</body>", "<label for=pw>Password</label><input id=pw type=password></body>"),
                "/big",
                ObservationTest.listing(300)));
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("cold-child")) {
      ColdStart.child(args);
      return;
    }
    List<String> sections =
        args.length == 0
            ? List.of(
                "click",
                "fill",
                "open",
                "refusals",
                "summary",
                "warm",
                "agents",
                "cold",
                "guarded",
                "recording")
            : List.of(args);
    SpeedBenchmark bench = new SpeedBenchmark();
    try (Playwright playwright = RawPlaywright.create();
        Browser browser = RawPlaywright.launch(playwright)) {
      System.out.printf(
          "Speed benchmark: Chromium %s, Playwright %s, Java %s, %d cores; medians of %d rounds%n%n",
          browser.version(),
          Playwright.class.getPackage().getImplementationVersion(),
          System.getProperty("java.version"),
          Runtime.getRuntime().availableProcessors(),
          ROUNDS);
      for (String s : sections) {
        switch (s) {
          case "click" -> bench.click(browser);
          case "fill" -> bench.fill(browser);
          case "open" -> bench.open(browser);
          case "refusals" -> bench.refusals(browser);
          case "warm" -> bench.warm(browser);
          case "agents" -> bench.agents();
          case "cold" -> ColdStart.run(bench.base);
          case "summary" -> bench.summary();
          case "guarded" -> bench.guarded();
          case "recording" -> RecordingBenchmark.run(bench.base);
          default -> throw new IllegalArgumentException("no section " + s);
        }
      }
    } finally {
      bench.server.stop(0);
    }
  }

  static String snapshot(Page page) {
    return RawPlaywright.aiSnapshot(page);
  }

  /** A runtime with the Playwright provider, as a host wires it, its tools and its teardown. */
  record Periscope(DefaultBrowserRuntime runtime, PlaywrightProvider provider, List<Tool> tools)
      implements AutoCloseable {
    static Periscope start(Map<String, Object> settings, Resolver resolver) {
      BrowserSettings s = BrowserSettings.from(new PluginConfiguration(settings));
      PlaywrightProvider provider =
          new PlaywrightProvider(s.playwright(), Optional.empty(), resolver, Upstream.direct());
      // As the plugin does: the first browser starts first, while the rest of the host starts.
      if (s.playwright().prelaunch()) {
        provider.prelaunch();
      }
      DefaultBrowserRuntime runtime = DefaultBrowserRuntime.builder(s.runtime()).build();
      runtime.registerProvider(provider);
      return new Periscope(runtime, provider, ToolsForTests.tools(runtime, s));
    }

    /** As {@link #loopback}, with passwords the user gave allowed: a fill arms the egress guard. */
    static Periscope typedPasswords() {
      BrowserSettings s =
          BrowserSettings.from(
              new PluginConfiguration(
                  Map.of(
                      "persistence",
                      "ephemeral",
                      "network",
                      Map.of("mode", "allowlist", "allowCidrs", List.of("127.0.0.1/32")),
                      "credentials",
                      Map.of("modelTypedPasswords", "allow"))));
      dev.periscope.browser.runtime.CredentialChannel channel =
          new dev.periscope.browser.runtime.CredentialChannel(
              Optional.empty(), Map.of(), name -> null, true, Optional.empty(), true);
      PlaywrightProvider provider =
          new PlaywrightProvider(
              s.playwright(), Optional.empty(), Resolver.system(), Upstream.direct());
      provider.prelaunch();
      DefaultBrowserRuntime runtime =
          DefaultBrowserRuntime.builder(s.runtime()).credentials(channel).build();
      runtime.registerProvider(provider);
      return new Periscope(runtime, provider, ToolsForTests.tools(runtime, s, channel));
    }

    static Periscope loopback() {
      return start(
          Map.of(
              "persistence",
              "ephemeral",
              "network",
              Map.of("mode", "allowlist", "allowCidrs", List.of("127.0.0.1/32"))),
          Resolver.system());
    }

    ToolResult call(String agent, String tool, Map<String, Object> args) {
      return tools.stream()
          .filter(t -> t.descriptor().name().equals(tool))
          .findFirst()
          .orElseThrow()
          .call(new ToolCall(args, agent, Cancellation.none()));
    }

    @Override
    public void close() {
      ToolsForTests.close();
      runtime.close();
      provider.dispose();
    }
  }

  // click + the observation after it

  private void click(Browser browser) {
    double raw;
    try (BrowserContext context = browser.newContext()) {
      Page page = context.newPage();
      page.navigate(base + "/counter");
      snapshot(page);
      raw =
          median(
              () -> {
                page.getByRole(com.microsoft.playwright.options.AriaRole.BUTTON).first().click();
                snapshot(page);
              });
    }
    double ours;
    try (Periscope r = Periscope.loopback()) {
      ToolResult opened = r.call("a", "browser_open", Map.of("url", base + "/counter"));
      Object[] last = {opened};
      ours =
          median(
              () -> {
                last[0] = r.call("a", "browser_click", target((ToolResult) last[0], "Add"));
                if (((ToolResult) last[0]).isError()) {
                  throw new IllegalStateException(((ToolResult) last[0]).text());
                }
              });
    }
    report("click + observation", ours, "Playwright click + AI snapshot", raw);
  }

  // fill + the observation after it, which waits for the page's reaction to the keys (a plain
  // field that nothing reacts to: the least a fill waits)

  private void fill(Browser browser) {
    double raw;
    try (BrowserContext context = browser.newContext()) {
      Page page = context.newPage();
      page.navigate(base + "/counter");
      snapshot(page);
      int[] n = {0};
      raw =
          median(
              () -> {
                page.getByRole(com.microsoft.playwright.options.AriaRole.TEXTBOX)
                    .first()
                    .fill("note " + n[0]++);
                snapshot(page);
              });
    }
    double ours;
    try (Periscope r = Periscope.loopback()) {
      ToolResult opened = r.call("a", "browser_open", Map.of("url", base + "/counter"));
      Object[] last = {opened};
      int[] n = {0};
      ours =
          median(
              () -> {
                Map<String, Object> args =
                    new java.util.HashMap<>(target((ToolResult) last[0], "Note"));
                args.put("value", "note " + n[0]++);
                last[0] = r.call("a", "browser_fill", args);
                if (((ToolResult) last[0]).isError()) {
                  throw new IllegalStateException(((ToolResult) last[0]).text());
                }
              });
    }
    report("fill + observation (reaction wait)", ours, "Playwright fill + AI snapshot", raw);
  }

  // open + observation

  private void open(Browser browser) {
    double raw;
    try (BrowserContext context = browser.newContext()) {
      Page page = context.newPage();
      raw =
          median(
              () -> {
                page.navigate(base + "/counter");
                snapshot(page);
              });
    }
    double ours;
    try (Periscope r = Periscope.loopback()) {
      r.call("a", "browser_open", Map.of("url", base + "/counter"));
      ours = median(() -> r.call("a", "browser_open", Map.of("url", base + "/counter")));
    }
    report("open + observation", ours, "Playwright goto + AI snapshot", raw);
  }

  // click and open with the egress guard armed (a password the user gave filled in the session),
  // next to the same calls in a session of the same runtime with no secret

  private void guarded() {
    String url = base + "/login-counter";
    double plainClick;
    double plainOpen;
    double armedClick;
    double armedOpen;
    try (Periscope r = Periscope.typedPasswords()) {
      ToolResult plain = r.call("plain", "browser_open", Map.of("url", url));
      ToolResult armed = r.call("armed", "browser_open", Map.of("url", url));
      Map<String, Object> args = new java.util.HashMap<>(target(armed, "Password"));
      args.put("value", "bench-secret-" + System.nanoTime());
      armed = r.call("armed", "browser_fill", args);
      if (armed.isError()) {
        throw new IllegalStateException(armed.text());
      }
      Object[] last = {plain, armed};
      plainClick =
          median(
              () ->
                  last[0] = r.call("plain", "browser_click", target((ToolResult) last[0], "Add")));
      armedClick =
          median(
              () ->
                  last[1] = r.call("armed", "browser_click", target((ToolResult) last[1], "Add")));
      plainOpen = median(() -> r.call("plain", "browser_open", Map.of("url", url)));
      armedOpen = median(() -> r.call("armed", "browser_open", Map.of("url", url)));
    }
    report(
        "click + observation, guard armed",
        armedClick,
        "the same, no secret in the session",
        plainClick);
    report(
        "open + observation, guard armed",
        armedOpen,
        "the same, no secret in the session",
        plainOpen);
  }

  // refused navigations

  private void refusals(Browser browser) throws IOException {
    List<String> corpus =
        Files.readAllLines(
                Path.of(
                    System.getProperty(
                        "periscope.ssrf", "src/test/resources/corpora/ssrf_payloads.txt")))
            .stream()
            .map(String::strip)
            .filter(l -> !l.isEmpty() && !l.startsWith("#"))
            .toList();
    try (Periscope r =
        Periscope.start(
            Map.of("persistence", "ephemeral", "network", Map.of("mode", "strict")), publicDns())) {
      r.call("a", "browser_open", Map.of("url", "about:blank"));
      // An admitted open of a local page, for the anchor: strict refuses loopback, so through a
      // runtime that admits it.
      double admitted;
      try (Periscope l = Periscope.loopback()) {
        l.call("b", "browser_open", Map.of("url", base + "/counter"));
        admitted = median(() -> l.call("b", "browser_open", Map.of("url", base + "/counter")));
      }
      List<Double> times = new ArrayList<>();
      int refused = 0;
      for (String url : corpus) {
        long start = System.nanoTime();
        ToolResult result = r.call("a", "browser_open", Map.of("url", url));
        times.add((System.nanoTime() - start) / 1e6);
        refused += result.isError() ? 1 : 0;
        if (System.getenv("SPEED_VERBOSE") != null) {
          System.out.printf(
              "  %6.1f ms %s: %s%n",
              times.get(times.size() - 1), url, result.text().lines().findFirst().orElse(""));
        }
      }
      List<Double> sorted = new ArrayList<>(times);
      Collections.sort(sorted);
      double median = sorted.get(sorted.size() / 2);
      int n = times.size();
      double firstTen = times.subList(0, 10).stream().mapToDouble(d -> d).average().orElse(0);
      double lastTen = times.subList(n - 10, n).stream().mapToDouble(d -> d).average().orElse(0);
      System.out.printf(
          "refused navigations: %d of %d corpus URLs refused; median %.1f ms, first %.1f ms, %dth %.1f"
              + " ms; mean of the first ten %.1f ms, of the last ten %.1f ms (%.2fx)%n",
          refused,
          n,
          median,
          times.get(0),
          n,
          times.get(n - 1),
          firstTen,
          lastTen,
          lastTen / firstTen);
      report("  a refusal (median)", median, "an admitted local open", admitted);
    }
  }

  /** As public DNS would answer: nip.io names their address, metadata names the metadata one. */
  static Resolver publicDns() {
    Pattern nip = Pattern.compile("(?:.*\\.)?(\\d+\\.\\d+\\.\\d+\\.\\d+)\\.nip\\.io");
    return host -> {
      Matcher m = nip.matcher(host);
      if (m.matches()) {
        return List.of(InetAddress.getByName(m.group(1)));
      }
      return switch (host) {
        case "localtest.me", "localh.st" -> List.of(InetAddress.getByName("127.0.0.1"));
        case "metadata.google.internal", "metadata", "instance-data" ->
            List.of(InetAddress.getByName("169.254.169.254"));
        default -> throw new UnknownHostException(host);
      };
    };
  }

  // a new agent session on a warm runtime

  /**
   * Each new session arrives at a host idle for a second (as sessions start, not back to back), so
   * Periscope's browser has its next context ready; raw Playwright idles as long.
   */
  private static final long WARM_IDLE_MS = 1_000;

  private void warm(Browser browser) {
    double raw =
        median(
            () -> {
              try (BrowserContext context = browser.newContext()) {
                Page page = context.newPage();
                page.navigate(base + "/counter");
                snapshot(page);
              }
            },
            WARM_IDLE_MS);
    double ours;
    try (Periscope r = Periscope.loopback()) {
      r.call("warmup", "browser_open", Map.of("url", base + "/counter"));
      int[] n = {0};
      ours =
          median(
              () -> {
                String agent = "agent-" + n[0]++;
                r.call(agent, "browser_open", Map.of("url", base + "/counter"));
                ToolsForTests.endSession(agent);
              },
              WARM_IDLE_MS);
    }
    report(
        "new agent session, first observation", ours, "new context + page + goto + snapshot", raw);
  }

  // eight agents at once

  /**
   * Aggregate clicks per second of some agents at once, and the cores their process tree kept busy.
   */
  private record Throughput(double actionsPerSecond, double coresBusy) {}

  /**
   * Eight agents against one, ours and raw Playwright's in the same shape: two browsers (our
   * default pool for two cores), each driven from one thread at a time as Playwright for Java
   * requires, the agents' contexts spread over them. Each side runs its one agent once untimed
   * first, so that neither figure is a cold JIT's.
   */
  private void agents() throws Exception {
    Throughput one;
    Throughput eight;
    long rssOne;
    long pssOne;
    long rssEight;
    long pssEight;
    try (Periscope r = Periscope.loopback()) {
      throughput(r, 1, AGENT_ACTIONS);
      one = throughput(r, 1, AGENT_ACTIONS);
      rssOne = ProcessTree.rss();
      pssOne = ProcessTree.pss();
      eight = throughput(r, 8, AGENT_ACTIONS);
      rssEight = ProcessTree.rss();
      pssEight = ProcessTree.pss();
    }
    Throughput rawOne;
    Throughput rawEight;
    try (Playwright first = RawPlaywright.create();
        Playwright second = RawPlaywright.create()) {
      List<Browser> browsers = List.of(RawPlaywright.launch(first), RawPlaywright.launch(second));
      rawThroughput(browsers, 1, AGENT_ACTIONS);
      rawOne = rawThroughput(browsers, 1, AGENT_ACTIONS);
      rawEight = rawThroughput(browsers, 8, AGENT_ACTIONS);
    }
    System.out.printf(
        "8 agents at once: %.1f actions/s against one agent's %.1f (%.2fx); raw Playwright, 2"
            + " browsers: %.1f against %.1f (%.2fx); ours against raw's with 8 agents: %.2fx%n"
            + "  cores the process tree kept busy: ours %.2f with 1 agent, %.2f with 8; raw %.2f and"
            + " %.2f%n"
            + "  memory of the process tree (this benchmark's baseline browser included): PSS %d MiB"
            + " with 1 session, %d MiB with 8 (%d MiB per extra session); summed RSS %d and %d MiB"
            + " (%d per extra session)%n",
        eight.actionsPerSecond(),
        one.actionsPerSecond(),
        eight.actionsPerSecond() / one.actionsPerSecond(),
        rawEight.actionsPerSecond(),
        rawOne.actionsPerSecond(),
        rawEight.actionsPerSecond() / rawOne.actionsPerSecond(),
        eight.actionsPerSecond() / rawEight.actionsPerSecond(),
        one.coresBusy(),
        eight.coresBusy(),
        rawOne.coresBusy(),
        rawEight.coresBusy(),
        pssOne >> 20,
        pssEight >> 20,
        ((pssEight - pssOne) / 7) >> 20,
        rssOne >> 20,
        rssEight >> 20,
        ((rssEight - rssOne) / 7) >> 20);
  }

  private static final int AGENT_ACTIONS = 30;

  private Throughput throughput(Periscope r, int agents, int actions) throws Exception {
    for (int i = 0; i < agents; i++) {
      r.call("many-" + i, "browser_open", Map.of("url", base + "/counter"));
    }
    List<Callable<Void>> work = new ArrayList<>();
    for (int i = 0; i < agents; i++) {
      String agent = "many-" + i;
      work.add(
          () -> {
            ToolResult last = r.call(agent, "browser_observe", Map.of());
            for (int a = 0; a < actions; a++) {
              last = r.call(agent, "browser_click", target(last, "Add"));
            }
            return null;
          });
    }
    return timed(work, agents * actions);
  }

  private Throughput rawThroughput(List<Browser> browsers, int agents, int actions)
      throws Exception {
    List<BrowserContext> contexts = new ArrayList<>();
    List<Callable<Void>> work = new ArrayList<>();
    try {
      for (int i = 0; i < agents; i++) {
        Browser browser = browsers.get(i % browsers.size());
        BrowserContext context = browser.newContext();
        contexts.add(context);
        Page page = context.newPage();
        page.navigate(base + "/counter");
        work.add(
            () -> {
              for (int a = 0; a < actions; a++) {
                // One thread at a time on a Playwright instance, as on our lanes.
                synchronized (browser) {
                  page.getByRole(com.microsoft.playwright.options.AriaRole.BUTTON).first().click();
                  snapshot(page);
                }
              }
              return null;
            });
      }
      return timed(work, agents * actions);
    } finally {
      for (BrowserContext c : contexts) {
        synchronized (c.browser()) {
          c.close();
        }
      }
    }
  }

  private static Throughput timed(List<Callable<Void>> work, int actions) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(work.size());
    try {
      long cpu = ProcessTree.cpuMillis();
      long start = System.nanoTime();
      for (Future<Void> f : pool.invokeAll(work)) {
        f.get();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      return new Throughput(actions / seconds, (ProcessTree.cpuMillis() - cpu) / 1000.0 / seconds);
    } finally {
      pool.shutdown();
    }
  }

  // the summary of the 300-record listing

  @SuppressWarnings("unchecked")
  private void summary() throws IOException {
    try (Periscope r = Periscope.loopback()) {
      ToolResult first = r.call("a", "browser_open", Map.of("url", base + "/big"));
      String text = first.text();
      if (System.getenv("SPEED_SUMMARY") != null) {
        Files.writeString(Path.of(System.getenv("SPEED_SUMMARY")), text);
      }
      Map<String, Object> o = (Map<String, Object>) first.structured().get("observation");
      List<String> names =
          ((List<Map<String, Object>>) o.get("elements"))
              .stream().map(e -> (String) e.get("name")).toList();
      long titles = names.stream().filter(n -> n.startsWith("Paper number")).count();
      boolean controls =
          names.containsAll(List.of("Search papers", "Search", "1", "2", "3", "Next"));
      // A record's summary sentence, once per record on the page: counted where it appears more
      // often than that.
      java.util.regex.Matcher m = Pattern.compile("Paper number \\d+").matcher(text);
      Map<String, Integer> seen = new java.util.HashMap<>();
      while (m.find()) {
        seen.merge(m.group(), 1, Integer::sum);
      }
      long repeated = seen.values().stream().filter(n -> n > 1).count();
      java.util.Set<String> all = new java.util.HashSet<>();
      ToolResult page = first;
      int pages = 1;
      while (true) {
        Map<String, Object> po = (Map<String, Object>) page.structured().get("observation");
        for (Map<String, Object> e : (List<Map<String, Object>>) po.get("elements")) {
          String name = (String) e.get("name");
          if (name.startsWith("Paper number")) {
            all.add(name);
          }
        }
        if (po.get("continuation") == null) {
          break;
        }
        page = r.call("a", "browser_observe_next", Map.of("continuation", po.get("continuation")));
        pages++;
      }
      System.out.printf(
          "summary of the 300-record listing: %,d chars (goal 8,000); search form and paging links: %s;"
              + " record titles with refs: %d; record titles appearing more than once: %d; paging"
              + " reaches %d titles in %d pages%n",
          text.length(), controls ? "all" : "MISSING", titles, repeated, all.size(), pages);
    }
  }

  // helpers

  static void report(String what, double ours, String anchor, double theirs) {
    System.out.printf(
        "%-40s %8.1f ms | %-40s %8.1f ms | %.2fx%n", what, ours, anchor, theirs, ours / theirs);
  }

  static double median(Runnable work) {
    return median(work, 0);
  }

  /** The median time of {@code work}, each round after {@code idleMs} of nothing (untimed). */
  static double median(Runnable work, long idleMs) {
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      work.run();
    }
    for (int i = 0; i < ROUNDS; i++) {
      if (idleMs > 0) {
        try {
          Thread.sleep(idleMs);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      long start = System.nanoTime();
      work.run();
      times.add((System.nanoTime() - start) / 1e6);
    }
    Collections.sort(times);
    return times.get(times.size() / 2);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> target(ToolResult r, String name) {
    Map<String, Object> o = (Map<String, Object>) r.structured().get("observation");
    for (Map<String, Object> e : (List<Map<String, Object>>) o.get("elements")) {
      if (name.equals(e.get("name"))) {
        return Map.of("observation_id", o.get("id"), "element_ref", e.get("ref"));
      }
    }
    throw new IllegalStateException("no " + name + " in " + r.text());
  }
}
