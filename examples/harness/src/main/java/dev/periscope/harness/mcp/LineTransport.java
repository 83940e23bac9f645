package dev.periscope.harness.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * MCP over standard input and output, one JSON-RPC message a line, for the single client at the
 * other end of the pipes. It is ours rather than the SDK's stdio transport because that one ends
 * the session on the first line it cannot read; here a line that breaks the {@link MessageRules}
 * gets their error at once, and the server keeps serving; so does a line over {@link #MAX_LINE}
 * characters (-32600). It also carries the client's {@code notifications/cancelled}, which the SDK
 * 2.1.0 ignores, to the call it names. The session itself is the SDK's.
 */
public final class LineTransport implements McpServerTransportProvider {
  private static final Logger LOG = LoggerFactory.getLogger(LineTransport.class);

  /**
   * A longer line is refused unread: no tool call needs it, and a client cannot make the server
   * hold more.
   */
  static final int MAX_LINE = MessageRules.MAX_MESSAGE;

  private static final String TOO_LONG = new String("(too long)");

  private final McpJsonMapper json;
  private final InputStream in;
  private final OutputStream out;
  private final CompletableFuture<Void> ended = new CompletableFuture<>();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final Set<String> cancelledRequests = ConcurrentHashMap.newKeySet();
  private volatile java.util.function.Predicate<String> onCancelled = id -> false;
  private volatile McpServerSession session;

  private final Set<String> tools;

  /** {@code tools}: the names of the tools the server offers (a call to another is refused). */
  public LineTransport(McpJsonMapper json, InputStream in, OutputStream out, Set<String> tools) {
    this.json = json;
    this.in = in;
    this.out = out;
    this.tools = Set.copyOf(tools);
  }

  @Override
  public List<String> protocolVersions() {
    return MessageRules.VERSIONS;
  }

  @Override
  public void setSessionFactory(McpServerSession.Factory factory) {
    session = factory.create(new Connection());
    Thread reader = new Thread(this::read, "mcp-stdin");
    reader.setDaemon(true);
    reader.start();
  }

  /** The id of the one session this transport carries (known once the server has started). */
  String sessionId() {
    McpServerSession s = session;
    return s == null ? null : s.getId();
  }

  /** Completes when the client has gone: standard input ended or could not be written back to. */
  public CompletableFuture<Void> ended() {
    return ended;
  }

  private void read() {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = nextLine(lines); line != null && !closing.get(); line = nextLine(lines)) {
        if (line.isBlank()) {
          continue;
        }
        if (line == TOO_LONG) {
          write(
              MessageRules.errorResponse(
                  null,
                  McpSchema.ErrorCodes.INVALID_REQUEST,
                  "Invalid request: a message is at most " + MAX_LINE + " characters"));
          continue;
        }
        JSONRPCMessage message;
        try {
          message = MessageRules.parse(json, line);
          MessageRules.requireTool(message, tools);
        } catch (MessageRules.Refused refused) {
          write(refused.response);
          continue;
        }
        String cancelled = MessageRules.cancelledRequest(message);
        if (cancelled != null) {
          cancelled(cancelled);
          continue;
        }
        Mono<Void> handled = session.handle(message);
        if (message instanceof McpSchema.JSONRPCRequest request) {
          handled =
              handled.contextWrite(
                  Context.of(
                      McpTransportContext.KEY,
                      McpTransportContext.create(
                          Map.of(MessageRules.REQUEST_ID, MessageRules.key(request.id())))));
        }
        handled
            .onErrorResume(
                e -> {
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

  /**
   * The next line, without its end; {@link #TOO_LONG} for one over {@link #MAX_LINE} characters,
   * which is read to its end and dropped; null at the end of input.
   */
  private static String nextLine(BufferedReader lines) throws IOException {
    StringBuilder b = new StringBuilder();
    boolean tooLong = false;
    for (int c = lines.read(); c != '\n'; c = lines.read()) {
      if (c < 0) {
        return b.length() == 0 && !tooLong ? null : tooLong ? TOO_LONG : b.toString();
      }
      if (b.length() < MAX_LINE) {
        b.append((char) c);
      } else {
        tooLong = true;
      }
    }
    if (tooLong) {
      return TOO_LONG;
    }
    int end = b.length();
    return end > 0 && b.charAt(end - 1) == '\r' ? b.substring(0, end - 1) : b.toString();
  }

  /**
   * A client's {@code notifications/cancelled}: the call it names is cancelled, and its answer not
   * sent.
   */
  private void cancelled(String id) {
    cancelledRequests.add(id);
    if (!onCancelled.test(id)) {
      cancelledRequests.remove(
          id); // nothing was running: a late cancellation, whose answer has gone
    }
  }

  /**
   * Sets what hears of a client's cancellation, by the request id the handler found in its
   * transport context; it answers whether a call was running.
   */
  public void onCancelled(java.util.function.Predicate<String> listener) {
    onCancelled = listener;
  }

  /**
   * Writes one message and its newline; JSON text has no raw newline, so the line is the message.
   * The answer to a request the client cancelled is not sent, as the protocol asks.
   */
  private void write(Object message) {
    if (message instanceof JSONRPCResponse r
        && r.id() != null
        && cancelledRequests.remove(MessageRules.key(r.id()))) {
      return;
    }
    byte[] bytes;
    try {
      bytes = json.writeValueAsBytes(message);
    } catch (IOException | RuntimeException e) {
      // One answer that cannot be written must not end the connection: its request gets an internal
      // error.
      LOG.warn("an MCP message could not be serialized: {}", e.toString());
      if (!(message instanceof JSONRPCResponse r) || r.id() == null) {
        return;
      }
      message =
          MessageRules.errorResponse(
              r.id(),
              McpSchema.ErrorCodes.INTERNAL_ERROR,
              "Internal error: the answer could not be serialized");
      try {
        bytes = MessageRules.STRICT.writeValueAsBytes(message);
      } catch (IOException impossible) {
        return;
      }
    }
    try {
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
      return MessageRules.VERSIONS;
    }
  }
}
