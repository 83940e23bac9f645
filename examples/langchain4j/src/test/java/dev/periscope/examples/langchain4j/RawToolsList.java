package dev.periscope.examples.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * {@code tools/list} over plain HTTP, with no MCP library between the server and the test: the JSON
 * Schemas exactly as the server sends them. Its MCP session is ended with {@code DELETE}.
 */
final class RawToolsList {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RawToolsList() {}

  /** The {@code tools} array of the server's answer. */
  static JsonNode fetch(String endpoint, String token) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    HttpResponse<String> init =
        post(
            http,
            endpoint,
            token,
            null,
            """
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",\
            "capabilities":{},"clientInfo":{"name":"raw-tools-list","version":"1"}}}""");
    String session =
        init.headers()
            .firstValue("Mcp-Session-Id")
            .orElseThrow(() -> new AssertionError("no Mcp-Session-Id: " + init.body()));
    post(
        http,
        endpoint,
        token,
        session,
        """
        {"jsonrpc":"2.0","method":"notifications/initialized"}""");
    HttpResponse<String> list =
        post(
            http,
            endpoint,
            token,
            session,
            """
            {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}""");
    http.send(
        HttpRequest.newBuilder(URI.create(endpoint))
            .header("Authorization", "Bearer " + token)
            .header("Mcp-Session-Id", session)
            .DELETE()
            .build(),
        HttpResponse.BodyHandlers.discarding());
    JsonNode tools = message(list.body()).path("result").path("tools");
    if (!tools.isArray() || tools.isEmpty()) {
      throw new AssertionError("no tools in " + list.body());
    }
    return tools;
  }

  private static HttpResponse<String> post(
      HttpClient http, String endpoint, String token, String session, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(endpoint))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new AssertionError("HTTP " + r.statusCode() + " for " + body + ": " + r.body());
    }
    return r;
  }

  /** The JSON-RPC message of a body that is JSON or a stream of server-sent events. */
  private static JsonNode message(String body) throws IOException {
    String json = body.strip();
    if (!json.startsWith("{")) {
      StringBuilder data = new StringBuilder();
      json.lines()
          .filter(l -> l.startsWith("data:"))
          .forEach(l -> data.append(l.substring(5).strip()));
      json = data.toString();
    }
    return JSON.readTree(json);
  }
}
