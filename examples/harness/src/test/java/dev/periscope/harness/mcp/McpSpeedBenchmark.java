package dev.periscope.harness.mcp;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.host.Host;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What MCP adds to a call (not part of ./test; run by {@code ./bench mcp}): click and the
 * observation after it on a counter page, in an in-process host and through {@code harness mcp}
 * with the official MCP client over stdio, alternating round by round; and the server's start to
 * its first observation. Prints medians and the difference.
 */
public final class McpSpeedBenchmark {
  private static final int ROUNDS = 40;

  public static void main(String[] args) throws Exception {
    Path home = Files.createTempDirectory("mcp-speed-home-");
    Path project = Files.createTempDirectory("mcp-speed-project-");
    Path tmp = Files.createTempDirectory("mcp-speed-tmp-");
    try (LoginSite site =
        new LoginSite()
            .page(
                "/counter",
                "<h1>Counter</h1><p id=\"n\">0</p><button onclick=\"document.getElementById('n')"
                    + ".textContent = ++window.count || (window.count = 1)\">Add</button>")) {
      PluginInstaller.add(new HarnessHome(home), "p", HarnessProcess.PACKAGE, false);
      TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
      String url = site.url("/counter");
      double inProcess;
      double overMcp;
      double started;
      double firstObservation;
      try (Host host = Host.start(new HarnessHome(home), "p", project, Host.Options.defaults())) {
        ToolResult[] here = {call(host, "browser_open", Map.of("url", url))};
        long start = System.nanoTime();
        try (McpConnection mcp = new McpConnection(home, tmp, Map.of(), project)) {
          started = (System.nanoTime() - start) / 1e6;
          McpSchema.CallToolResult[] there = {mcp.call("browser_open", Map.of("url", url))};
          firstObservation = (System.nanoTime() - start) / 1e6 - started;
          // Round by round, one click in each, so that both see the same machine; both JVMs warm
          // first.
          double[] medians =
              alternatingMedians(
                  () -> here[0] = call(host, "browser_click", target(here[0].structured(), "Add")),
                  () ->
                      there[0] = mcp.call("browser_click", McpConnection.target(there[0], "Add")));
          inProcess = medians[0];
          overMcp = medians[1];
        }
      }
      System.out.printf(
          "click + observation: in-process host %.1f ms, over MCP (stdio, official client) %.1f ms:"
              + " MCP adds %.1f ms (goal: at most 15)%n",
          inProcess, overMcp, overMcp - inProcess);
      System.out.printf(
          "harness mcp: started and initialized in %.0f ms, first observation %.0f ms later%n",
          started, firstObservation);
    } finally {
      PluginInstaller.deleteTree(home);
      PluginInstaller.deleteTree(project);
      PluginInstaller.deleteTree(tmp);
    }
  }

  private static ToolResult call(Host host, String tool, Map<String, Object> args) {
    ToolResult r = host.call("bench", tool, args, Cancellation.none());
    if (r.isError()) {
      throw new IllegalStateException(r.text());
    }
    return r;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> target(Map<String, Object> structured, String name) {
    Map<String, Object> o = (Map<String, Object>) structured.get("observation");
    for (Map<String, Object> e : (List<Map<String, Object>>) o.get("elements")) {
      if (name.equals(e.get("name"))) {
        return Map.of("observation_id", o.get("id"), "element_ref", e.get("ref"));
      }
    }
    throw new IllegalStateException("no " + name);
  }

  /**
   * The medians of {@code a} and {@code b}, run in turn, each after {@value #WARMUP} untimed runs.
   */
  private static double[] alternatingMedians(Runnable a, Runnable b) {
    for (int i = 0; i < WARMUP; i++) {
      a.run();
      b.run();
    }
    List<Double> first = new ArrayList<>();
    List<Double> second = new ArrayList<>();
    for (int i = 0; i < ROUNDS; i++) {
      first.add(timed(a));
      second.add(timed(b));
    }
    return new double[] {median(first), median(second)};
  }

  private static final int WARMUP = 20;

  private static double timed(Runnable work) {
    long start = System.nanoTime();
    work.run();
    return (System.nanoTime() - start) / 1e6;
  }

  private static double median(List<Double> times) {
    List<Double> sorted = new ArrayList<>(times);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
