package dev.periscope.harness.mcp;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What both transports take as one MCP message, and how they answer what they do not: text that is
 * not one JSON value is a parse error (-32700), JSON that is not a JSON-RPC message an invalid
 * request (-32600), a {@code tools/call} whose params are not a tool call, or that names no tool
 * the server offers, invalid params (-32602; the latter names the closest tool). Standard input and
 * output and HTTP answer alike, and keep serving.
 */
final class MessageRules {
  /** The key, in a request's transport context, of its JSON-RPC id (as {@link #key}). */
  static final String REQUEST_ID = "jsonrpc-request-id";

  static final String CANCELLED = "notifications/cancelled";

  /**
   * A longer message is refused unread: no tool call needs it, and a client cannot make the server
   * hold more.
   */
  static final int MAX_MESSAGE = 4 << 20;

  /**
   * The versions whose features the tools use (annotations, structured content) or that older
   * clients ask for.
   */
  static final List<String> VERSIONS =
      List.of(
          ProtocolVersions.MCP_2024_11_05,
          ProtocolVersions.MCP_2025_03_26,
          ProtocolVersions.MCP_2025_06_18,
          ProtocolVersions.MCP_2025_11_25);

  /**
   * Reads a message as exactly one JSON value: text after it ({@code {...} {...}}, or trailing
   * garbage) and a key given twice (two ids, say) are parse errors rather than something silently
   * dropped or overwritten.
   */
  static final ObjectMapper STRICT =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private MessageRules() {}

  /** One message as a JSON-RPC message, or the error response that answers it. */
  static JSONRPCMessage parse(McpJsonMapper json, String text) {
    Object value;
    try {
      value = STRICT.readValue(text, Object.class);
    } catch (IOException | RuntimeException e) {
      throw new Refused(
          null, McpSchema.ErrorCodes.PARSE_ERROR, "Parse error: the message is not one JSON value");
    }
    if (!(value instanceof Map<?, ?> map)) {
      throw new Refused(
          null,
          McpSchema.ErrorCodes.INVALID_REQUEST,
          "Invalid request: a message is one JSON object");
    }
    // The id answers to, when it is one a request may have; else null, as JSON-RPC asks.
    Object id =
        map.get("id") instanceof String || map.get("id") instanceof Number ? map.get("id") : null;
    if (!McpSchema.JSONRPC_VERSION.equals(map.get("jsonrpc"))) {
      throw new Refused(
          id, McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid request: jsonrpc must be \"2.0\"");
    }
    JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(json, text);
    } catch (IOException | RuntimeException e) {
      throw new Refused(
          id,
          McpSchema.ErrorCodes.INVALID_REQUEST,
          "Invalid request: not a JSON-RPC request, notification or response");
    }
    if (message instanceof McpSchema.JSONRPCRequest request
        && McpSchema.METHOD_TOOLS_CALL.equals(request.method())
        && (!(request.params() instanceof Map<?, ?> params)
            || !(params.get("name") instanceof String)
            || (params.get("arguments") != null && !(params.get("arguments") instanceof Map)))) {
      throw new Refused(
          id,
          McpSchema.ErrorCodes.INVALID_PARAMS,
          "Invalid params: tools/call takes {name: string, arguments?: object}");
    }
    return message;
  }

  /**
   * Refuses a {@code tools/call} (as parsed) of a tool not among {@code tools}, the names the
   * server offers, with invalid params (-32602) naming the closest one.
   */
  static void requireTool(JSONRPCMessage message, java.util.Set<String> tools) {
    if (message instanceof McpSchema.JSONRPCRequest request
        && McpSchema.METHOD_TOOLS_CALL.equals(request.method())
        && request.params() instanceof Map<?, ?> params
        && !tools.contains((String) params.get("name"))) {
      throw new Refused(
          request.id(),
          McpSchema.ErrorCodes.INVALID_PARAMS,
          unknownTool((String) params.get("name"), tools));
    }
  }

  /**
   * What a client shows its user or model for a tool the server does not offer: the name as it came
   * (cut, and without control characters) and the closest of the offered ones.
   */
  static String unknownTool(String name, java.util.Set<String> tools) {
    String shown = name.replaceAll("\\p{Cntrl}", "?");
    shown = shown.length() > 64 ? shown.substring(0, 64) + "..." : shown;
    String closest = null;
    int best = Integer.MAX_VALUE;
    for (String tool : new java.util.TreeSet<>(tools)) {
      int d = distance(name.length() > 128 ? name.substring(0, 128) : name, tool);
      if (d < best) {
        best = d;
        closest = tool;
      }
    }
    boolean close = closest != null && best <= Math.max(2, closest.length() / 3);
    return "Unknown tool \""
        + shown
        + "\": this server offers no tool of that name"
        + (close ? "; did you mean " + closest + "?" : "")
        + " (tools/list names the "
        + tools.size()
        + " it offers)";
  }

  /** Edits (insert, delete, replace, swap two neighbours) between two names. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }

  /** The request id of a client's {@code notifications/cancelled}, as a key; null if none. */
  static String cancelledRequest(JSONRPCMessage message) {
    if (message instanceof McpSchema.JSONRPCNotification n
        && CANCELLED.equals(n.method())
        && n.params() instanceof Map<?, ?> p
        && p.get("requestId") != null) {
      return key(p.get("requestId"));
    }
    return null;
  }

  /** A request id as a key: numbers and strings alike. */
  static String key(Object id) {
    return id instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
        ? Long.toString(n.longValue())
        : String.valueOf(id);
  }

  /** A message refused before the session saw it, with its answer. */
  static final class Refused extends RuntimeException {
    final Map<String, Object> response;

    Refused(Object id, int code, String message) {
      super(message, null, false, false);
      response = errorResponse(id, code, message);
    }
  }

  /**
   * Written as a map: JSON-RPC wants {@code "id": null} spelled out when the id could not be read.
   */
  static Map<String, Object> errorResponse(Object id, int code, String message) {
    Map<String, Object> response = new LinkedHashMap<>();
    response.put("jsonrpc", McpSchema.JSONRPC_VERSION);
    response.put("id", id);
    response.put("error", Map.of("code", code, "message", message));
    return response;
  }
}
