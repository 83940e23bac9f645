package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.UserChromium;
import dev.periscope.harness.profile.HarnessHome;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cdp provider, from the plugin's package as a host loads it, attached to a Chromium the test
 * starts as a person would (a tab of theirs open): the agent logs in, in a tab of its own, under
 * the project's allowlist checked per request; the person's tab stays, the agent's goes with its
 * session, and their browser runs on. {@code harness doctor} says which enforcement applies.
 */
class CdpAttachTest {
  static LoginSite site;
  static UserChromium user;
  @TempDir Path homeDir;
  @TempDir Path projectDir;
  @TempDir Path tmp;

  @BeforeAll
  static void start() throws Exception {
    site = new LoginSite();
    user = new UserChromium(site.url("/home"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (user != null) {
      user.close();
    }
    if (site != null) {
      site.close();
    }
  }

  private HarnessHome installed() throws Exception {
    HarnessHome home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
    TestProjects.project(
        projectDir,
        """
        plugins:
          browser:
            provider: cdp
            cdp: {url: "%s", requestLevelPolicy: true}
            network:
              mode: allowlist
              allowCidrs: ["127.0.0.1/32"]
        """
            .formatted(user.devtools));
    return home;
  }

  @Test
  void anAgentLogsInInATabOfItsOwnAndLeavesThePersonsBrowserRunning() throws Exception {
    HarnessHome home = installed();
    List<String> before = user.tabs();
    try (Host h = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult login = call(h, "browser_open", Map.of("url", site.url("/login")));
      assertFalse(login.isError(), login.text());
      ToolResult in = call(h, "browser_click", DownloadsTest.target(login, "Log in"));
      assertFalse(in.isError(), in.text());
      assertTrue(in.text().contains("Logged in"), in.text());
      ToolResult shot = call(h, "browser_screenshot", Map.of());
      assertFalse(shot.isError(), shot.text());
      ToolResult denied =
          call(h, "browser_open", Map.of("url", "http://169.254.169.254/latest/meta-data"));
      assertTrue(denied.text().contains("code=BROWSER_POLICY_DENIED"), denied.text());
      assertEquals(before.size() + 1, user.tabs().size(), user.tabs().toString());
      h.endSession("agent");
      ToolResult trail = h.operate("browser_transitions", Map.of("session", "agent"));
      assertTrue(trail.text().contains("attach"), trail.text());
      assertTrue(trail.text().contains("detach"), trail.text());
      assertTrue(trail.text().contains("attached to "), trail.text());
    }
    assertEquals(before, user.tabs(), "the person's tabs are as they were");
    assertTrue(user.running(), "the person's Chromium runs on");
    assertEquals(
        List.of(),
        ProcessHandle.current()
            .descendants()
            .filter(ProcessHandle::isAlive)
            .filter(p -> !user.owns(p))
            .map(p -> p.info().command().orElse("?"))
            .toList(),
        "no driver is left running");
  }

  @Test
  void doctorSaysWhichEnforcementApplies() throws Exception {
    installed();
    var r =
        HarnessProcess.run(
            homeDir,
            tmp,
            "doctor",
            "--no-live-check",
            "--profile",
            "p",
            "--project",
            projectDir.toString());
    assertTrue(r.out().contains("[ok  ] cdp "), r.out());
    assertTrue(r.out().contains("network policy: request-level"), r.out());
  }

  private static ToolResult call(Host h, String tool, Map<String, Object> args) {
    return h.call("agent", tool, args, Cancellation.none());
  }
}
