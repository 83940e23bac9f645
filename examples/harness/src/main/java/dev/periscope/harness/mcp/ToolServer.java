package dev.periscope.harness.mcp;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.Content;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.host.Host;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A host's tools served over MCP: each enabled tool with its JSON Schema and hints, the enabled
 * skills' guidance as the server's instructions, and every call made for the agent session its MCP
 * session stands for. Arguments are checked by the host against the tool's schema, so a bad one is
 * an error result naming the field and ending in the failure line, like every other failure;
 * protocol errors are left for requests that are not tool calls (an unknown tool is refused before
 * the SDK sees it, naming the closest: {@link MessageRules}).
 */
public final class ToolServer {
  private static final TypeRef<Map<String, Object>> OBJECT = new TypeRef<>() {};

  /** The agent session an MCP session's calls are made for. */
  @FunctionalInterface
  public interface AgentSessions {
    /**
     * Begins a call in MCP session {@code mcpSessionId}, which holds the session open until the
     * call closes.
     *
     * @throws IllegalStateException, whose message the caller gets, when it has ended
     */
    Call begin(String mcpSessionId);

    /** Every MCP session's calls made for one agent session (standard input and output). */
    static AgentSessions fixed(String agentSession) {
      return mcpSessionId ->
          new Call() {
            @Override
            public String agentSession() {
              return agentSession;
            }

            @Override
            public void close() {}
          };
    }
  }

  /** A call being made, for an agent session. */
  public interface Call extends AutoCloseable {
    String agentSession();

    /** What the call's result says first, once, of what happened to its session; null: nothing. */
    default String notice() {
      return null;
    }

    @Override
    void close();
  }

  private final Host host;
  private final java.util.Set<String> names;
  private final McpJsonMapper json;
  private final AgentSessions agentSessions;

  /** The calls running, by MCP session and the JSON-RPC id of their request ({@link #key}). */
  private final Map<String, Cancellation> inFlight = new ConcurrentHashMap<>();

  private boolean closed;

  /** The names of the tools served: the host's tools, fixed when it started. */
  java.util.Set<String> names() {
    return names;
  }

  public ToolServer(Host host, McpJsonMapper json, AgentSessions agentSessions) {
    this.host = host;
    this.json = json;
    this.agentSessions = agentSessions;
    this.names =
        host.tools().stream()
            .map(ToolDescriptor::name)
            .collect(java.util.stream.Collectors.toUnmodifiableSet());
  }

  /** Builds the server on {@code spec}, a transport's specification. */
  public <S extends McpServer.SyncSpecification<S>> McpSyncServer start(S spec, String version) {
    List<SyncToolSpecification> tools = new ArrayList<>();
    for (ToolDescriptor d : host.tools()) {
      tools.add(
          SyncToolSpecification.builder()
              .tool(describe(d))
              .callHandler(
                  (exchange, request) ->
                      call(
                          request,
                          exchange.sessionId(),
                          String.valueOf(exchange.transportContext().get(MessageRules.REQUEST_ID))))
              .build());
    }
    return spec.serverInfo("periscope-harness", version)
        .jsonMapper(json)
        .instructions(host.guidance())
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
        // The host validates arguments against the same schema, and words the failure as every tool
        // failure is.
        .validateToolInputs(false)
        .tools(tools)
        .build();
  }

  /** Takes no more calls and cancels those still running: the clients have gone. */
  public void close() {
    synchronized (inFlight) {
      closed = true;
    }
    inFlight.values().forEach(Cancellation::cancel);
  }

  /**
   * Cancels the call of one request, if it still runs: the client sent {@code
   * notifications/cancelled}.
   */
  boolean cancel(String mcpSessionId, String requestId) {
    Cancellation c = inFlight.get(key(mcpSessionId, requestId));
    if (c == null) {
      return false;
    }
    c.cancel();
    return true;
  }

  /** Cancels every call of one MCP session still running: the session has ended. */
  void cancelAll(String mcpSessionId) {
    String prefix = mcpSessionId + " ";
    inFlight.forEach(
        (k, c) -> {
          if (k.startsWith(prefix)) {
            c.cancel();
          }
        });
  }

  private static String key(String mcpSessionId, String requestId) {
    return mcpSessionId + " " + requestId;
  }

  McpSchema.Tool describe(ToolDescriptor d) {
    Map<String, Object> schema;
    try {
      schema = json.readValue(d.inputSchema(), OBJECT);
    } catch (IOException e) {
      throw new UncheckedIOException("the schema of tool " + d.name() + " is not JSON", e);
    }
    return McpSchema.Tool.builder()
        .name(d.name())
        .description(d.description())
        .inputSchema(schema)
        .annotations(
            new McpSchema.ToolAnnotations(
                null,
                d.hints().readOnly(),
                d.hints().destructive(),
                d.hints().idempotent(),
                d.hints().openWorld(),
                null))
        .build();
  }

  CallToolResult call(McpSchema.CallToolRequest request, String mcpSessionId, String requestId) {
    Call c;
    try {
      c = agentSessions.begin(mcpSessionId);
    } catch (IllegalStateException ended) {
      return refused(ended.getMessage());
    }
    try (c) {
      Cancellation cancellation = Cancellation.none();
      String key = key(mcpSessionId, requestId);
      synchronized (inFlight) {
        if (closed) {
          return refused("the server is stopping; the call was not made");
        }
        inFlight.put(key, cancellation);
      }
      try {
        Map<String, Object> arguments =
            request.arguments() == null ? Map.of() : request.arguments();
        CallToolResult result =
            result(host.call(c.agentSession(), request.name(), arguments, cancellation));
        return c.notice() == null ? result : withNotice(result, c.notice());
      } finally {
        inFlight.remove(key, cancellation);
      }
    }
  }

  /** The result with {@code notice} as its first text (and in its structured content). */
  static CallToolResult withNotice(CallToolResult r, String notice) {
    List<McpSchema.Content> content = new ArrayList<>();
    content.add(new McpSchema.TextContent(notice));
    content.addAll(r.content());
    CallToolResult.Builder b = CallToolResult.builder().content(content).isError(r.isError());
    if (r.structuredContent() instanceof Map<?, ?> structured) {
      Map<String, Object> with = new java.util.LinkedHashMap<>();
      with.put("notice", notice);
      structured.forEach((k, v) -> with.put(String.valueOf(k), v));
      b.structuredContent(with);
    } else if (r.structuredContent() != null) {
      b.structuredContent(r.structuredContent());
    }
    return b.build();
  }

  private static CallToolResult refused(String why) {
    return CallToolResult.builder().addTextContent(why).isError(true).build();
  }

  /**
   * Text as text, images inline (base64) as image content; an attachment's ref is already in the
   * text, and the structured JSON (observation, transition, attachment) is the structured content.
   */
  static CallToolResult result(ToolResult r) {
    List<McpSchema.Content> content = new ArrayList<>();
    for (Content c : r.content()) {
      if (c instanceof Content.Text t) {
        content.add(new McpSchema.TextContent(t.text()));
      } else if (c instanceof Content.Image image) {
        content.add(
            new McpSchema.ImageContent(
                null, Base64.getEncoder().encodeToString(image.data()), image.mimeType()));
      }
    }
    CallToolResult.Builder b = CallToolResult.builder().content(content).isError(r.isError());
    if (r.structured() != null) {
      b.structuredContent(r.structured());
    }
    return b.build();
  }
}
