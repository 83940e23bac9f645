package dev.periscope.harness.host;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.SeleniumGrid;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The grid provider next to the local one (not part of ./test; run by {@code ./bench grid}): one
 * in-process host on a project with {@code provider: grid} (a Grid of one node on this machine,
 * started from the Maven artifact) and one on a project with the local provider, in the same
 * process, taking turns. Prints the median of an agent session's first open with its observation
 * (on the Grid that starts a browser of its own there), of a later open in the same session, and of
 * a click with the observation after it, with the ratios Grid to local.
 */
public final class GridBenchmark {
  private static final int ROUNDS = 15;

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("grid-bench-");
    try (LoginSite site =
            new LoginSite()
                .page(
                    "/counter",
                    "<h1>Counter</h1><p id=\"n\">0</p><button onclick=\"document.getElementById('n')"
                        + ".textContent = ++window.count || (window.count = 1)\">Add</button>");
        SeleniumGrid grid = new SeleniumGrid(Files.createDirectories(dir.resolve("grid")), 1, 2)) {
      HarnessHome home = new HarnessHome(Files.createDirectories(dir.resolve("home")));
      PluginInstaller.add(home, "p", HarnessProcess.PACKAGE, false);
      Path local = Files.createDirectories(dir.resolve("local"));
      TestProjects.project(local, TestProjects.LOOPBACK_ONLY);
      Path remote = Files.createDirectories(dir.resolve("remote"));
      TestProjects.project(
          remote,
          """
          plugins:
            browser:
              provider: grid
              grid: {url: "%s"}
              network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
          """
              .formatted(grid.url));
      try (Host onGrid = Host.start(home, "p", remote, Host.Options.defaults());
          Host here = Host.start(home, "p", local, Host.Options.defaults())) {
        Figures g = new Figures();
        Figures l = new Figures();
        // A first round each, not counted: the JIT, the drivers, the Grid's first session.
        round(onGrid, "warm", site, new Figures());
        round(here, "warm", site, new Figures());
        for (int i = 0; i < ROUNDS; i++) {
          round(onGrid, "agent-" + i, site, g);
          round(here, "agent-" + i, site, l);
        }
        System.out.printf(
            "Grid provider (Selenium Grid 4.47.0, one node on this machine) next to the local"
                + " provider, %d agent sessions each, Java %s%n",
            ROUNDS, Runtime.version());
        line("first open + observation", g.first, l.first);
        line("later open + observation", g.later, l.later);
        line("click + observation", g.click, l.click);
      }
    } finally {
      PluginInstaller.deleteTree(dir);
    }
  }

  private static final class Figures {
    final List<Long> first = new ArrayList<>();
    final List<Long> later = new ArrayList<>();
    final List<Long> click = new ArrayList<>();
  }

  /** One agent session: its first open, a second open, a click; the session ends. */
  private static void round(Host host, String agent, LoginSite site, Figures f) {
    long t0 = System.nanoTime();
    ToolResult first = call(host, agent, "browser_open", site.url("/counter"));
    long t1 = System.nanoTime();
    ToolResult later = call(host, agent, "browser_open", site.url("/login"));
    long t2 = System.nanoTime();
    ToolResult counter = call(host, agent, "browser_open", site.url("/counter"));
    long t3 = System.nanoTime();
    ToolResult clicked =
        host.call(
            agent, "browser_click", DownloadsTest.target(counter, "Add"), Cancellation.none());
    long t4 = System.nanoTime();
    for (ToolResult r : List.of(first, later, counter, clicked)) {
      if (r.isError()) {
        throw new IllegalStateException(r.text());
      }
    }
    f.first.add((t1 - t0) / 1_000_000);
    f.later.add((t2 - t1) / 1_000_000);
    f.click.add((t4 - t3) / 1_000_000);
    host.endSession(agent);
  }

  private static ToolResult call(Host host, String agent, String tool, String url) {
    return host.call(agent, tool, Map.of("url", url), Cancellation.none());
  }

  private static void line(String what, List<Long> grid, List<Long> local) {
    long g = median(grid);
    long l = median(local);
    System.out.printf(
        "  %-26s Grid %5d ms, local %5d ms: %.2fx%n", what, g, l, (double) g / Math.max(1, l));
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(Long::compare);
    return sorted.get(sorted.size() / 2);
  }
}
