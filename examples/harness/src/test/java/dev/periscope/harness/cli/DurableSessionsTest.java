package dev.periscope.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable browser sessions through the real harness, one process after another: an agent session
 * logged in by one process is logged in for the next, also when the first was killed with SIGKILL
 * mid-run.
 */
class DurableSessionsTest {
  static LoginSite site;
  @TempDir Path home;
  @TempDir Path project;
  @TempDir Path tmp;

  @BeforeAll
  static void startSite() throws Exception {
    site = new LoginSite();
  }

  @AfterAll
  static void stopSite() {
    site.close();
  }

  private Path script(String name, String steps) throws Exception {
    Path script = project.resolve(name + ".yaml");
    Files.writeString(script, "steps:\n" + steps);
    return script;
  }

  private String login() throws Exception {
    return script(
            "login",
            """
          - {tool: browser_open, args: {url: "%s"}}
          - {tool: browser_click, args: {target: {name: "Log in"}}}
        """
                .formatted(site.url("/login")))
        .toString();
  }

  private String home() throws Exception {
    return script(
            "home",
            """
          - {tool: browser_open, args: {url: "%s", mode: document}}
        """
                .formatted(site.url("/home")))
        .toString();
  }

  private HarnessProcess.Result harness(String... args) throws Exception {
    return HarnessProcess.run(home, tmp, args);
  }

  private void install() throws Exception {
    InstalledProfiles.install(home, "p");
    TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
  }

  private HarnessProcess.Result run(String session, String script) throws Exception {
    return harness(
        "run", "--profile", "p", "--project", project.toString(), "--session", session, script);
  }

  @Test
  void aLaterHarnessProcessContinuesTheAgentsBrowserSessionAndAnotherAgentDoesNotSeeIt()
      throws Exception {
    install();
    var first = run("agent-a", login());
    assertEquals(0, first.exitCode(), first.out() + first.err());
    assertTrue(first.out().contains("Logged in"), first.out());

    var again = run("agent-a", home());
    assertEquals(0, again.exitCode(), again.out() + again.err());
    assertTrue(again.out().contains("Welcome back, keeper"), again.out());
    assertTrue(again.out().contains("Theme: dark"), again.out());

    var other = run("agent-b", home());
    assertEquals(0, other.exitCode(), other.out() + other.err());
    assertTrue(other.out().contains("Not logged in"), other.out());
    assertTrue(other.out().contains("Theme: none"), other.out());

    // One browser session for agent-a across both processes, its generation counted up; agent-b has
    // its own.
    var sessions = harness("sessions", "--profile", "p", "--project", project.toString());
    assertEquals(0, sessions.exitCode(), sessions.err());
    // An operator's command reads the plugin's records: it starts no driver and no browser.
    assertTrue(
        sessions.commands().stream().noneMatch(c -> c.contains("chromium") || c.endsWith("node")),
        "harness sessions started " + sessions.commands());
    List<String> rows = sessions.out().lines().filter(l -> l.startsWith("agent-")).toList();
    assertEquals(2, rows.size(), sessions.out());
    String[] a = rows.get(0).split("\\s+");
    String[] b = rows.get(1).split("\\s+");
    assertEquals("agent-a", a[0]);
    assertEquals("2", a[2], sessions.out());
    assertEquals("1", b[2], sessions.out());
    assertFalse(a[1].equals(b[1]));

    var trail = harness("transitions", "--profile", "p", "--session", "agent-a");
    assertEquals(0, trail.exitCode(), trail.err());
    assertTrue(trail.out().contains("Browser session " + a[1]), trail.out());
    assertEquals(
        3, trail.out().lines().filter(l -> l.contains(" succeeded ")).count(), trail.out());
    assertTrue(
        trail.out().lines().anyMatch(l -> l.contains("gen 2") && l.contains(" navigate ")),
        trail.out());
    assertFalse(trail.out().contains("keeper-42"), "the audit trail holds no page text or values");

    var checkpoints = harness("checkpoints", "--profile", "p");
    assertEquals(0, checkpoints.exitCode(), checkpoints.err());
    assertTrue(
        checkpoints.out().contains(a[1]) && checkpoints.out().contains(b[1]), checkpoints.out());
    var cleared = harness("checkpoints", "--profile", "p", "--clear");
    assertTrue(cleared.out().startsWith("Cleared 2 checkpoint(s)"), cleared.out());
    var afterClear = run("agent-a", home());
    assertTrue(afterClear.out().contains("Not logged in"), afterClear.out());
  }

  @Test
  void aLaterHarnessProcessReopensTheAgentsTabsAtTheirUrlsLoggedIn() throws Exception {
    install();
    var first =
        run(
            "agent-t",
            script(
                    "tabs",
                    """
          - {tool: browser_open, args: {url: "%s"}}
          - {tool: browser_click, args: {target: {name: "Log in"}}}
          - {tool: browser_tabs, args: {action: open, url: "%s"}}
          - {tool: browser_tabs, args: {action: select, tab: 1}}
        """
                        .formatted(site.url("/login"), site.url("/home")))
                .toString());
    assertEquals(0, first.exitCode(), first.out() + first.err());
    assertTrue(first.out().contains("Switched to tab 1 (2 open: 1, 2)"), first.out());

    var again =
        run(
            "agent-t",
            script(
                    "look",
                    """
          - {tool: browser_tabs, args: {action: list}}
          - {tool: browser_tabs, args: {action: select, tab: 2}}
          - {tool: browser_observe, args: {mode: document}}
        """)
                .toString());
    assertEquals(0, again.exitCode(), again.out() + again.err());
    assertTrue(again.out().contains("On tab 1 (2 open: 1, 2)"), again.out());
    assertTrue(again.out().contains("tab 2: "), again.out());
    assertTrue(again.out().contains(site.url("/home")), again.out());
    assertTrue(again.out().contains("Welcome back, keeper"), again.out());
  }

