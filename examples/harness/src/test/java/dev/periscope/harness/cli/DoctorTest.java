package dev.periscope.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.BrowserProcesses;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.host.Host;
import dev.periscope.harness.profile.HarnessHome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code harness doctor} on a profile with history: a session a fault ended, and a checkpoint store
 * gone wrong.
 */
class DoctorTest {
  @TempDir Path home;
  @TempDir Path tmp;
  @TempDir Path project;
  private LoginSite site;

  @BeforeEach
  void install() throws Exception {
    InstalledProfiles.install(home, "p");
    TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
  }

  /**
   * Logs agent session {@code agent} in (a checkpoint is written), then kills its Chromium unless
   * told not to.
   */
  private void logInThen(String agent, boolean kill) throws Exception {
    try (LoginSite s = new LoginSite();
        Host host = Host.start(new HarnessHome(home), "p", project, Host.Options.defaults())) {
      ToolResult login =
          host.call(agent, "browser_open", Map.of("url", s.url("/login")), Cancellation.none());
      assertFalse(login.isError(), login.text());
      @SuppressWarnings("unchecked")
      Map<String, Object> observation = (Map<String, Object>) login.structured().get("observation");
      assertFalse(
          host.call(
                  agent,
                  "browser_click",
                  Map.of("observation_id", observation.get("id"), "element_ref", "e1"),
                  Cancellation.none())
              .isError());
      assertFalse(host.call(agent, "browser_observe", Map.of(), Cancellation.none()).isError());
      if (kill) {
        BrowserProcesses.browserProcess(BrowserProcesses.browserProcesses()).destroyForcibly();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (((java.util.List<?>)
                host.operate("browser_store_check", Map.of()).structured().get("faults"))
            .isEmpty()) {
          assertTrue(System.nanoTime() < deadline, "the fault was never recorded");
          Thread.sleep(50);
        }
      }
      host.endSession(agent);
    }
  }

  @Test
  void reportsASessionWhoseLastBrowserEndedByAFaultAndItsRemedy() throws Exception {
    logInThen("crashed-agent", true);
    var r =
        HarnessProcess.run(
            home,
            tmp,
            "doctor",
            "--no-live-check",
            "--profile",
            "p",
            "--project",
            project.toString());
    assertEquals(
        0, r.exitCode(), r.out() + r.err()); // a past fault is a warning, not a broken installation
    // The project's Grid, asked of the plugin on that project: this one names none.
    assertTrue(
        r.out().contains("[ok  ] grid              project " + project + " names no Selenium Grid"),
        r.out());
    assertTrue(
        r.out()
            .contains(
                "[ok  ] cdp               project "
                    + project
                    + " names no running Chromium to attach to"),
        r.out());
    assertTrue(r.out().contains("[warn] fault p"), r.out());
    assertTrue(
        r.out().contains("(agent session crashed-agent): its last browser ended by a fault at "),
        r.out());
    assertTrue(
        r.out().contains(": browser-exited (BROWSER_CRASHED) on http://127.0.0.1:"), r.out());
    assertTrue(
        r.out().contains("→ nothing to repair: its next call continues from its last checkpoint"),
        r.out());
    assertTrue(r.out().contains("[ok  ] checkpoints p     schema 7, 1 checkpoint(s)"), r.out());
    // The live check is left out when asked (CommandLineTest runs it).
    assertTrue(r.out().contains("[info] live check        left out (--no-live-check)"), r.out());
    // The journal says the same as information, and the fault's cause.
    assertTrue(r.out().contains("[info] journal p"), r.out());
    assertTrue(
        r.out().contains("(agent session crashed-agent): fault at ")
            && r.out().contains(" (browser-exited) on http://127.0.0.1:"),
        r.out());

    // Once the session has gone on in a fresh browser, it is no longer reported.
    logInThen("crashed-agent", false);
    var after = HarnessProcess.run(home, tmp, "doctor", "--no-live-check", "--profile", "p");
    assertFalse(after.out().contains("[warn] fault p"), after.out());
    // The journal keeps it: what happened to the session, not what is wrong now.
    assertTrue(after.out().contains("(agent session crashed-agent): fault at "), after.out());
  }

  @Test
  void failsACheckpointStoreOthersCanReadAndCountsPayloadsThatAreGone() throws Exception {
    logInThen("agent", false);
    Path payloads = home.resolve("profiles/p/data/plugins/browser/checkpoints");
    Files.setPosixFilePermissions(payloads, PosixFilePermissions.fromString("rwxr-xr-x"));
    var open = HarnessProcess.run(home, tmp, "doctor", "--no-live-check", "--profile", "p");
    assertEquals(1, open.exitCode(), open.out());
    assertTrue(
        open.out()
            .contains(
                "[FAIL] checkpoints p     " + payloads + " can be read by others than its owner"),
        open.out());
    assertTrue(open.out().contains("→ chmod 700 " + payloads), open.out());

    Files.setPosixFilePermissions(payloads, PosixFilePermissions.fromString("rwx------"));
    try (var files = Files.list(payloads)) {
      for (Path payload : files.toList()) {
        Files.delete(payload);
      }
    }
    var gone = HarnessProcess.run(home, tmp, "doctor", "--no-live-check", "--profile", "p");
    assertTrue(
        gone.out()
            .contains(
                "[ok  ] checkpoints p     schema 7, 1 checkpoint(s), 1 with the payload gone"),
        gone.out());
  }
}
