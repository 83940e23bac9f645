package dev.periscope.harness.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.periscope.harness.HarnessProcess;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code harness mcp} at the wire: a server process, the lines written to its standard input, and
 * every line of its standard output exactly as it came (standard error goes to a file).
 */
public final class McpWire implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
          + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
  static final String INITIALIZED =
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

  public final Process process;
  public final Path err;

  /** Every line of standard output, as read, whether or not a test took it yet. */
  final List<String> raw = new CopyOnWriteArrayList<>();

  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Thread reader;
  public final OutputStream in;

  public McpWire(Path home, Path tmp, Path project, Map<String, String> environment, String... args)
      throws IOException {
    List<String> command = HarnessProcess.java(tmp);
    command.addAll(List.of("mcp", "--profile", "p", "--project", project.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment()
        .putAll(
            Map.of(
                "HARNESS_HOME", home.toString(), "TMPDIR", tmp.toString(), "HARNESS_TTY", "none"));
    pb.environment().putAll(environment);
    err = Files.createTempFile(tmp, "mcp-err-", ".txt");
    pb.redirectError(err.toFile());
    process = pb.start();
    in = process.getOutputStream();
    reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  raw.add(line);
                  lines.add(line);
                }
              } catch (IOException e) {
                // the process ended
              }
            });
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts a session as a client does. */
  public McpWire initialized() throws Exception {
    ask(INITIALIZE);
    send(INITIALIZED);
    return this;
  }

  public void send(String line) throws IOException {
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** The next line of standard output, which must be one JSON-RPC message. */
  JsonNode next() throws Exception {
    String line = lines.poll(120, TimeUnit.SECONDS);
    assertTrue(line != null, "a message within 120 s; standard error: " + Files.readString(err));
    JsonNode message = JSON.readTree(line);
    assertEquals("2.0", message.path("jsonrpc").asText(), line);
    return message;
  }

  JsonNode ask(String line) throws Exception {
    send(line);
    return next();
  }

  /** A {@code tools/call} request as JSON text. */
  static String toolCall(int id, String tool, Map<String, Object> arguments)
      throws java.io.IOException {
    return JSON.writeValueAsString(
        Map.of(
            "jsonrpc",
            "2.0",
            "id",
            id,
            "method",
            "tools/call",
            "params",
            Map.of("name", tool, "arguments", arguments)));
  }

  /** Calls a tool; the answer's {@code result}. */
  public JsonNode call(int id, String tool, Map<String, Object> arguments) throws Exception {
    JsonNode answer = ask(toolCall(id, tool, arguments));
    assertEquals(id, answer.path("id").asInt(), answer.toString());
    return answer.path("result");
  }

  static String text(JsonNode result) {
    StringBuilder b = new StringBuilder();
    result
        .path("content")
        .forEach(
            c -> {
              if (c.path("type").asText().equals("text")) {
                b.append(b.length() == 0 ? "" : "\n").append(c.path("text").asText());
              }
            });
    return b.toString();
  }

  /**
   * The {@code observation_id} and {@code element_ref} of the element with that name in a result's
   * observation.
   */
  public static Map<String, Object> target(JsonNode result, String name) {
    JsonNode observation = result.path("structuredContent").path("observation");
    for (JsonNode e : observation.path("elements")) {
      if (name.equals(e.path("name").asText())) {
        return new java.util.HashMap<>(
            Map.of(
                "observation_id",
                observation.path("id").asText(),
                "element_ref",
                e.path("ref").asText()));
      }
    }
    throw new AssertionError("no element named " + name + " in " + observation);
  }

  public int exit(long seconds) throws InterruptedException {
    assertTrue(process.waitFor(seconds, TimeUnit.SECONDS), "the server exits");
    return process.exitValue();
  }

  /**
   * After the server exited: the lines of standard output no test took, each checked to be a
   * JSON-RPC message.
   */
  List<String> rest() throws Exception {
    reader.join(TimeUnit.SECONDS.toMillis(30));
    List<String> rest = new ArrayList<>();
    lines.drainTo(rest);
    for (String line : rest) {
      assertEquals("2.0", JSON.readTree(line).path("jsonrpc").asText(), line);
    }
    return rest;
  }

  /** Stops whatever still runs, the browser first, so a failed test leaves nothing behind. */
  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
