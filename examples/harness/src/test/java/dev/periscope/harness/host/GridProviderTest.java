package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The grid provider against a real Selenium Grid on loopback (a hub and two nodes of one slot each,
 * Debian's Chromium and chromium-driver, shared by the tests): the in-process host opens each
 * agent's browser as a session on the Grid.
 */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class GridProviderTest {
  static SeleniumGrid grid;
  static LoginSite site;
  static Path gridDir;
  @TempDir Path homeDir;
  @TempDir Path projectDir;
  private Host host;

  @BeforeAll
  static void startGrid() throws Exception {
    gridDir = Files.createTempDirectory("periscope-grid-test-");
    grid = new SeleniumGrid(gridDir, 2, 1);
    site = new LoginSite();
  }

  @AfterAll
  static void stopGrid() throws Exception {
    if (site != null) {
      site.close();
    }
    if (grid != null) {
      grid.close();
    }
    PluginInstaller.deleteTree(gridDir);
  }

  @AfterEach
  void stopHost() {
    if (host != null) {
      host.close();
    }
  }

  private Host start(String gridUrl, long queueTimeoutMs) throws Exception {
    HarnessHome home = new HarnessHome(homeDir);
    PluginInstaller.add(home, "p", HarnessProcess.PACKAGE, false);
    TestProjects.project(
        projectDir,
        """
        plugins:
          browser:
            provider: grid
            grid: {url: "%s", queueTimeoutMs: %d}
            network:
              mode: allowlist
              allowCidrs: ["127.0.0.1/32"]
        """
            .formatted(gridUrl, queueTimeoutMs));
    host = Host.start(home, "p", projectDir, Host.Options.defaults());
    return host;
  }

  private static ToolResult call(Host host, String agent, String tool, Map<String, Object> args) {
    return host.call(agent, tool, args, Cancellation.none());
  }

  @Test
  void anAgentsPageOnTheGridIsObservedAndActedOnAndResumesLoggedIn() throws Exception {
    Host h = start(grid.url.toString(), 60_000);
    ToolResult login = call(h, "agent", "browser_open", Map.of("url", site.url("/login")));
    assertFalse(login.isError(), login.text());
    assertTrue(login.text().contains("Lighthouse login"), login.text());
    ToolResult in = call(h, "agent", "browser_click", DownloadsTest.target(login, "Log in"));
    assertFalse(in.isError(), in.text());
    assertTrue(in.text().contains("Logged in"), in.text());
    ToolResult shot = call(h, "agent", "browser_screenshot", Map.of());
    assertFalse(shot.isError(), shot.text());
    ToolResult denied =
        call(h, "agent", "browser_open", Map.of("url", "http://169.254.169.254/latest/meta-data"));
    assertTrue(denied.text().contains("code=BROWSER_POLICY_DENIED"), denied.text());

    // The session ends with its checkpoint, and its Grid session with it; the next call resumes
    // on a new Grid session, logged in.
    h.endSession("agent");
    ToolResult home = call(h, "agent", "browser_open", Map.of("url", site.url("/home")));
    assertTrue(home.text().contains("Welcome back, keeper"), home.text());
    assertTrue(home.text().contains("Theme: dark"), home.text());
  }

  @Test
  void aGridWithNoFreeSlotFailsWithinTheBoundAndSaysSo() throws Exception {
    Host h = start(grid.url.toString(), 3_000);
    for (String agent : java.util.List.of("a", "b")) {
      ToolResult r = call(h, agent, "browser_open", Map.of("url", site.url("/login")));
      assertFalse(r.isError(), r.text());
    }
    long start = System.nanoTime();
    ToolResult third = call(h, "c", "browser_open", Map.of("url", site.url("/login")));
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(third.isError(), third.text());
    assertTrue(third.text().contains("had no free slot within 3000 ms"), third.text());
    assertTrue(third.text().contains("code=BROWSER_CAPACITY"), third.text());
    assertTrue(third.text().contains("retryable=true"), third.text());
    assertTrue(third.text().contains("2 node(s) up, 0 of 2 Chrome slot(s) free"), third.text());
    assertTrue(ms < 30_000, "the full Grid held the call " + ms + " ms");
    // The refused call left nothing waiting in the Grid's queue: the slot an ending frees is the
    // next call's.
    h.endSession("a");
    ToolResult later = call(h, "c", "browser_open", Map.of("url", site.url("/login")));
    assertFalse(later.isError(), later.text());
  }

  @Test
  void aGridThatDoesNotAnswerIsAClearError() throws Exception {
    Host h = start("http://127.0.0.1:9", 2_000);
    ToolResult r = call(h, "agent", "browser_open", Map.of("url", site.url("/login")));
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains("the Selenium Grid at http://127.0.0.1:9"), r.text());
    assertTrue(r.text().contains("is the Grid running and reachable"), r.text());
    assertEquals(-1, r.text().indexOf("\tat "), "no stack trace");
  }

  @Test
  @org.junit.jupiter.api.Order(Integer.MAX_VALUE) // it kills a node: last
  void whenItsNodeDiesTheSessionMovesToTheOtherNodeLoggedIn() throws Exception {
    Host h = start(grid.url.toString(), 60_000);
    ToolResult login = call(h, "mover", "browser_open", Map.of("url", site.url("/login")));
    assertFalse(call(h, "mover", "browser_click", DownloadsTest.target(login, "Log in")).isError());
    // The next call waits for the checkpoint that followed the login.
    assertFalse(call(h, "mover", "browser_observe", Map.of()).isError());
    Process running =
        grid.nodes().stream()
            .filter(
                n -> n.descendants().anyMatch(p -> p.info().command().orElse("").contains("chrom")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no node runs the agent's browser"));
    // The Grid need not have noticed: the dead node's one slot stays taken, so the next browser
    // goes to the other node.
    SeleniumGrid.killTree(running);
    ToolResult first = call(h, "mover", "browser_open", Map.of("url", site.url("/home")));
    String text = first.text();
    if (first.isError()) {
      // The call that finds the browser gone says so; the one after it goes on elsewhere.
      assertTrue(text.contains("lease=rebuilt") || text.contains("BROWSER_CRASHED"), text);
      text = call(h, "mover", "browser_open", Map.of("url", site.url("/home"))).text();
    }
    assertTrue(text.contains("Welcome back, keeper"), text);
  }
}
