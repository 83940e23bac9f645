package dev.periscope.harness.mcp;

import dev.periscope.harness.HarnessException;
import dev.periscope.harness.host.Host;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import jakarta.servlet.DispatcherType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.ee11.servlet.FilterHolder;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * A host's tools served to many MCP clients at once over the Streamable HTTP transport (the SDK's
 * servlet, in Jetty), at {@code /mcp}: each MCP session is one agent session ({@link
 * HttpSessions}), and every request passes the {@link HttpGate} first. Stopping ends every session
 * with its checkpoint before the server stops listening.
 */
public final class McpHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(McpHttpServer.class);

  /** The path of the MCP endpoint. */
  public static final String ENDPOINT = "/mcp";

  /**
   * How the server listens and how many sessions it holds.
   *
   * @param address where to listen (port 0: any free one)
   * @param allowedHosts more {@code Host} header values to answer to than the address's own and
   *     loopback's (the names clients use for a non-loopback address, a proxy's)
   * @param readTimeout how long a client may take to send a request's body
   * @param keepAlive how often the server pings the clients that listen
   */
  public record Settings(
      InetSocketAddress address,
      int maxSessions,
      Duration sessionIdle,
      List<String> allowedHosts,
      Duration readTimeout,
      Duration keepAlive) {
    public Settings {
      allowedHosts = List.copyOf(allowedHosts);
    }
  }

  private final Server jetty;
  private final McpSyncServer server;
  private final ToolServer tools;
  private final HttpSessions sessions;
  private final HttpGate gate;
  private final URI endpoint;
  private boolean closed;

  private McpHttpServer(
      Server jetty,
      McpSyncServer server,
      ToolServer tools,
      HttpSessions sessions,
      HttpGate gate,
      URI endpoint) {
    this.jetty = jetty;
    this.server = server;
    this.tools = tools;
    this.sessions = sessions;
    this.gate = gate;
    this.endpoint = endpoint;
  }

  /** Starts serving {@code host}'s tools; requests must show {@code token}. */
  static McpHttpServer start(
      Host host, McpJsonMapper json, BearerToken token, Settings settings, String version) {
    HttpSessions[] sessions = new HttpSessions[1];
    ToolServer tools = new ToolServer(host, json, id -> sessions[0].begin(id));
    sessions[0] = new HttpSessions(host, tools, settings.maxSessions(), settings.sessionIdle());
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(json)
            .mcpEndpoint(ENDPOINT)
            .maxRequestSize(MessageRules.MAX_MESSAGE)
            // Our sessions end when idle, with a checkpoint; the SDK's own sweep then forgets those
            // that ended without a DELETE.
            .sessionSweepInterval(settings.sessionIdle())
            .keepAliveInterval(settings.keepAlive())
            .contextExtractor(
                request ->
                    request.getAttribute(HttpGate.REQUEST_ID) instanceof String id
                        ? McpTransportContext.create(Map.of(MessageRules.REQUEST_ID, id))
                        : McpTransportContext.EMPTY)
            .build();
    McpSyncServer server =
        tools.start(McpServer.sync(new Opening(transport, sessions[0])), version);

    QueuedThreadPool threads = new QueuedThreadPool(Math.max(32, settings.maxSessions() * 4 + 16));
    threads.setName("mcp-http");
    threads.setDaemon(true);
    Server jetty = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    http.setRequestHeaderSize(16 * 1024);
    ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(http));
    connector.setHost(settings.address().getHostString());
    connector.setPort(settings.address().getPort());
    // Longer than a body may take, so that a slow body is answered 408 rather than dropped.
    connector.setIdleTimeout(settings.readTimeout().plusSeconds(30).toMillis());
    jetty.addConnector(connector);

    ServletContextHandler context = new ServletContextHandler("/");
    ServletHolder servlet = new ServletHolder("mcp", transport);
    servlet.setAsyncSupported(true);
    context.addServlet(servlet, ENDPOINT);
    HttpGate gate =
        new HttpGate(json, token, origins(settings), sessions[0], tools, settings.readTimeout());
    FilterHolder filter = new FilterHolder(gate);
    filter.setAsyncSupported(true);
    // Again on the dispatch that follows reading a body.
    context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
    jetty.setHandler(context);
    try {
      jetty.start();
    } catch (Exception e) {
      try {
        jetty.stop();
      } catch (Exception ignored) {
        // it never started
      }
      sessions[0].close();
      server.close();
      throw new HarnessException(
          "cannot listen on "
              + settings.address().getHostString()
              + ":"
              + settings.address().getPort()
              + ": "
              + Host.rootMessage(e));
    }
    URI endpoint =
        URI.create(
            "http://"
                + hostForUri(settings.address().getHostString())
                + ":"
                + connector.getLocalPort()
                + ENDPOINT);
    return new McpHttpServer(jetty, server, tools, sessions[0], gate, endpoint);
  }

  /**
   * The SDK's check of {@code Host} and {@code Origin}: this server's own address and the names
   * loopback has, and those the operator adds (any port: a rebinding page comes under a name of its
   * own); no web page's origin at all.
   */
  private static DefaultServerTransportSecurityValidator origins(Settings settings) {
    DefaultServerTransportSecurityValidator.Builder b =
        DefaultServerTransportSecurityValidator.builder();
    List<String> hosts = new ArrayList<>(settings.allowedHosts());
    hosts.add(hostForUri(settings.address().getHostString()));
    hosts.addAll(List.of("127.0.0.1", "localhost", "[::1]"));
    for (String h : hosts) {
      b.allowedHost(h + ":*");
      b.allowedHost(h);
    }
    return b.build();
  }

  private static String hostForUri(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /** Whether {@code host} names a loopback address. */
  static boolean loopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  /** Where clients send their requests. */
  public URI endpoint() {
    return endpoint;
  }

  /** The sessions live now. */
  public int sessions() {
    return sessions.size();
  }

  /**
   * Stops: every request from now on is answered 503, the calls running are cancelled, every
   * session ends with its checkpoint, then the server stops listening. The host is the caller's.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    gate.stopping();
    tools.close();
    try {
      sessions.close();
    } finally {
      try {
        server.close();
      } catch (RuntimeException e) {
        LOG.debug("closing the MCP server", e);
      }
      try {
        // What is left open is the clients' listening streams: nothing to wait for.
        jetty.setStopTimeout(500);
        jetty.stop();
      } catch (Exception e) {
        LOG.warn("stopping the HTTP server: {}", e.toString());
      }
    }
  }

  /**
   * The SDK's transport, with each session it opens handed to {@link HttpSessions} as it opens
   * (before the client has its id).
   */
  private static final class Opening implements McpStreamableServerTransportProvider {
    private final HttpServletStreamableServerTransportProvider delegate;
    private final HttpSessions sessions;

    Opening(HttpServletStreamableServerTransportProvider delegate, HttpSessions sessions) {
      this.delegate = delegate;
      this.sessions = sessions;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory factory) {
      delegate.setSessionFactory(
          request -> {
            McpStreamableServerSession.McpStreamableServerSessionInit init =
                factory.startSession(request);
            sessions.opened(init.session());
            return init;
          });
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
      return delegate.notifyClients(method, params);
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
      return delegate.notifyClient(sessionId, method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return delegate.closeGracefully();
    }

    @Override
    public List<String> protocolVersions() {
      return MessageRules.VERSIONS;
    }
  }
}
