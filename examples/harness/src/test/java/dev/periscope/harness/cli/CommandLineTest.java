package dev.periscope.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.TestProjects;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness command line as a user runs it: clear messages, exit codes, and never a stack trace.
 */
class CommandLineTest {
  @TempDir Path home;
  @TempDir Path tmp;
  @TempDir Path project;

  private HarnessProcess.Result harness(String... args) throws Exception {
    return HarnessProcess.run(home, tmp, args);
  }

  private static void assertUserError(HarnessProcess.Result r, String expected) {
    assertEquals(1, r.exitCode(), r.out() + r.err());
    assertTrue(r.err().contains(expected), r.err());
    assertFalse(r.err().contains("\tat "), "a stack trace reached the user: " + r.err());
    assertFalse(r.err().contains("Exception"), "an exception name reached the user: " + r.err());
  }

  @Test
  void theHttpServerRefusesAnExposedAddressOrAMistakenOptionWithTheFix() throws Exception {
    String dir = project.toString();
    assertUserError(
        harness("mcp", "--http", "0.0.0.0:0", "--profile", "p", "--project", dir),
        "0.0.0.0 is not a loopback address: other machines could reach the server there; say so"
            + " with --allow-non-loopback");
    assertUserError(
        harness("mcp", "--http", "localhost:99999", "--profile", "p", "--project", dir),
        "--http takes [HOST:]PORT, as 8931 or 127.0.0.1:8931");
    assertUserError(
        harness("mcp", "--http", "0", "--session", "a", "--profile", "p", "--project", dir),
        "--session is for standard input and output");
    assertUserError(
        harness(
            "mcp",
            "--http",
            "0",
            "--token-file",
            tmp.resolve("none").toString(),
            "--profile",
            "p",
            "--project",
            dir),
        "the token file " + tmp.resolve("none") + " does not exist");
    assertUserError(
        harness("mcp", "--token-file", "t", "--profile", "p", "--project", dir),
        "--token-file is for --http; on standard input and output there is one client");
    assertUserError(
        harness("mcp", "--max-sessions", "2", "--profile", "p", "--project", dir),
        "--max-sessions is for --http");
    for (String name : List.of("", "../x", "a b", "-a")) {
      assertUserError(
          harness("mcp", "--session=" + name, "--profile", "p", "--project", dir),
          "--session \"" + name + "\" is not an agent session name");
    }
    var duration =
        harness("mcp", "--http", "0", "--idle-timeout", "soon", "--profile", "p", "--project", dir);
    assertTrue(duration.exitCode() != 0);
    assertTrue(
        duration.err().contains("'soon' is not a duration: a whole number and a unit"),
        duration.err());
  }

  @Test
  void refusesAFileThatIsNotAPluginPackage() throws Exception {
    Path notes = Files.writeString(tmp.resolve("notes.zip"), "not a zip");
    assertUserError(
        harness("plugin", "add", "--profile", "p", notes.toString()), "not a plugin package");
    assertUserError(
        harness("plugin", "add", "--profile", "p", tmp.resolve("missing.zip").toString()),
        "no such package file");
  }

  @Test
  void namesAnUnknownProfileAndHowToCreateIt() throws Exception {
    assertUserError(harness("plugin", "list", "--profile", "ghost"), "unknown profile 'ghost'");
    assertUserError(
        harness("skill", "disable", "browser", "--profile", "ghost"),
        "harness plugin add --profile ghost");
  }

  @Test
  void addsListsDisablesAndRemovesAPlugin() throws Exception {
    assertEquals(
        0,
        harness("plugin", "add", "--profile", "p", HarnessProcess.PACKAGE.toString()).exitCode());
    assertUserError(
        harness("plugin", "add", "--profile", "p", HarnessProcess.PACKAGE.toString()),
        "add --replace");
    var list = harness("plugin", "list", "--profile", "p");
    assertEquals(
        "browser 0.1.0  skills: browser (enabled), browser-scripting (enabled),"
            + " browser-operator (operator)\n",
        list.out());
    assertUserError(
        harness("skill", "disable", "browser-operator", "--profile", "p"),
        "is an operator skill: it is never offered to agents");
    assertEquals(0, harness("skill", "disable", "browser", "--profile", "p").exitCode());
    assertEquals(
        "browser 0.1.0  skills: browser (disabled), browser-scripting (enabled),"
            + " browser-operator (operator)\n",
        harness("plugin", "list", "--profile", "p").out());
    assertUserError(
        harness("skill", "enable", "painting", "--profile", "p"),
        "no plugin in profile p declares a skill named 'painting'");
    assertEquals(0, harness("plugin", "remove", "--profile", "p", "browser").exitCode());
    assertEquals("no plugins in profile p\n", harness("plugin", "list", "--profile", "p").out());
    assertUserError(
        harness("plugin", "remove", "--profile", "p", "browser"),
        "plugin browser is not installed");
  }

