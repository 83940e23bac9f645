package dev.periscope.harness.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Raw HTTP to {@code harness mcp --http}, for what the SDK's client never sends and for tests that
 * keep every byte the server answered ({@link #answers}).
 */
final class McpHttpRaw {
  static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";

  private final McpHttpProcess server;
  private final HttpClient http = HttpClient.newHttpClient();

  /** Every answer, its headers and body as they came. */
  final List<String> answers = new CopyOnWriteArrayList<>();

  McpHttpRaw(McpHttpProcess server) {
    this.server = server;
  }

  HttpResponse<String> post(String body, Map<String, String> headers) {
    return post(body.getBytes(StandardCharsets.UTF_8), headers);
  }

  HttpResponse<String> post(byte[] body, Map<String, String> headers) {
    return send(HttpRequest.BodyPublishers.ofByteArray(body), "POST", headers);
  }

  HttpResponse<String> delete(String session) {
    return send(HttpRequest.BodyPublishers.noBody(), "DELETE", Map.of("Mcp-Session-Id", session));
  }

  private HttpResponse<String> send(
      HttpRequest.BodyPublisher body, String method, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(server.endpoint)
            .method(method, body)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
    Map<String, String> all = new HashMap<>(Map.of("Authorization", "Bearer " + server.token));
    all.putAll(headers);
    all.forEach(
        (k, v) -> {
          if (!v.isEmpty()) {
            b.header(k, v);
          }
        });
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      answers.add(r.headers().map() + "\n" + r.body());
      return r;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A new session, initialized; its id. */
  String initialize() {
    HttpResponse<String> r = post(INITIALIZE, Map.of());
    assertEquals(200, r.statusCode(), r.body());
    String id = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertEquals(
        202,
        post(
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                Map.of("Mcp-Session-Id", id))
            .statusCode());
    return id;
  }

  /**
   * Calls a tool in {@code session} as request {@code id}; the JSON-RPC answer (the last event of
   * the stream the server answers with).
   */
  JsonNode call(String session, int id, String tool, Map<String, Object> arguments)
      throws java.io.IOException {
    String body = McpWire.toolCall(id, tool, arguments);
    HttpResponse<String> r = post(body, Map.of("Mcp-Session-Id", session));
    assertEquals(200, r.statusCode(), r.body());
    String data = null;
    for (String line : r.body().split("\n")) {
      if (line.startsWith("data:")) {
        data = line.substring(5).strip();
      }
    }
    if (data == null) {
      throw new AssertionError("no answer in " + r.body());
    }
    return McpWire.JSON.readTree(data).path("result");
  }

  /** A request written on a socket as given (request line and headers), with the token. */
  String socket(String head, String body) throws Exception {
    URI e = server.endpoint;
    try (Socket s = new Socket(e.getHost(), e.getPort())) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      s.getOutputStream()
          .write(
              (head
                      + "Authorization: Bearer "
                      + server.token
                      + "\r\nContent-Type: application/json\r\nContent-Length: "
                      + bytes.length
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().write(bytes);
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * Writes {@code request} as it is (its head and as much of its body as the test chooses) and
   * returns what the server answers until it closes the connection, or 15 s pass. A client that
   * went on writing a body the server refused unread could have its connection reset before it read
   * the answer; this one stops writing where the test says.
   */
  String exchange(byte[] request) throws Exception {
    URI e = server.endpoint;
    try (Socket s = new Socket(e.getHost(), e.getPort())) {
      s.setSoTimeout(15_000);
      s.getOutputStream().write(request);
      s.getOutputStream().flush();
      java.io.ByteArrayOutputStream answer = new java.io.ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      try {
        for (int n; (n = s.getInputStream().read(buffer)) > 0; ) {
          answer.write(buffer, 0, n);
        }
      } catch (java.net.SocketTimeoutException | java.net.SocketException stopped) {
        // what came before is the answer
      }
      return answer.toString(StandardCharsets.UTF_8);
    }
  }

  /** The head of a POST to the endpoint with the token, and {@code more} header lines. */
  String head(String more) {
    return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
        + server.token
        + "\r\nContent-Type: application/json\r\n"
        + more
        + "\r\n";
  }

  /** The JSON-RPC error code of an answer. */
  static int code(HttpResponse<String> r) {
    try {
      return McpWire.JSON.readTree(r.body()).path("error").path("code").asInt();
    } catch (java.io.IOException e) {
      throw new AssertionError(r.body(), e);
    }
  }
}
