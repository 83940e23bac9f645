package dev.periscope.harness.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cold start as an MCP client sees it (not part of ./test; run by {@code ./bench mcp-start}): from
 * spawning the server to the result of its first page open, which holds the first observation, for
 * {@code ./harness mcp} and for Playwright MCP ({@code npx @playwright/mcp}, installed from npm by
 * the bench script), alternating round by round on the same page, each with the official MCP Java
 * client over stdio. Prints medians and their ratio, and each start's two parts to standard error:
 * until the client is connected (initialize answered) and the first open.
 *
 * <p>Arguments: the repository root, the directory Playwright MCP is installed in, the rounds.
 */
public final class McpStartBenchmark {
  /**
   * The Chromium both sides run: the plugin runs Chromium's headless shell when it is installed
   * (Playwright's own headless browser), so Playwright MCP is given the same one.
   */
  static final String CHROMIUM =
      java.nio.file.Files.isExecutable(
              java.nio.file.Path.of("/usr/lib/chromium/chromium-headless-shell"))
          ? "/usr/lib/chromium/chromium-headless-shell"
          : "/usr/bin/chromium";

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]).toAbsolutePath();
    Path playwrightMcp = Path.of(args[1]).toAbsolutePath();
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    Path home = Files.createTempDirectory("mcp-start-home-");
    Path project = Files.createTempDirectory("mcp-start-project-");
    Path tmp = Files.createTempDirectory("mcp-start-tmp-");
    try (LoginSite site =
        new LoginSite()
            .page(
                "/counter",
                "<h1>Counter</h1><p id=\"n\">0</p><button onclick=\"document.getElementById('n')"
                    + ".textContent = ++window.count || (window.count = 1)\">Add</button>")) {
      PluginInstaller.add(new HarnessHome(home), "p", HarnessProcess.PACKAGE, false);
      TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
      String url = site.url("/counter");
      Map<String, String> env = new HashMap<>();
      env.put("PATH", System.getenv("PATH"));
      env.put("HOME", System.getenv("HOME"));
      env.put("HARNESS_HOME", home.toString());
      env.put("TMPDIR", tmp.toString());
      env.put("HARNESS_TTY", "none");
      // So that a run can compare JVM options of ./harness
      // (HARNESS_JAVA_OPTIONS=-XX:TieredStopAtLevel=4).
      if (System.getenv("HARNESS_JAVA_OPTIONS") != null) {
        env.put("HARNESS_JAVA_OPTIONS", System.getenv("HARNESS_JAVA_OPTIONS"));
      }
      ServerParameters ours =
          ServerParameters.builder(root.resolve("harness").toString())
              .args("mcp", "--profile", "p", "--project", project.toString())
              .env(env)
              .build();
      ServerParameters theirs =
          ServerParameters.builder("/bin/sh")
              .args(
                  "-c",
                  "cd \"$0\" && exec npx --no-install @playwright/mcp \"$@\"",
                  playwrightMcp.toString(),
                  "--headless",
                  "--isolated",
                  "--no-sandbox",
                  "--executable-path",
                  CHROMIUM)
              .env(env)
              .build();
      // One unmeasured start of each: the build check, the npm cache and the page cache are warm.
      firstObservation(ours, "browser_open", url);
      firstObservation(theirs, "browser_navigate", url);
      List<Double> harness = new ArrayList<>();
      List<Double> playwright = new ArrayList<>();
      for (int i = 0; i < rounds; i++) {
        harness.add(firstObservation(ours, "browser_open", url));
        playwright.add(firstObservation(theirs, "browser_navigate", url));
      }
      double a = median(harness);
      double b = median(playwright);
      System.out.printf(
          "spawn to first observation (median of %d, alternating): ./harness mcp %.0f ms |"
              + " npx @playwright/mcp %.0f ms | %.2fx%n  harness %s%n  playwright %s%n",
          rounds, a, b, a / b, harness, playwright);
    } finally {
      PluginInstaller.deleteTree(home);
      PluginInstaller.deleteTree(project);
      deleteSoon(tmp);
    }
  }

  /**
   * Deletes {@code dir}, trying again for a few seconds: Playwright MCP's Chromium may still be
   * writing its profile there as it exits after its client left.
   */
  private static void deleteSoon(Path dir) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        PluginInstaller.deleteTree(dir);
        return;
      } catch (java.io.UncheckedIOException stillWritten) {
        if (attempt == 20) {
          throw stillWritten;
        }
        Thread.sleep(250);
      }
    }
  }

  /** Spawns the server, opens {@code url} with {@code tool}, and answers the ms that took. */
  private static double firstObservation(ServerParameters server, String tool, String url) {
    long start = System.nanoTime();
    StdioClientTransport transport =
        new StdioClientTransport(server, new JacksonMcpJsonMapper(new ObjectMapper()));
    transport.setStdErrorHandler(line -> {});
    McpSyncClient client =
        McpClient.sync(transport).requestTimeout(Duration.ofSeconds(120)).build();
    try {
      client.initialize();
      long connected = System.nanoTime();
      McpSchema.CallToolResult r =
          client.callTool(new McpSchema.CallToolRequest(tool, Map.of("url", url)));
      if (Boolean.TRUE.equals(r.isError())) {
        throw new IllegalStateException(tool + " failed: " + r.content());
      }
      // Ours lists the page's button; Playwright MCP 0.0.86 takes its snapshot into a file it
      // names.
      String text = String.valueOf(r.content());
      if (!text.contains("Add") && !text.contains("### Snapshot")) {
        throw new IllegalStateException(tool + " answered without the page: " + text);
      }
      long end = System.nanoTime();
      System.err.printf(
          "%s: connected %.0f ms, first open %.0f ms%n",
          tool, (connected - start) / 1e6, (end - connected) / 1e6);
      return Math.round((end - start) / 1e5) / 10.0;
    } finally {
      client.closeGracefully();
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