  @Test
  void reportsABrokenProjectFileAnUnknownToolAndAnUnmatchedTarget() throws Exception {
    assertEquals(
        0,
        harness("plugin", "add", "--profile", "p", HarnessProcess.PACKAGE.toString()).exitCode());
    Path script =
        Files.writeString(project.resolve("script.yaml"), "steps:\n  - {tool: browser_teleport}\n");
    TestProjects.project(project, "plugins: {browser: {network: {mode: wide-open}}}\n");
    assertUserError(
        harness(
            "run",
            "--profile",
            "p",
            "--project",
            project.toString(),
            "--session",
            "s",
            script.toString()),
        "/plugins/browser/network/mode");
    TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
    var unknown =
        harness(
            "run",
            "--profile",
            "p",
            "--project",
            project.toString(),
            "--session",
            "s",
            script.toString());
    assertEquals(1, unknown.exitCode());
    assertTrue(unknown.out().contains("unknown tool 'browser_teleport'"), unknown.out());
    Files.writeString(
        script, "steps:\n  - {tool: browser_click, args: {target: {name: Nothing}}}\n");
    var unmatched =
        harness(
            "run",
            "--profile",
            "p",
            "--project",
            project.toString(),
            "--session",
            "s",
            script.toString());
    assertEquals(1, unmatched.exitCode());
    assertTrue(unmatched.out().contains("needs an observation first"), unmatched.out());
    Files.writeString(script, "stops: []\n");
    assertUserError(
        harness(
            "run",
            "--profile",
            "p",
            "--project",
            project.toString(),
            "--session",
            "s",
            script.toString()),
        "expected 'steps:'");
    Files.writeString(script, "steps:\n  - {tool: browser_observe}\n");
    assertUserError(
        harness(
            "run",
            "--profile",
            "p",
            "--project",
            project.resolve("nowhere").toString(),
            "--session",
            "s",
            script.toString()),
        "does not exist");
  }

  @Test
  void doctorChecksJavaThePluginsChromiumAndOpensAPage() throws Exception {
    assertEquals(
        0,
        harness("plugin", "add", "--profile", "p", HarnessProcess.PACKAGE.toString()).exitCode());
    var r = harness("doctor");
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("[ok  ] chromium"), r.out());
    assertTrue(r.out().contains(", starts headless in "), r.out());
    // Chromium's headless shell, which runs the headless browsers when it is installed (./test
    // installs it where apt-get can), is checked as well.
    assertTrue(
        java.nio.file.Files.isExecutable(
                java.nio.file.Path.of("/usr/lib/chromium/chromium-headless-shell"))
            ? r.out()
                .contains(
                    "[ok  ] headless shell    /usr/lib/chromium/chromium-headless-shell (Chromium ")
            : r.out().contains("[info] headless shell    not installed: headless browsers run "),
        r.out());
    assertTrue(r.out().contains("[ok  ] node.js"), r.out());
    assertTrue(
        r.out().contains("[ok  ] p/browser         browser 0.1.0 verified, sha256 "), r.out());
    assertTrue(r.out().contains("[ok  ] checkpoints p     no browser sessions yet"), r.out());
    assertTrue(r.out().contains("[ok  ] live check        opened http://127.0.0.1:"), r.out());
    assertTrue(r.out().contains("acted on it, checkpointed and restored it"), r.out());
    assertTrue(r.out().strip().endsWith("checks passed."), r.out());
    // The live check leaves no session, checkpoint or transition of its own behind.
    var sessions = harness("sessions", "--profile", "p");
    assertEquals(1, sessions.out().strip().lines().count(), sessions.out());
    var checkpoints = harness("checkpoints", "--profile", "p");
    assertEquals(1, checkpoints.out().strip().lines().count(), checkpoints.out());
  }

  @Test
  void doctorReportsAnInstalledPluginThatNoLongerMatchesItsPackage() throws Exception {
    assertEquals(
        0,
        harness("plugin", "add", "--profile", "p", HarnessProcess.PACKAGE.toString()).exitCode());
    Path descriptor = home.resolve("profiles/p/plugins/browser/plugin.yaml");
    Files.writeString(
        descriptor, Files.readString(descriptor).replace("Periscope", "Someone else"));
    var r = harness("doctor", "--no-live-check");
    assertEquals(1, r.exitCode(), r.out());
    assertTrue(r.out().contains("[FAIL] p/browser"), r.out());
    assertTrue(r.out().contains("differs from"), r.out());
    assertTrue(
        r.out().contains("→ reinstall: harness plugin add --replace --profile p PACKAGE"), r.out());
  }

  @Test
  void doctorFailsWithARemedyWhenNoProfileHasThePlugin() throws Exception {
    var r = harness("doctor");
    assertEquals(1, r.exitCode());
    assertTrue(r.out().contains("[FAIL] live check"), r.out());
    assertTrue(r.out().contains("→ harness plugin add --profile P"), r.out());
    assertTrue(r.out().strip().endsWith("checks failed."), r.out());
  }

  @Test
  void verifiesAPackageFromTheHarnessCommandLine() throws Exception {
    var r = harness("verify", HarnessProcess.PACKAGE.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("package browser 0.1.0"), r.out());
    assertTrue(
        r.out().lines().reduce((a, b) -> b).orElse("").matches("sha256: [0-9a-f]{64}"), r.out());
  }

  @Test
  void demoRunsAScriptedSessionAndEndsWithWhereTheScreenshotIsStored() throws Exception {
    var r = harness("demo", "--package", HarnessProcess.PACKAGE.toString());
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("There are 217 steps to the lamp room."), r.out());
    String last = r.out().strip().lines().reduce((a, b) -> b).orElse("");
    assertTrue(
        last.matches("The screenshot is attachment attachment-[0-9a-f-]+, stored at .*\\.png"),
        last);
    Path stored = Path.of(last.substring(last.indexOf("stored at ") + "stored at ".length()));
    assertTrue(stored.startsWith(home.resolve("profiles/demo/attachments")), last);
    assertTrue(Files.size(stored) > 0);
  }
}
