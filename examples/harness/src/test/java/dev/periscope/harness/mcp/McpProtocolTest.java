package dev.periscope.harness.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.host.HostTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code harness mcp} at the wire: lines written to its standard input as a careless or hostile
 * client would, and every line of its standard output read back as JSON-RPC.
 */
class McpProtocolTest {

  @TempDir Path home;
  @TempDir Path project;
  @TempDir Path tmp;

  @BeforeEach
  void install() throws Exception {
    InstalledProfiles.install(home, "p");
    TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
  }

  private McpWire wire(Map<String, String> environment, String... args) throws IOException {
    return new McpWire(home, tmp, project, environment, args);
  }

  @Test
  void theNewestProtocolAndTheOlderOnesAreSpokenWithoutAWarning() throws Exception {
    for (String version : List.of("2025-11-25", "2025-06-18", "2024-11-05")) {
      try (McpWire wire = wire(Map.of("HARNESS_LOG", "info"))) {
        JsonNode init = wire.ask(McpWire.INITIALIZE.replace("2025-06-18", version));
        assertEquals(
            version, init.path("result").path("protocolVersion").asText(), init.toString());
        wire.send(McpWire.INITIALIZED);
        JsonNode tools = wire.ask("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
        assertTrue(tools.path("result").path("tools").size() > 20, tools.toString());
        wire.in.close();
        assertEquals(0, wire.exit(60));
        String err = Files.readString(wire.err);
        assertFalse(err.contains("WARN"), version + ": " + err);
      }
    }
  }

  @Test
  void badLinesGetErrorsAndTheServerKeepsServing() throws Exception {
    try (McpWire wire = wire(Map.of("HARNESS_LOG", "debug"))) {
      JsonNode init = wire.ask(McpWire.INITIALIZE);
      assertEquals(
          "2025-06-18", init.path("result").path("protocolVersion").asText(), init.toString());
      wire.send(McpWire.INITIALIZED);

      for (String garbage :
          List.of("{not json", "\u0000\u0001", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":")) {
        JsonNode error = wire.ask(garbage);
        assertEquals(-32700, error.path("error").path("code").asInt(), error.toString());
        assertTrue(error.has("id") && error.get("id").isNull(), "id null: " + error);
      }
      for (String notARequest :
          List.of(
              "[1,2]",
              "42",
              "{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"tools/list\"}",
              "{\"jsonrpc\":\"2.0\",\"id\":4}")) {
        JsonNode error = wire.ask(notARequest);
        assertEquals(
            -32600, error.path("error").path("code").asInt(), notARequest + " -> " + error);
      }
      for (String badParams :
          List.of(
              "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":\"x\"}",
              "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"arguments\":{}}}",
              "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"browser_open\",\"arguments\":[1]}}")) {
        JsonNode error = wire.ask(badParams);
        assertEquals(5, error.path("id").asInt(), error.toString());
        assertEquals(-32602, error.path("error").path("code").asInt(), badParams + " -> " + error);
      }
      JsonNode huge =
          wire.ask(
              "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{\"x\":\""
                  + "a".repeat(4 << 20)
                  + "\"}}");
      assertEquals(-32600, huge.path("error").path("code").asInt(), huge.toString());
      JsonNode unknown =
          wire.ask(
              "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"rm_rf\"}}");
      assertEquals(-32602, unknown.path("error").path("code").asInt(), unknown.toString());
      JsonNode noMethod =
          wire.ask("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/teleport\"}");
      assertEquals(-32601, noMethod.path("error").path("code").asInt(), noMethod.toString());
      for (String lenient :
          List.of(
              "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\"} trailing",
              "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"}{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"}",
              "{\"jsonrpc\":\"2.0\",\"id\":13,\"id\":14,\"method\":\"ping\"}")) {
        JsonNode error = wire.ask(lenient);
        assertEquals(-32700, error.path("error").path("code").asInt(), lenient + " -> " + error);
      }
      // A value typed into a page is the user's data: even at debug, the log names arguments, never
      // their values.
      wire.call(
          15,
          "browser_fill",
          Map.of("observation_id", "o-none", "element_ref", "e1", "value", "typed-4f1c9e"));
      // The JVM's own output (a thread dump on SIGQUIT) goes to standard error, not into the
      // protocol.
      assertEquals(
          0,
          new ProcessBuilder("kill", "-QUIT", Long.toString(wire.process.pid())).start().waitFor());

      // Still serving: a tool call that breaks the schema is a result naming the field.
      JsonNode invalid =
          wire.ask(
              "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\","
                  + "\"params\":{\"name\":\"browser_open\",\"arguments\":{\"url\":\"http://127.0.0.1/\",\"mode\":\"everything\"}}}");
      assertTrue(invalid.path("result").path("isError").asBoolean(), invalid.toString());
      String text = invalid.path("result").path("content").get(0).path("text").asText();
      assertTrue(text.startsWith("invalid arguments for browser_open: /mode: "), text);
      assertTrue(
          text.endsWith(
              "code=BROWSER_INVALID_ARGUMENT observation=valid lease=intact retryable=false"),
          text);
      JsonNode error = invalid.path("result").path("structuredContent").path("error");
      assertEquals("BROWSER_INVALID_ARGUMENT", error.path("code").asText(), invalid.toString());
      assertEquals(text.lines().findFirst().orElseThrow(), error.path("message").asText());
      assertEquals("intact", error.path("lease").asText());
      assertFalse(error.path("retryable").asBoolean(true));
      JsonNode list = wire.ask("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}");
      List<String> listed = new java.util.ArrayList<>();
      list.path("result").path("tools").forEach(t -> listed.add(t.path("name").asText()));
      assertEquals(
          new java.util.TreeSet<>(HostTest.toolsWithoutCredentials()),
          new java.util.TreeSet<>(listed));

      // Standard input ends: the server stops by itself, cleanly, and has said nothing more:
      // notifications and the
      // cancellation of nothing get no answer, and the thread dump went to standard error.
      wire.send(
          "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":99}}");
      wire.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/no_such_thing\"}");
      wire.in.close();
      assertEquals(0, wire.exit(60), Files.readString(wire.err));
      assertEquals(List.of(), wire.rest());
      String err = Files.readString(wire.err);
      assertTrue(err.contains("Full thread dump"), "the dump went to standard error");
      assertTrue(
          err.contains("DEBUG") && !err.contains("typed-4f1c9e"),
          "debug log without the typed value");
    }
  }

  @Test
  void aDisabledSkillsToolsAreAbsent() throws Exception {
    var disabled =
        HarnessProcess.run(
            home,
            tmp,
            "skill",
            "disable",
            "browser",
            "--profile",
            "p",
            "--project",
            project.toString());
    assertEquals(0, disabled.exitCode(), disabled.err());
    try (McpWire wire = wire(Map.of())) {
      JsonNode init = wire.ask(McpWire.INITIALIZE);
      assertEquals(
          "",
          init.path("result").path("instructions").asText(""),
          "no guidance for a disabled skill");
      wire.send(McpWire.INITIALIZED);
      assertEquals(
          0,
          wire.ask("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}")
              .path("result")
              .path("tools")
              .size());
      JsonNode call =
          wire.ask(
              "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
                  + "\"params\":{\"name\":\"browser_open\",\"arguments\":{\"url\":\"http://127.0.0.1/\"}}}");
      assertEquals(-32602, call.path("error").path("code").asInt(), call.toString());
      wire.in.close();
      assertEquals(0, wire.exit(60));
    }
  }

  @Test
  void aStopSignalEndsTheSessionWithACheckpointAndLeavesNoBrowser() throws Exception {
    try (LoginSite site = new LoginSite()) {
      try (McpWire wire = wire(Map.of("HARNESS_LOG", "info"), "--session", "signalled")) {
        wire.initialized();
        assertFalse(
            wire.ask(open(2, site.url("/do-login"))).path("result").path("isError").asBoolean());
        assertFalse(
            wire.ask(open(3, site.url("/later"))).path("result").path("isError").asBoolean());
        List<ProcessHandle> started = wire.process.descendants().toList();
        assertTrue(
            started.stream().anyMatch(p -> p.info().command().orElse("").contains("chromium")),
            started.toString());
        // The page changes its state after the action's own checkpoint; only the checkpoint of the
        // release keeps it.
        assertTrue(site.awaitLater(), "the page changed its theme");

        wire.process.destroy(); // SIGTERM, as the SDK's client sends when it closes
        assertEquals(0, wire.exit(60), "a clean stop: clients log any other status as a failure");
        String err = Files.readString(wire.err);
        assertTrue(err.contains("agent session signalled ended; host stopped"), err);
        for (ProcessHandle p : started) {
          p.onExit().get(20, TimeUnit.SECONDS);
        }
        assertEquals(List.of(), wire.rest(), "standard output held the answers only");
      }
      try (var left = Files.list(tmp)) {
        assertEquals(
            List.of(),
            left.filter(p -> p.getFileName().toString().startsWith("periscope-")).toList());
      }
      try (McpWire again = wire(Map.of(), "--session", "signalled")) {
        again.initialized();
        String home =
            again
                .ask(open(2, site.url("/home")))
                .path("result")
                .path("content")
                .get(0)
                .path("text")
                .asText();
        assertTrue(home.contains("Welcome back, keeper") && home.contains("Theme: late"), home);
        again.in.close();
        assertEquals(0, again.exit(60));
      }
    }
  }

  @Test
  void aCancelledCallStopsAndItsAnswerIsNeverSent() throws Exception {
    try (LoginSite site = new LoginSite();
        McpWire wire = wire(Map.of())) {
      wire.initialized();
      wire.send(open(5, site.url("/slow"))); // answers after a minute
      assertTrue(site.awaitSlow(), "the browser is waiting on /slow");
      wire.send(
          "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5,"
              + "\"reason\":\"the user pressed escape\"}}");
      JsonNode next = wire.ask(open(6, site.url("/home")));
      // The next message is the answer to the next call: the cancelled one stopped, and its answer
      // was dropped.
      assertEquals(6, next.path("id").asInt(), next.toString());
      String text = next.path("result").path("content").get(0).path("text").asText();
      assertTrue(text.contains("Not logged in"), text);
      wire.in.close();
      assertEquals(0, wire.exit(60));
      assertEquals(List.of(), wire.rest());
      assertTrue(wire.raw.stream().noneMatch(l -> l.contains("\"id\":5")), wire.raw.toString());
    }
  }

  private static String open(int id, String url) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\"browser_open\","
        + "\"arguments\":{\"url\":\""
        + url
        + "\"}}}";
  }
}
