package dev.periscope.harness.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * MCP over standard input and output, one JSON-RPC message a line, for the single client at the other end of the
 * pipes. It is ours rather than the SDK's stdio transport because that one ends the session on the first line it
 * cannot read; here a line that is not JSON gets a parse error (-32700), JSON that is not a JSON-RPC message an
 * invalid request (-32600), and a {@code tools/call} whose params are not a tool call invalid params (-32602), each
 * answered at once, and the server keeps serving. The session itself is the SDK's.
 */
public final class LineTransport implements McpServerTransportProvider {
  private static final Logger LOG = LoggerFactory.getLogger(LineTransport.class);
  /** The versions whose features the tools use (annotations, structured content) or that older clients ask for. */
  static final List<String> VERSIONS = List.of(ProtocolVersions.MCP_2024_11_05, ProtocolVersions.MCP_2025_03_26,
      ProtocolVersions.MCP_2025_06_18);

  private final McpJsonMapper json;
  private final InputStream in;
  private final OutputStream out;
  private final CompletableFuture<Void> ended = new CompletableFuture<>();
  private final AtomicBoolean closing = new AtomicBoolean();
  private volatile McpServerSession session;

  public LineTransport(McpJsonMapper json, InputStream in, OutputStream out) {
    this.json = json;
    this.in = in;
    this.out = out;
  }

  @Override
  public List<String> protocolVersions() {
    return VERSIONS;
  }

  @Override
  public void setSessionFactory(McpServerSession.Factory factory) {
    session = factory.create(new Connection());
    Thread reader = new Thread(this::read, "mcp-stdin");
    reader.setDaemon(true);
    reader.start();
  }

  /** Completes when the client has gone: standard input ended or could not be written back to. */
  public CompletableFuture<Void> ended() {
    return ended;
  }

  private void read() {
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null && !closing.get(); line = lines.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        JSONRPCMessage message;
        try {
          message = parse(line);
        } catch (McpError refused) {
          write(errorResponse(idOf(line), refused.getJsonRpcError()));
          continue;
        }
        session.handle(message)
            .onErrorResume(e -> {
              LOG.warn("MCP message not handled: {}", e.toString());
              return Mono.empty();
            })
            .subscribe();
      }
    } catch (IOException e) {
      if (!closing.get()) {
        LOG.warn("reading MCP messages from standard input failed: {}", e.toString());
      }
    } finally {
      ended.complete(null);
    }
  }

  /** One line as a JSON-RPC message, or the error that answers it. */
  private JSONRPCMessage parse(String line) {
    Object value;
    try {
      value = json.readValue(line, Object.class);
    } catch (IOException | RuntimeException e) {
      throw refusal(McpSchema.ErrorCodes.PARSE_ERROR, "Parse error: the line is not JSON");
    }
    if (!(value instanceof Map<?, ?> map)) {
      throw refusal(McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid request: a message is one JSON object");
    }
    if (!"2.0".equals(map.get("jsonrpc"))) {
      throw refusal(McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid request: jsonrpc must be \"2.0\"");
    }
    JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(json, line);
    } catch (IOException | RuntimeException e) {
      throw refusal(McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid request: not a JSON-RPC request, notification or response");
    }
    if (message instanceof McpSchema.JSONRPCRequest request && McpSchema.METHOD_TOOLS_CALL.equals(request.method())) {
      if (!(request.params() instanceof Map<?, ?> params) || !(params.get("name") instanceof String)
          || (params.get("arguments") != null && !(params.get("arguments") instanceof Map))) {
        throw refusal(McpSchema.ErrorCodes.INVALID_PARAMS,
            "Invalid params: tools/call takes {name: string, arguments?: object}");
      }
    }
    return message;
  }

  /** Written as a map: JSON-RPC wants {@code "id": null} spelled out when the id could not be read. */
  private static Map<String, Object> errorResponse(Object id, JSONRPCResponse.JSONRPCError error) {
    Map<String, Object> response = new java.util.LinkedHashMap<>();
    response.put("jsonrpc", McpSchema.JSONRPC_VERSION);
    response.put("id", id);
    response.put("error", Map.of("code", error.code(), "message", error.message()));
    return response;
  }

  private static McpError refusal(int code, String message) {
    return new McpError(new JSONRPCResponse.JSONRPCError(code, message, null));
  }

  /** The id of a request that was refused, when it has a usable one; else null, as JSON-RPC asks. */
  private Object idOf(String line) {
    try {
      Object value = json.readValue(line, Object.class);
      if (value instanceof Map<?, ?> map && (map.get("id") instanceof String || map.get("id") instanceof Number)) {
        return map.get("id");
      }
    } catch (IOException | RuntimeException e) {
      // not JSON: no id
    }
    return null;
  }

  /** Writes one message and its newline; JSON text has no raw newline, so the line is the message. */
  private void write(Object message) {
    try {
      byte[] bytes = json.writeValueAsBytes(message);
      synchronized (out) {
        out.write(bytes);
        out.write('\n');
        out.flush();
      }
    } catch (IOException e) {
      // The client closed its end: nobody is left to serve.
      if (!closing.get()) {
        LOG.info("the MCP client stopped reading: {}", e.toString());
      }
      ended.complete(null);
    }
  }

  @Override
  public Mono<Void> notifyClients(String method, Object params) {
    McpServerSession s = session;
    return s == null ? Mono.empty() : s.sendNotification(method, params);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(this::close);
  }

  @Override
  public void close() {
    closing.set(true);
    ended.complete(null);
  }

  /** The session's side of the pipes. */
  private final class Connection implements McpServerTransport {
    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
      return Mono.fromRunnable(() -> write(message));
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
      return json.convertValue(data, type);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return Mono.fromRunnable(LineTransport.this::close);
    }

    @Override
    public void close() {
      LineTransport.this.close();
    }

    @Override
    public List<String> protocolVersions() {
      return VERSIONS;
    }
  }
}