  @Test
  void aHostKilledWithSigkillResumesWithItsLastCompletedActionAndLeavesNoBrowserRunning()
      throws Exception {
    install();
    Path script =
        script(
            "login-then-hang",
            """
          - {tool: browser_open, args: {url: "%s"}}
          - {tool: browser_click, args: {target: {name: "Log in"}}}
          - {tool: browser_open, args: {url: "%s"}}
          - {tool: browser_wait, args: {until: network-idle}}
          - {tool: browser_open, args: {url: "%s"}}
        """
                .formatted(site.url("/login"), site.url("/fb-login"), site.url("/slow")));
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                "target/classes" + java.io.File.pathSeparator + "target/lib/*",
                "dev.periscope.harness.cli.Main",
                "run",
                "--profile",
                "p",
                "--project",
                project.toString(),
                "--session",
                "agent-k",
                "--json",
                script.toString()));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("HARNESS_HOME", home.toString());
    pb.environment().put("TMPDIR", tmp.toString());
    pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process host = pb.start();
    Set<ProcessHandle> browsers = ConcurrentHashMap.newKeySet();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(host.getInputStream(), StandardCharsets.UTF_8))) {
      assertTrue(out.readLine().contains("\"isError\":false"));
      String loginStep = out.readLine();
      assertTrue(loginStep.contains("Logged in"), loginStep);
      // A second login, kept in IndexedDB and session storage; the wait after it is checkpointed.
      assertTrue(out.readLine().contains("\"isError\":false"));
      String waited = out.readLine();
      assertTrue(waited.contains("\"isError\":false"), waited);
      host.toHandle().descendants().forEach(browsers::add);
      // The login completed; the host now waits on /slow. Two seconds later it is killed outright.
      Thread.sleep(2000);
      host.toHandle().descendants().forEach(browsers::add);
      host.destroyForcibly();
      host.waitFor(10, TimeUnit.SECONDS);
    }
    long killedAt = System.nanoTime();
    List<String> kinds = browsers.stream().map(p -> p.info().command().orElse("?")).toList();
    assertTrue(
        kinds.stream().anyMatch(k -> k.contains("node"))
            && kinds.stream().anyMatch(k -> k.contains("chrom")),
        "expected Node.js and Chromium among " + kinds);
    for (ProcessHandle p : browsers) {
      while (running(p) && System.nanoTime() - killedAt < TimeUnit.SECONDS.toNanos(5)) {
        Thread.sleep(50);
      }
      assertFalse(
          running(p), "still running 5 s after the kill: " + p.pid() + " " + p.info().command());
    }
    try (var left = Files.list(tmp)) {
      assertTrue(
          left.anyMatch(p -> p.getFileName().toString().startsWith("periscope-")),
          "the killed host's temp directory should still be there");
    }

    var resumed = run("agent-k", home());
    assertEquals(0, resumed.exitCode(), resumed.out() + resumed.err());
    assertTrue(resumed.out().contains("Welcome back, keeper"), resumed.out());
    assertTrue(resumed.out().contains("Theme: dark"), resumed.out());
    var firebase =
        run(
            "agent-k",
            script(
                    "firebase-home",
                    """
          - {tool: browser_open, args: {url: "%s"}}
          - {tool: browser_observe, args: {mode: document}}
        """
                        .formatted(site.url("/fb-home")))
                .toString());
    assertEquals(0, firebase.exitCode(), firebase.out() + firebase.err());
    assertTrue(firebase.out().contains("Identity: keeper-idb"), firebase.out());
    assertTrue(firebase.out().contains("Tab: tab-7"), firebase.out());

    // browser_reset discards it: the next call starts logged out, as a new browser session.
    var reset =
        run(
            "agent-k",
            script(
                    "reset",
                    """
          - {tool: browser_reset}
          - {tool: browser_open, args: {url: "%s"}}
        """
                        .formatted(site.url("/home")))
                .toString());
    assertEquals(0, reset.exitCode(), reset.out() + reset.err());
    assertTrue(reset.out().contains("was closed and its saved state deleted"), reset.out());
    assertTrue(reset.out().contains("Not logged in"), reset.out());
    // The next start removed what the killed host left behind, and its own on close.
    try (var left = Files.list(tmp)) {
      assertEquals(List.of(), left.map(Path::toString).toList());
    }
  }

  /**
   * Alive and not a zombie: with no init reaping orphans here, a dead orphan stays a zombie entry.
   */
  static boolean running(ProcessHandle p) {
    if (!p.isAlive()) {
      return false;
    }
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(p.pid()), "stat"));
      String state = stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return !state.equals("Z") && !state.equals("X");
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
