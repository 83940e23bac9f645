package dev.periscope.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code harness mcp} at the wire: lines written to its standard input as a careless or hostile client would, and
 * every line of its standard output read back as JSON-RPC.
 */
class McpProtocolTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
      + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
  static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

  @TempDir Path home;
  @TempDir Path project;
  @TempDir Path tmp;

  @BeforeEach
  void install() throws Exception {
    var add = HarnessProcess.run(home, tmp, "plugin", "add", "--profile", "p", HarnessProcess.PACKAGE.toString());
    assertEquals(0, add.exitCode(), add.err());
    TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
  }

  /** A server process and its pipes; standard error goes to a file. */
  final class Wire implements AutoCloseable {
    final Process process;
    final Path err;
    final List<String> out = new ArrayList<>();
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final OutputStream in;

    Wire(Map<String, String> environment, String... args) throws IOException {
      List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Djava.io.tmpdir=" + tmp, "-cp", "target/classes" + java.io.File.pathSeparator + "target/lib/*",
          "dev.periscope.harness.Main", "mcp", "--profile", "p", "--project", project.toString()));
      command.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.environment().putAll(Map.of("HARNESS_HOME", home.toString(), "TMPDIR", tmp.toString(), "HARNESS_TTY", "none"));
      pb.environment().putAll(environment);
      err = Files.createTempFile(tmp, "mcp-err-", ".txt");
      pb.redirectError(err.toFile());
      process = pb.start();
      in = process.getOutputStream();
      Thread reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line = r.readLine(); line != null; line = r.readLine()) {
            lines.add(line);
          }
        } catch (IOException e) {
          // the process ended
        }
      });
      reader.setDaemon(true);
      reader.start();
    }

    void send(String line) throws IOException {
      in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    }

    /** The next line of standard output, which must be one JSON-RPC message. */
    JsonNode next() throws Exception {
      String line = lines.poll(120, TimeUnit.SECONDS);
      assertTrue(line != null, "a message within 120 s; standard error: " + Files.readString(err));
      out.add(line);
      JsonNode message = JSON.readTree(line);
      assertEquals("2.0", message.path("jsonrpc").asText(), line);
      return message;
    }

    JsonNode ask(String line) throws Exception {
      send(line);
      return next();
    }

    int exit(long seconds) throws InterruptedException {
      assertTrue(process.waitFor(seconds, TimeUnit.SECONDS), "the server exits");
      return process.exitValue();
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  @Test
  void badLinesGetErrorsAndTheServerKeepsServing() throws Exception {
    try (Wire wire = new Wire(Map.of())) {
      JsonNode init = wire.ask(INITIALIZE);
      assertEquals("2025-06-18", init.path("result").path("protocolVersion").asText(), init.toString());
      wire.send(INITIALIZED);

      for (String garbage : List.of("{not json", "\u0000\u0001", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":")) {
        JsonNode error = wire.ask(garbage);
        assertEquals(-32700, error.path("error").path("code").asInt(), error.toString());
        assertTrue(error.has("id") && error.get("id").isNull(), "id null: " + error);
      }
      for (String notARequest : List.of("[1,2]", "42", "{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"tools/list\"}",
          "{\"jsonrpc\":\"2.0\",\"id\":4}")) {
        JsonNode error = wire.ask(notARequest);
        assertEquals(-32600, error.path("error").path("code").asInt(), notARequest + " -> " + error);
      }
      for (String badParams : List.of("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":\"x\"}",
          "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"arguments\":{}}}",
          "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"browser_open\",\"arguments\":[1]}}")) {
        JsonNode error = wire.ask(badParams);
        assertEquals(5, error.path("id").asInt(), error.toString());
        assertEquals(-32602, error.path("error").path("code").asInt(), badParams + " -> " + error);
      }
      JsonNode huge = wire.ask("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{\"x\":\""
          + "a".repeat(4 << 20) + "\"}}");
      assertEquals(-32600, huge.path("error").path("code").asInt(), huge.toString());
      JsonNode unknown = wire.ask("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"rm_rf\"}}");
      assertEquals(-32602, unknown.path("error").path("code").asInt(), unknown.toString());
      JsonNode noMethod = wire.ask("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/teleport\"}");
      assertEquals(-32601, noMethod.path("error").path("code").asInt(), noMethod.toString());

      // Still serving: a tool call that breaks the schema is a result naming the field.
      JsonNode invalid = wire.ask("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\","
          + "\"params\":{\"name\":\"browser_open\",\"arguments\":{\"url\":\"http://127.0.0.1/\",\"mode\":\"everything\"}}}");
      assertTrue(invalid.path("result").path("isError").asBoolean(), invalid.toString());
      String text = invalid.path("result").path("content").get(0).path("text").asText();
      assertTrue(text.startsWith("invalid arguments for browser_open: /mode: "), text);
      assertTrue(text.endsWith("code=BROWSER_INVALID_ARGUMENT observation=valid lease=intact retryable=false"), text);
      JsonNode list = wire.ask("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}");
      assertEquals(19, list.path("result").path("tools").size(), list.toString());

      // Standard input ends: the server stops by itself, cleanly.
      wire.in.close();
      assertEquals(0, wire.exit(60), Files.readString(wire.err));
    }
  }

  @Test
  void aDisabledSkillsToolsAreAbsent() throws Exception {
    var disabled = HarnessProcess.run(home, tmp, "skill", "disable", "browser", "--profile", "p",
        "--project", project.toString());
    assertEquals(0, disabled.exitCode(), disabled.err());
    try (Wire wire = new Wire(Map.of())) {
      JsonNode init = wire.ask(INITIALIZE);
      assertEquals("", init.path("result").path("instructions").asText(""), "no guidance for a disabled skill");
      wire.send(INITIALIZED);
      assertEquals(0, wire.ask("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").path("result").path("tools").size());
      JsonNode call = wire.ask("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
          + "\"params\":{\"name\":\"browser_open\",\"arguments\":{\"url\":\"http://127.0.0.1/\"}}}");
      assertEquals(-32602, call.path("error").path("code").asInt(), call.toString());
      wire.in.close();
      assertEquals(0, wire.exit(60));
    }
  }

  @Test
  void aStopSignalEndsTheSessionWithACheckpointAndLeavesNoBrowser() throws Exception {
    try (LoginSite site = new LoginSite()) {
      try (Wire wire = new Wire(Map.of("HARNESS_LOG", "info"), "--session", "signalled")) {
        wire.ask(INITIALIZE);
        wire.send(INITIALIZED);
        assertFalse(wire.ask(open(2, site.url("/do-login"))).path("result").path("isError").asBoolean());
        assertFalse(wire.ask(open(3, site.url("/later"))).path("result").path("isError").asBoolean());
        List<ProcessHandle> started = wire.process.descendants().toList();
        assertTrue(started.stream().anyMatch(p -> p.info().command().orElse("").contains("chromium")), started.toString());
        // The page changes its state after the action's own checkpoint; only the checkpoint of the release keeps it.
        Thread.sleep(3000);

        wire.process.destroy(); // SIGTERM, as the SDK's client sends when it closes
        assertEquals(143, wire.exit(60));
        String err = Files.readString(wire.err);
        assertTrue(err.contains("agent session signalled ended; host stopped"), err);
        for (ProcessHandle p : started) {
          p.onExit().get(20, TimeUnit.SECONDS);
        }
        for (String line : wire.out) {
          JSON.readTree(line); // standard output held protocol messages only
        }
      }
      try (var left = Files.list(tmp)) {
        assertEquals(List.of(), left.filter(p -> p.getFileName().toString().startsWith("periscope-")).toList());
      }
      try (Wire again = new Wire(Map.of(), "--session", "signalled")) {
        again.ask(INITIALIZE);
        again.send(INITIALIZED);
        String home = again.ask(open(2, site.url("/home"))).path("result").path("content").get(0).path("text").asText();
        assertTrue(home.contains("Welcome back, keeper") && home.contains("Theme: late"), home);
        again.in.close();
        assertEquals(0, again.exit(60));
      }
    }
  }

  @Test
  void aCancelledCallStopsAndItsAnswerIsNeverSent() throws Exception {
    try (LoginSite site = new LoginSite(); Wire wire = new Wire(Map.of())) {
      wire.ask(INITIALIZE);
      wire.send(INITIALIZED);
      wire.send(open(5, site.url("/slow"))); // answers after a minute
      Thread.sleep(2000);
      wire.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5,"
          + "\"reason\":\"the user pressed escape\"}}");
      long sent = System.nanoTime();
      JsonNode next = wire.ask(open(6, site.url("/home")));
      // The next message is the answer to the next call: the cancelled one stopped, and its answer was dropped.
      assertEquals(6, next.path("id").asInt(), next.toString());
      assertTrue(System.nanoTime() - sent < TimeUnit.SECONDS.toNanos(45), "well before /slow would have answered");
      String text = next.path("result").path("content").get(0).path("text").asText();
      assertTrue(text.contains("Not logged in"), text);
      wire.in.close();
      assertEquals(0, wire.exit(60));
      assertTrue(wire.out.stream().noneMatch(l -> l.contains("\"id\":5")), wire.out.toString());
    }
  }

  private static String open(int id, String url) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"browser_open\","
        + "\"arguments\":{\"url\":\"" + url + "\"}}}";
  }
}
