package dev.periscope.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.harness.BrowserProcesses;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.mcp.McpConnection;
import dev.periscope.harness.mcp.McpWire;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness as a process under faults: {@code harness mcp} whose Chromium is killed goes on; a
 * client that goes away, or a stop signal, while a call is stuck, and {@code harness run} stopped
 * during a stuck step, leave no Java, Node.js or Chromium process and no temp root, and the session
 * resumes logged in.
 */
@Timeout(240)
class HarnessFaultsTest {
  /**
   * A navigation may wait a minute here, so a call to a server that never answers is stuck for the
   * whole test.
   */
  private static final String PROJECT =
      TestProjects.LOOPBACK_ONLY
          + """
          navigationTimeoutMs: 60000
      """;

  @TempDir Path home;
  @TempDir Path project;
  @TempDir Path tmp;
  private LoginSite site;
  private final CountDownLatch asked = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);

  @BeforeEach
  void start() throws Exception {
    InstalledProfiles.install(home, "p");
    TestProjects.project(project, PROJECT);
    site =
        new LoginSite()
            .handler(
                "/never",
                exchange -> {
                  asked.countDown();
                  try {
                    released.await(120, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  exchange.close();
                });
  }

  @AfterEach
  void stop() {
    released.countDown();
    site.close();
  }

  @Test
  void theMcpServersNextCallAfterChromiumWasKilledGoesOnLoggedIn() throws Exception {
    try (McpConnection mcp = new McpConnection(home, tmp, Map.of(), project, "--session", "kept")) {
      McpSchema.CallToolResult login = mcp.call("browser_open", Map.of("url", site.url("/login")));
      assertFalse(mcp.call("browser_click", McpConnection.target(login, "Log in")).isError());
      assertFalse(
          mcp.call("browser_observe", Map.of()).isError()); // the login's checkpoint is written
      ProcessHandle chromium =
          BrowserProcesses.browserProcess(
              Set.copyOf(mcp.server().descendants().filter(ProcessHandle::isAlive).toList()));
      chromium.destroyForcibly();
      McpSchema.CallToolResult next = mcp.call("browser_observe", Map.of());
      assertFalse(next.isError(), McpConnection.text(next));
      McpSchema.CallToolResult home = mcp.call("browser_open", Map.of("url", site.url("/home")));
      String text = McpConnection.text(home);
      assertTrue(text.contains("Welcome back, keeper") && text.contains("Theme: dark"), text);
      String err = String.join("\n", mcp.stderr);
      assertTrue(err.contains("ended by a fault (browser-exited): Chromium exited"), err);
    }
  }

  @Test
  void aClientThatGoesAwayDuringAStuckCallLeavesNothingRunning() throws Exception {
    Watched server =
        stuck(
            w -> {
              w.in.close(); // the client went away: its end of the pipe is closed (as when it is
              // killed)
              assertEquals(0, w.exit(30), Files.readString(w.err));
            });
    server.assertNothingLeft();
    assertResumesLoggedIn();
  }

  @Test
  void aStopSignalDuringAStuckCallLeavesNothingRunning() throws Exception {
    Watched server =
        stuck(
            w -> {
              w.process.destroy(); // SIGTERM
              // A clean stop, as MCP clients expect of a server they close so.
              assertEquals(0, w.exit(30), Files.readString(w.err));
            });
    server.assertNothingLeft();
    assertResumesLoggedIn();
  }

  @Test
  void harnessRunStoppedDuringAStuckStepLeavesNothingRunning() throws Exception {
    Path script = tmp.resolve("stuck.yaml");
    Files.writeString(
        script,
        "steps:\n"
            + "  - {tool: browser_open, args: {url: \""
            + site.url("/login")
            + "\"}}\n"
            + "  - {tool: browser_click, args: {target: {name: \"Log in\"}}}\n"
            + "  - {tool: browser_open, args: {url: \""
            + site.url("/never")
            + "\"}}\n");
    List<String> command = HarnessProcess.java(tmp);
    command.addAll(
        List.of(
            "run",
            "--profile",
            "p",
            "--project",
            project.toString(),
            "--session",
            "kept",
            script.toString()));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment()
        .putAll(
            Map.of(
                "HARNESS_HOME",
                home.toString(),
                "TMPDIR",
                tmp.toString(),
                "HARNESS_TTY",
                "none",
                "HARNESS_LOG",
                "info"));
    Path err = tmp.resolve("run-err.txt");
    pb.redirectError(err.toFile())
        .redirectOutput(tmp.resolve("run-out.txt").toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    Process run = pb.start();
    Watched watched = new Watched(run);
    try {
      assertTrue(asked.await(90, TimeUnit.SECONDS), "the run never reached its stuck step");
      run.destroy(); // SIGTERM
      assertTrue(
          run.waitFor(30, TimeUnit.SECONDS), "harness run did not stop; " + Files.readString(err));
      assertEquals(143, run.exitValue());
    } finally {
      watched.close();
      run.descendants().forEach(ProcessHandle::destroyForcibly);
      run.destroyForcibly();
    }
    watched.assertNothingLeft();
    assertResumesLoggedIn();
  }

  private interface Ending {
    void end(McpWire wire) throws Exception;
  }

  /**
   * A server that logged in, then got stuck in a call to a server that never answers; {@code
   * ending} ends it.
   */
  private Watched stuck(Ending ending) throws Exception {
    try (McpWire wire =
        new McpWire(home, tmp, project, Map.of("HARNESS_LOG", "info"), "--session", "kept")) {
      Watched watched = new Watched(wire.process);
      try {
        wire.initialized();
        var login = wire.call(2, "browser_open", Map.of("url", site.url("/login")));
        assertFalse(
            wire.call(3, "browser_click", McpWire.target(login, "Log in"))
                .path("isError")
                .asBoolean());
        wire.send(
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"browser_open\","
                + "\"arguments\":{\"url\":\""
                + site.url("/never")
                + "\"}}}");
        assertTrue(asked.await(60, TimeUnit.SECONDS), "the call never reached the server");
        long start = System.nanoTime();
        ending.end(wire);
        // The cleanup deadline (10 s) bounds the stop; the rest is the JVM's own exit.
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println("stopped during a stuck call in " + ms + " ms");
        assertTrue(ms < 20_000, "stopping took " + ms + " ms");
      } finally {
        watched.close();
      }
      return watched;
    }
  }

  /**
   * The next process of the same agent session is still logged in: the login's checkpoint stood.
   */
  private void assertResumesLoggedIn() throws Exception {
    try (McpConnection mcp = new McpConnection(home, tmp, Map.of(), project, "--session", "kept")) {
      String text = McpConnection.text(mcp.call("browser_open", Map.of("url", site.url("/home"))));
      assertTrue(text.contains("Welcome back, keeper") && text.contains("Theme: dark"), text);
    }
  }

  /**
   * Every process a harness process starts, recorded while it runs (after it exits they are no
   * longer its own).
   */
  private final class Watched implements AutoCloseable {
    final Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();
    private final Thread watcher;
    private volatile boolean closed;

    Watched(Process process) {
      seen.add(process.toHandle());
      watcher =
          new Thread(
              () -> {
                while (!closed) {
                  process.descendants().forEach(seen::add);
                  try {
                    Thread.sleep(20);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      watcher.setDaemon(true);
      watcher.start();
    }

    @Override
    public void close() throws InterruptedException {
      closed = true;
      watcher.join();
    }

    void assertNothingLeft() throws Exception {
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (System.nanoTime() < deadline && seen.stream().anyMatch(BrowserProcesses::running)) {
        Thread.sleep(50);
      }
      assertEquals(
          List.of(),
          seen.stream()
              .filter(BrowserProcesses::running)
              .map(p -> p.pid() + " " + p.info().command().orElse("?"))
              .toList(),
          "processes left running");
      try (var left = Files.list(tmp)) {
        assertEquals(
            List.of(),
            left.filter(p -> p.getFileName().toString().startsWith("periscope-")).toList(),
            "temp roots left");
      }
      assertTrue(
          seen.size() >= 3, "the watch saw the harness, the driver and Chromium: " + seen.size());
    }
  }
}
