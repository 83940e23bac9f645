package dev.periscope.harness.mcp;

import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One HTTP server, many agents (not part of ./test; run by {@code ./bench mcp-http}): 8 clients of
 * the SDK's Streamable HTTP transport at once, {@value #ACTIONS} actions each (a click and the
 * observation after it) against one {@code harness mcp --http}, next to one client alone on the
 * same server. Prints p50/p95 per call, aggregate actions per second and its ratio to one client's,
 * the transitions recorded against the actions issued, and the server's memory (its JVM, and with
 * the drivers and browsers it started) with 1 session and with 8.
 */
public final class McpHttpBenchmark {
  private static final int ACTIONS = 50;
  private static final int CLIENTS = 8;

  public static void main(String[] args) throws Exception {
    Path home = Files.createTempDirectory("mcp-http-home-");
    Path project = Files.createTempDirectory("mcp-http-project-");
    Path tmp = Files.createTempDirectory("mcp-http-tmp-");
    try (LoginSite site =
        new LoginSite()
            .page(
                "/counter",
                "<h1>Counter</h1><p id=\"n\">0</p><button onclick=\"document.getElementById('n')"
                    + ".textContent = ++window.count || (window.count = 1)\">Add</button>")) {
      PluginInstaller.add(new HarnessHome(home), "p", HarnessProcess.PACKAGE, false);
      TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
      String url = site.url("/counter");
      Run alone;
      Run many;
      try (McpHttpProcess server =
          new McpHttpProcess(home, tmp, project, Map.of(), "--max-sessions", "16")) {
        // Warm the server (its JIT, the first browser) with a client of its own, then measure.
        warm(server, url);
        alone = run(server, "solo", 1, url);
        many = run(server, "load", CLIENTS, url);
        server.terminate(Duration.ofSeconds(60));
      }
      int issued = (ACTIONS + 1) * (1 + CLIENTS);
      int recorded = transitions(home, "solo", "load-%");
      System.out.printf(
          "MCP over HTTP, one server: %d clients at once, %d actions each (click + observation)%n",
          CLIENTS, ACTIONS);
      System.out.printf(
          "  per call            p50 %.1f ms, p95 %.1f ms (one client alone: p50 %.1f ms, p95 %.1f"
              + " ms)%n",
          many.p(50), many.p(95), alone.p(50), alone.p(95));
      System.out.printf(
          "  actions per second  %.1f with %d clients, %.1f with one alone: %.2fx%n",
          many.perSecond(), CLIENTS, alone.perSecond(), many.perSecond() / alone.perSecond());
      System.out.printf(
          "  transitions         %d recorded for %d actions issued (%d lost)%n",
          recorded, issued, issued - recorded);
      System.out.printf(
          "  server memory       JVM %d MiB with 1 session, %d MiB with %d; with its drivers"
              + " and browsers %d MiB and %d MiB%n",
          alone.memory()[0] >> 20,
          many.memory()[0] >> 20,
          CLIENTS,
          alone.memory()[1] >> 20,
          many.memory()[1] >> 20);
      System.out.printf(
          "  (%d cores; the clients run in this JVM, the server in its own)%n",
          Runtime.getRuntime().availableProcessors());
    } finally {
      PluginInstaller.deleteTree(home);
      PluginInstaller.deleteTree(project);
      PluginInstaller.deleteTree(tmp);
    }
  }

  /**
   * What a run measured: each call's milliseconds, the wall time of all, and the server's memory
   * with the run's sessions open.
   */
  private record Run(List<Double> calls, double wallMs, long[] memory) {
    double p(int percentile) {
      List<Double> sorted = new ArrayList<>(calls);
      Collections.sort(sorted);
      return sorted.get(Math.min(sorted.size() - 1, sorted.size() * percentile / 100));
    }

    double perSecond() {
      return calls.size() / (wallMs / 1000);
    }
  }

  /** {@code clients} agents at once, named {@code prefix}-N (or {@code prefix} alone). */
  private static Run run(McpHttpProcess server, String prefix, int clients, String url)
      throws Exception {
    List<Double> calls = new CopyOnWriteArrayList<>();
    List<McpSyncClient> open = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    CyclicBarrier start = new CyclicBarrier(clients + 1);
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      String name = clients == 1 ? prefix : prefix + "-" + i;
      done.add(
          pool.submit(
              () -> {
                McpSyncClient c = server.client(name);
                open.add(c);
                CallToolResult page = McpHttpProcess.call(c, "browser_open", Map.of("url", url));
                start.await();
                for (int n = 0; n < ACTIONS; n++) {
                  long t = System.nanoTime();
                  page = McpHttpProcess.call(c, "browser_click", McpConnection.target(page, "Add"));
                  calls.add((System.nanoTime() - t) / 1e6);
                  if (page.isError()) {
                    throw new IllegalStateException(McpConnection.text(page));
                  }
                }
                return null;
              }));
    }
    start.await();
    long t = System.nanoTime();
    for (Future<?> f : done) {
      f.get();
    }
    double wall = (System.nanoTime() - t) / 1e6;
    long[] memory = memory(server.process.toHandle());
    open.forEach(McpSyncClient::closeGracefully);
    pool.shutdown();
    return new Run(calls, wall, memory);
  }

  private static void warm(McpHttpProcess server, String url) {
    McpSyncClient c = server.client("warm");
    CallToolResult page = McpHttpProcess.call(c, "browser_open", Map.of("url", url));
    for (int n = 0; n < 20; n++) {
      page = McpHttpProcess.call(c, "browser_click", McpConnection.target(page, "Add"));
    }
    c.closeGracefully();
  }

  /** The resident memory of the server's JVM, and of it with every process it started. */
  private static long[] memory(ProcessHandle server) {
    long jvm = rss(server.pid());
    long all = jvm + server.descendants().mapToLong(p -> rss(p.pid())).sum();
    return new long[] {jvm, all};
  }

  private static long rss(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException gone) {
      // it ended meanwhile
    }
    return 0;
  }

  private static int transitions(Path home, String solo, String load) throws Exception {
    Path db = new HarnessHome(home).profile("p").data().resolve("browser_runtime.sqlite");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        PreparedStatement q =
            c.prepareStatement(
                "SELECT COUNT(*) FROM transitions t JOIN agent_sessions a"
                    + " ON a.browser_session = t.browser_session"
                    + " WHERE a.agent_session = ? OR a.agent_session LIKE ?")) {
      q.setString(1, solo);
      q.setString(2, load);
      try (ResultSet r = q.executeQuery()) {
        return r.next() ? r.getInt(1) : 0;
      }
    }
  }
}
