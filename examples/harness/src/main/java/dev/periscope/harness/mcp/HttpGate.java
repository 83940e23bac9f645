package dev.periscope.harness.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.transport.ServerTransportSecurityException;
import io.modelcontextprotocol.server.transport.ServerTransportSecurityValidator;
import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every HTTP request passes before the SDK's transport sees it. In order: the server is not
 * stopping (503); its {@code Host} is one of this server's names and it comes from no web page (an
 * {@code Origin} header): the SDK's validator, 421 and 403, so that no page reaches the server,
 * through DNS rebinding or otherwise; it shows the bearer token (401); its body is at most {@link
 * MessageRules#MAX_MESSAGE} bytes (413) and one message by the {@link MessageRules} (400, with the
 * JSON-RPC error standard input and output would give); and it belongs to a live session (404: the
 * client starts a new one). An {@code initialize} takes a slot and may name its agent session
 * ({@value #SESSION_HEADER} header or {@code ?session=} parameter); a {@code DELETE} ends its
 * session with a checkpoint; a {@code notifications/cancelled} cancels the call it names. Each
 * refusal is a JSON-RPC error, with no token or secret in it.
 */
final class HttpGate extends HttpFilter {
  /** The header, on {@code initialize}, naming the agent session the client resumes. */
  static final String SESSION_HEADER = "Periscope-Session";

  /** The same as a query parameter, for clients that can set only a URL. */
  static final String SESSION_PARAMETER = "session";

  /** The request attribute that holds a body read in full. */
  private static final String BODY = "periscope.mcp.body";

  /** The request attribute that carries a request's JSON-RPC id to the tool call. */
  static final String REQUEST_ID = "periscope.mcp.request-id";

  private final McpJsonMapper json;
  private final BearerToken token;
  private final ServerTransportSecurityValidator origins;
  private final HttpSessions sessions;
  private final ToolServer tools;
  private final Duration readTimeout;
  private volatile boolean stopping;

  HttpGate(
      McpJsonMapper json,
      BearerToken token,
      ServerTransportSecurityValidator origins,
      HttpSessions sessions,
      ToolServer tools,
      Duration readTimeout) {
    this.readTimeout = readTimeout;
    this.json = json;
    this.token = token;
    this.origins = origins;
    this.sessions = sessions;
    this.tools = tools;
  }

  /** From now on every request is answered 503. */
  void stopping() {
    stopping = true;
  }

  @Override
  protected void doFilter(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    if (stopping) {
      refuse(res, 503, null, McpSchema.ErrorCodes.INTERNAL_ERROR, "the server is stopping");
      return;
    }
    try {
      origins.validateHeaders(headers(req));
    } catch (ServerTransportSecurityException e) {
      refuse(
          res,
          e.getStatusCode(),
          null,
          McpSchema.ErrorCodes.INVALID_REQUEST,
          e.getStatusCode() == 403
              ? "this server does not take requests from web pages"
              : "this server does not answer to that host name (see --allow-host)");
      return;
    }
    if (!token.admits(req.getHeader("Authorization"))) {
      res.setHeader("WWW-Authenticate", "Bearer realm=\"periscope\"");
      refuse(
          res,
          401,
          null,
          McpSchema.ErrorCodes.INVALID_REQUEST,
          "every request needs the server's token as Authorization: Bearer TOKEN");
      return;
    }
    String mcpId = req.getHeader(HttpHeaders.MCP_SESSION_ID);
    switch (req.getMethod()) {
      case "POST" -> post(req, res, chain, mcpId);
      case "DELETE" -> {
        if (!sessions.delete(mcpId)) {
          gone(res, mcpId);
        } else {
          // Ended with its checkpoint before the client hears so; the SDK then forgets it.
          chain.doFilter(req, res);
        }
      }
      case "GET" -> {
        // A listening stream: no activity of the session's own (the server's pings come on it).
        if (sessions.find(mcpId) == null) {
          gone(res, mcpId);
        } else {
          chain.doFilter(req, res);
        }
      }
      default -> {
        res.setHeader("Allow", "GET, POST, DELETE");
        refuse(
            res,
            405,
            null,
            McpSchema.ErrorCodes.INVALID_REQUEST,
            "/mcp takes GET, POST and DELETE, not " + req.getMethod());
      }
    }
  }

  private void post(
      HttpServletRequest req, HttpServletResponse res, FilterChain chain, String mcpId)
      throws IOException, ServletException {
    if (!(req.getAttribute(BODY) instanceof byte[] body)) {
      readBody(req, res);
      return;
    }
    JSONRPCMessage message;
    try {
      message = MessageRules.parse(json, utf8(body));
    } catch (MessageRules.Refused refused) {
      write(res, 400, refused.response);
      return;
    }
    HttpServletRequest cached = new Body(req, body);
    if (message instanceof McpSchema.JSONRPCRequest r
        && McpSchema.METHOD_INITIALIZE.equals(r.method())) {
      String name = req.getHeader(SESSION_HEADER);
      if (name == null) {
        try {
          name = queryParameter(req.getQueryString(), SESSION_PARAMETER);
        } catch (IllegalArgumentException badEscape) {
          refuse(
              res,
              400,
              r.id(),
              McpSchema.ErrorCodes.INVALID_PARAMS,
              "Invalid params: the "
                  + SESSION_PARAMETER
                  + " query parameter is not URL-encoded ("
                  + badEscape.getMessage()
                  + ")");
          return;
        }
      }
      HttpSessions.Admission admission;
      try {
        admission = sessions.admit(name);
      } catch (HttpSessions.Refusal refusal) {
        refuse(
            res,
            refusal.status,
            r.id(),
            refusal.status == 400
                ? McpSchema.ErrorCodes.INVALID_PARAMS
                : McpSchema.ErrorCodes.INTERNAL_ERROR,
            refusal.getMessage());
        return;
      }
      try (admission) {
        chain.doFilter(cached, res);
      }
      return;
    }
    HttpSessions.Session session = sessions.find(mcpId);
    if (session == null) {
      gone(res, mcpId);
      return;
    }
    String cancelled = MessageRules.cancelledRequest(message);
    if (cancelled != null) {
      tools.cancel(mcpId, cancelled);
      res.setStatus(202);
      return;
    }
    if (message instanceof McpSchema.JSONRPCRequest r) {
      // Only the client's own requests count as activity: its answers to the server's pings and
      // its notifications do not keep an idle session alive.
      session.touch();
      cached.setAttribute(REQUEST_ID, MessageRules.key(r.id()));
      try {
        MessageRules.requireTool(message, tools.names());
      } catch (MessageRules.Refused unknown) {
        // An answer in the session, as the SDK's own error for a request it cannot serve is.
        write(res, 200, unknown.response);
        return;
      }
    }
    chain.doFilter(cached, res);
  }

  /** The value of parameter {@code name} in a query string, decoded; null if absent. */
  static String queryParameter(String query, String name) {
    if (query == null) {
      return null;
    }
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      if (key.equals(name)) {
        return eq < 0
            ? ""
            : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  /** No session, or one that has ended: the client is to start a new one. */
  private void gone(HttpServletResponse res, String mcpId) throws IOException {
    if (mcpId == null || mcpId.isBlank()) {
      refuse(
          res,
          400,
          null,
          McpSchema.ErrorCodes.INVALID_REQUEST,
          "Invalid request: the Mcp-Session-Id header is missing; start with initialize");
    } else {
      refuse(
          res,
          404,
          null,
          McpSchema.ErrorCodes.INVALID_REQUEST,
          "no such MCP session: it ended (deleted, idle too long, or the server restarted) or never"
              + " was; start a new one with initialize");
    }
  }

  /**
   * Reads the body without a worker thread waiting on the client: bytes are taken as they come, and
   * once the whole body is in, the request is handled again with it ({@link #BODY}). A body over
   * {@link MessageRules#MAX_MESSAGE} bytes is refused (413) unread; one not complete within {@code
   * readTimeout}, as a stalled or trickling client sends, is dropped (408).
   */
  private void readBody(HttpServletRequest req, HttpServletResponse res) throws IOException {
    if (req.getContentLengthLong() > MessageRules.MAX_MESSAGE) {
      tooLarge(res);
      return;
    }
    AsyncContext async = req.startAsync();
    async.setTimeout(readTimeout.toMillis());
    ServletInputStream in = req.getInputStream();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    AtomicBoolean done = new AtomicBoolean();
    async.addListener(
        new AsyncListener() {
          @Override
          public void onTimeout(AsyncEvent event) throws IOException {
            if (done.compareAndSet(false, true)) {
              refuse(
                  res,
                  408,
                  null,
                  McpSchema.ErrorCodes.INVALID_REQUEST,
                  "the request's body did not arrive within " + Durations.format(readTimeout));
              async.complete();
            }
          }

          @Override
          public void onComplete(AsyncEvent event) {}

          @Override
          public void onError(AsyncEvent event) {}

          @Override
          public void onStartAsync(AsyncEvent event) {}
        });
    in.setReadListener(
        new ReadListener() {
          private final byte[] buffer = new byte[8192];

          @Override
          public void onDataAvailable() throws IOException {
            while (in.isReady() && !done.get()) {
              int n = in.read(buffer);
              if (n < 0) {
                return;
              }
              if (body.size() + n > MessageRules.MAX_MESSAGE) {
                if (done.compareAndSet(false, true)) {
                  tooLarge(res);
                  async.complete();
                }
                return;
              }
              body.write(buffer, 0, n);
            }
          }

          @Override
          public void onAllDataRead() {
            if (done.compareAndSet(false, true)) {
              req.setAttribute(BODY, body.toByteArray());
              async.dispatch();
            }
          }

          @Override
          public void onError(Throwable t) {
            if (done.compareAndSet(false, true)) {
              try {
                if (!res.isCommitted()) {
                  refuse(
                      res,
                      408,
                      null,
                      McpSchema.ErrorCodes.INVALID_REQUEST,
                      "the request's body did not arrive whole");
                }
              } catch (IOException | RuntimeException gone) {
                // the client has gone
              }
              async.complete();
            }
          }
        });
  }

  private void tooLarge(HttpServletResponse res) throws IOException {
    refuse(
        res,
        413,
        null,
        McpSchema.ErrorCodes.INVALID_REQUEST,
        "Invalid request: a message is at most " + MessageRules.MAX_MESSAGE + " bytes");
  }

  /** Bytes that are not UTF-8 are no JSON: a parse error, as a bad line is. */
  private static String utf8(byte[] body) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(body))
          .toString();
    } catch (CharacterCodingException e) {
      return "\u0000"; // not JSON either way
    }
  }

  private static Map<String, List<String>> headers(HttpServletRequest req) {
    Map<String, List<String>> headers = new HashMap<>();
    for (String name : Collections.list(req.getHeaderNames())) {
      headers.put(name, Collections.list(req.getHeaders(name)));
    }
    return headers;
  }

  private void refuse(HttpServletResponse res, int status, Object id, int code, String message)
      throws IOException {
    write(res, status, MessageRules.errorResponse(id, code, message));
  }

  private void write(HttpServletResponse res, int status, Map<String, Object> response)
      throws IOException {
    res.setStatus(status);
    res.setContentType("application/json");
    res.setCharacterEncoding("UTF-8");
    res.getOutputStream().write(MessageRules.STRICT.writeValueAsBytes(response));
  }

  /** A request whose body was read here, handed on as it came. */
  private static final class Body extends HttpServletRequestWrapper {
    private final byte[] body;

    Body(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }

    @Override
    public String getCharacterEncoding() {
      return "UTF-8";
    }

    @Override
    public ServletInputStream getInputStream() {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public int read() {
          return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
          return in.read(b, off, len);
        }

        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new IllegalStateException("the body has been read");
        }
      };
    }
  }
}
