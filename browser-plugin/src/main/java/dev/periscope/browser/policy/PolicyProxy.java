package dev.periscope.browser.policy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ConnectHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * One environment's proxy on an ephemeral 127.0.0.1 port: every connection its browser makes comes
 * here. It checks its credentials (else 407), judges the destination by the {@link
 * DestinationPolicy} (resolving the host once), answers 403 to a denied one before any upstream
 * connection, and connects only to an address it checked: CONNECT tunnels (HTTPS, WebSockets) dial
 * the checked address; forwarded HTTP is sent to the checked address as an IP literal with the
 * original Host header, so no later DNS answer can redirect it. Jetty does the HTTP and tunnelling;
 * the policy decides and dials.
 *
 * <p>{@link #close()} stops admission first, so a connection still resolving is never opened, then
 * stops the server, which closes every socket, tunnels included.
 */
public final class PolicyProxy implements AutoCloseable {
  /**
   * The host the proxy answers itself, so a browser learns its credentials before any page loads.
   */
  public static final String BOOTSTRAP_HOST = "periscope-proxy.invalid";

  /**
   * The header a denial carries, so the browser side can tell a policy denial from a site's own
   * 403.
   */
  public static final String DENIAL_HEADER = "X-Periscope-Policy";

  /**
   * The header the proxy's own transport failures carry (a name that does not resolve, a refused
   * dial, no answer in time): its value is the cause in words, so the browser side can tell the
   * proxy's 502 or 504 from a site's own.
   */
  public static final String TRANSPORT_HEADER = "X-Periscope-Transport";

  private static final AtomicInteger PROXIES = new AtomicInteger();

  /** A denied destination, in order. */
  public record Denial(long sequence, String host, int port, String reason) {}

  /** A destination the proxy could not reach, in order, with the cause in words. */
  public record Unreachable(long sequence, String host, int port, String cause) {}

  /** How long a dial may take, for a tunnel and for forwarded HTTP alike. */
  private static final long CONNECT_TIMEOUT_MS = 15_000;

  /** The environment's policy; none while the proxy is a spare that no environment has taken. */
  private volatile DestinationPolicy policy;

  private final Resolver resolver;
  private final Upstream upstream;
  private final String address;
  private final Server server;
  private final ServerConnector connector;
  private final String username = "periscope";
  private final String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
  private final String expectedAuthorization;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Deque<Denial> denials = new ArrayDeque<>();
  private final Deque<Unreachable> unreachable = new ArrayDeque<>();
  private long eventCount;

  public PolicyProxy(DestinationPolicy policy, Resolver resolver, Upstream upstream) {
    this(policy, resolver, upstream, "127.0.0.1");
  }

  /**
   * A proxy listening on {@code address} of this machine rather than loopback: a browser on another
   * machine (a Grid's node) reaches it there. Its credentials are its own all the same.
   */
  public PolicyProxy(
      DestinationPolicy policy, Resolver resolver, Upstream upstream, String address) {
    this(policy, resolver, upstream, address, true);
  }

  /**
   * The judge of a proxy that listens nowhere: {@link #judgeNavigation} and the record of denials,
   * for a browser whose requests are judged in the browser itself (a Chromium the user runs, the
   * cdp provider's), with no server, thread or socket of its own.
   */
  public static PolicyProxy judgeOnly(DestinationPolicy policy, Resolver resolver) {
    return new PolicyProxy(
        policy,
        resolver,
        checked -> {
          throw new java.net.ConnectException("a judge-only policy proxy dials nothing");
        },
        "127.0.0.1",
        false);
  }

  private PolicyProxy(
      DestinationPolicy policy,
      Resolver resolver,
      Upstream upstream,
      String address,
      boolean listening) {
    this.address = address;
    this.policy = java.util.Objects.requireNonNull(policy, "policy");
    this.resolver = resolver;
    this.upstream = upstream;
    this.expectedAuthorization =
        "Basic "
            + Base64.getEncoder()
                .encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
    if (!listening) {
      server = null;
      connector = null;
      return;
    }
    QueuedThreadPool threads = new QueuedThreadPool(32, 2);
    threads.setName("periscope-proxy-" + PROXIES.incrementAndGet());
    threads.setDaemon(true);
    server = new Server(threads);
    // The proxy forwards paths as the browser wrote them: an encoded % or / in a path is the site's
    // business.
    org.eclipse.jetty.server.HttpConfiguration http =
        new org.eclipse.jetty.server.HttpConfiguration();
    http.setUriCompliance(org.eclipse.jetty.http.UriCompliance.UNSAFE);
    http.setSendServerVersion(false);
    connector =
        new ServerConnector(server, 1, 1, new org.eclipse.jetty.server.HttpConnectionFactory(http));
    if (listensEverywhere(address)) {
      throw new IllegalArgumentException(
          "the policy proxy listens on one address, never every interface's (" + address + ")");
    }
    connector.setHost(address);
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(new AuthGate(new Tunnels(new Forward())));
    server.setStopTimeout(0);
    try {
      server.start();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception stopping) {
        e.addSuppressed(stopping);
      }
      throw new IllegalStateException("the policy proxy did not start: " + e.getMessage(), e);
    }
  }

  /**
   * Whether {@code address} names the wildcard address in any spelling ({@code 0}, {@code 0.0},
   * {@code ::ffff:0.0.0.0}, a name that resolves to it): binding it would listen on every
   * interface. A name that does not resolve is for the bind to refuse.
   */
  /**
   * Whether a configured address can name one address of this machine to listen on: a host name or
   * an IP literal, and not the wildcard in any spelling. Literals only are judged (a name is judged
   * when it is bound): reading settings does no DNS.
   */
  public static boolean oneAddress(String address) {
    return address.matches("[A-Za-z0-9.:-]{1,253}")
        && !(address.matches("[0-9.]+|.*:.*") && listensEverywhere(address));
  }

  public static boolean listensEverywhere(String address) {
    try {
      return InetAddress.getByName(address).isAnyLocalAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  public int port() {
    if (connector == null) {
      throw new IllegalStateException("this policy proxy judges only: it listens nowhere");
    }
    return connector.getLocalPort();
  }

  public String server() {
    return "http://" + (address.contains(":") ? "[" + address + "]" : address) + ":" + port();
  }

  public String username() {
    return username;
  }

  public String password() {
    return password;
  }

  /**
   * How many destinations were denied or unreachable so far: a mark for {@link #deniedSince} and
   * {@link #unreachableSince}.
   */
  public synchronized long denialMark() {
    return eventCount;
  }

  /** The denials after a mark, oldest first (the last 200 are kept). */
  public synchronized List<Denial> deniedSince(long mark) {
    return denials.stream().filter(d -> d.sequence() > mark).toList();
  }

  /** The destinations the proxy could not reach after a mark, oldest first (the last 200). */
  public synchronized List<Unreachable> unreachableSince(long mark) {
    return unreachable.stream().filter(u -> u.sequence() > mark).toList();
  }

  private synchronized void denied(String host, int port, String reason) {
    denials.addLast(new Denial(++eventCount, host, port, reason));
    while (denials.size() > 200) {
      denials.removeFirst();
    }
  }

  private synchronized void unreachable(String host, int port, String cause) {
    unreachable.addLast(new Unreachable(++eventCount, host, port, cause));
    while (unreachable.size() > 200) {
      unreachable.removeFirst();
    }
  }

  /**
   * Judges a navigation's destination before the browser is asked to go there, as this proxy would
   * judge its connection: a denial and a name that does not resolve are recorded as if the browser
   * had asked. The browser need not be troubled with a destination the proxy would refuse anyway;
   * an admitted one is judged again when the browser connects.
   *
   * @return the verdict; for an unresolved name, {@link #unresolvedCause()} says why in words
   */
  public DestinationPolicy.Verdict judgeNavigation(String host, int port) {
    DestinationPolicy.Verdict v = judge(host, port);
    if (v.outcome() == DestinationPolicy.Verdict.Outcome.UNRESOLVED) {
      unreachable(v.host(), port, unresolvedCause());
    }
    return v;
  }

  /** The cause in words of a name that does not resolve, as the proxy's answer states it. */
  public static String unresolvedCause() {
    return TransportCauses.oneLine(TransportCauses.UNRESOLVED);
  }

  /**
   * A proxy for a browser context made ahead of need: it refuses every destination until {@link
   * #assign} gives it the policy of the environment that takes the context.
   */
  public static PolicyProxy unassigned(Resolver resolver, Upstream upstream) {
    PolicyProxy proxy = new PolicyProxy(DestinationPolicy.strict(), resolver, upstream);
    proxy.policy = null;
    return proxy;
  }

  /** Gives an {@link #unassigned} proxy its environment's policy, once. */
  public void assign(DestinationPolicy assigned) {
    if (policy != null) {
      throw new IllegalStateException("this proxy already has its policy");
    }
    policy = java.util.Objects.requireNonNull(assigned, "policy");
  }

  /** Judges a destination unless the proxy is closing; records a denial. */
  private DestinationPolicy.Verdict judge(String host, int port) {
    DestinationPolicy rules = policy;
    DestinationPolicy.Verdict v =
        rules == null
            ? new DestinationPolicy.Verdict(
                DestinationPolicy.Verdict.Outcome.DENIED,
                DestinationPolicy.normalizeHost(String.valueOf(host)),
                List.of(),
                "this browser context is not yet any session's")
            : rules.judge(host, resolver);
    if (v.outcome() == DestinationPolicy.Verdict.Outcome.DENIED) {
      denied(v.host(), port, v.reason());
    }
    return v;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true) || server == null) {
      return;
    }
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException(
          "the policy proxy did not stop cleanly: " + e.getMessage(), e);
    }
  }

  public boolean closed() {
    return closed.get();
  }

  /** The proxy's own answer: 403 is a denial, and says so in {@link #DENIAL_HEADER}. */
  private static void refuse(
      Request request, Response response, Callback callback, int status, String text) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    if (status == 403) {
      response.getHeaders().put(DENIAL_HEADER, "denied");
    }
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
  }

  /**
   * The proxy could not reach the host: recorded, and answered 502 (504 when nothing answered in
   * time) with the cause in {@link #TRANSPORT_HEADER} and in the text.
   */
  private void unreachable(
      Response response, Callback callback, String host, int port, String cause) {
    String words = TransportCauses.oneLine(cause);
    unreachable(host, port, words);
    response.setStatus(words.startsWith("no answer within") ? 504 : 502);
    response.getHeaders().put(TRANSPORT_HEADER, words);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    String text = host + " could not be reached: " + words;
    response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
  }

  /**
   * Every request needs this proxy's credentials; the bootstrap host is answered here, never
   * forwarded.
   */
  private final class AuthGate extends Handler.Wrapper {
    AuthGate(Handler next) {
      super(next);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      if (closed.get()) {
        refuse(request, response, callback, 503, "the proxy is closing");
        return true;
      }
      String given = request.getHeaders().get(HttpHeader.PROXY_AUTHORIZATION);
      // In constant time: on an address other machines reach, anyone may try.
      if (given == null
          || !java.security.MessageDigest.isEqual(
              expectedAuthorization.getBytes(StandardCharsets.UTF_8),
              given.getBytes(StandardCharsets.UTF_8))) {
        response.setStatus(407);
        response.getHeaders().put(HttpHeader.PROXY_AUTHENTICATE, "Basic realm=\"periscope\"");
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.write(
            true,
            ByteBuffer.wrap("proxy credentials required".getBytes(StandardCharsets.UTF_8)),
            callback);
        return true;
      }
      if (!HttpMethod.CONNECT.is(request.getMethod())
          && BOOTSTRAP_HOST.equals(request.getHttpURI().getHost())) {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/html; charset=utf-8");
        response.write(
            true,
            ByteBuffer.wrap("<!doctype html><title>ready</title>".getBytes(StandardCharsets.UTF_8)),
            callback);
        return true;
      }
      return super.handle(request, response, callback);
    }
  }

  /** The verdict's reason, carried from the dial to the CONNECT response. */
  private static final class Denied extends IOException {
    final int status;

    Denied(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  /** CONNECT: judged, then dialled to the checked address only. */
  private final class Tunnels extends ConnectHandler {
    Tunnels(Handler next) {
      super(next);
      setConnectTimeout(CONNECT_TIMEOUT_MS);
    }

    @Override
    protected void connectToServer(
        Request request, String host, int port, Promise<SocketChannel> promise) {
      DestinationPolicy.Verdict v = judge(host, port);
      if (v.outcome() == DestinationPolicy.Verdict.Outcome.UNRESOLVED) {
        promise.failed(new java.net.UnknownHostException(v.host()));
        return;
      }
      if (!v.admitted()) {
        promise.failed(new Denied(403, v.host() + ": " + v.reason()));
        return;
      }
      // Close wins over a resolution that was still running, and a client that left is not dialled
      // for.
      if (closed.get() || clientLeft(request)) {
        promise.failed(new Denied(503, "the proxy is closing or the client left"));
        return;
      }
      SocketChannel channel = null;
      try {
        InetSocketAddress target = upstream.dial(new InetSocketAddress(v.addresses().get(0), port));
        channel = SocketChannel.open();
        channel.socket().setTcpNoDelay(true);
        channel.configureBlocking(false);
        channel.connect(target);
        promise.succeeded(channel);
      } catch (IOException | RuntimeException e) {
        if (channel != null) {
          try {
            channel.close();
          } catch (IOException ignored) {
            // failing anyway
          }
        }
        promise.failed(e);
      }
    }

    /**
     * Whether the client closed its connection while its CONNECT was judged. A client sends nothing
     * before the tunnel is granted, so one read that finds the end of the stream means it left;
     * bytes sent early are a protocol error and refused too.
     */
    private boolean clientLeft(Request request) {
      org.eclipse.jetty.io.EndPoint client =
          request.getConnectionMetaData().getConnection().getEndPoint();
      if (!client.isOpen()) {
        return true;
      }
      try {
        return client.fill(ByteBuffer.allocate(1).flip()) != 0;
      } catch (IOException e) {
        return true;
      }
    }

    @Override
    protected void onConnectFailure(
        Request request, Response response, Callback callback, Throwable failure) {
      if (failure instanceof Denied d) {
        refuse(request, response, callback, d.status, d.getMessage());
      } else {
        HttpURI uri = request.getHttpURI();
        unreachable(
            response,
            callback,
            String.valueOf(uri.getHost()).toLowerCase(java.util.Locale.ROOT),
            uri.getPort(),
            TransportCauses.of(failure, CONNECT_TIMEOUT_MS));
      }
    }
  }

  /**
   * Forwarded HTTP: judged before anything is sent, then sent to the checked address with the
   * original Host.
   */
  private final class Forward extends ProxyHandler.Forward {
    private static final String CHECKED = "periscope.checked";
    private static final String AUTHORITY = "periscope.authority";

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      HttpURI uri = request.getHttpURI();
      if (uri.getHost() == null || uri.getScheme() == null || !(uri.getScheme().equals("http"))) {
        refuse(
            request,
            response,
            callback,
            400,
            "this proxy forwards absolute http URLs and tunnels with CONNECT");
        return true;
      }
      int port = uri.getPort() > 0 ? uri.getPort() : 80;
      DestinationPolicy.Verdict v = judge(uri.getHost(), port);
      if (v.outcome() == DestinationPolicy.Verdict.Outcome.UNRESOLVED) {
        unreachable(response, callback, v.host(), port, TransportCauses.UNRESOLVED);
        return true;
      }
      if (!v.admitted()) {
        refuse(
            request,
            response,
            callback,
            403,
            "Blocked by the project's network policy: " + v.host() + ": " + v.reason());
        return true;
      }
      if (closed.get()) {
        refuse(request, response, callback, 503, "the proxy is closing");
        return true;
      }
      InetSocketAddress target;
      try {
        target = upstream.dial(new InetSocketAddress(v.addresses().get(0), port));
      } catch (IOException e) {
        unreachable(response, callback, v.host(), port, TransportCauses.of(e, CONNECT_TIMEOUT_MS));
        return true;
      }
      request.setAttribute(CHECKED, target);
      request.setAttribute(AUTHORITY, uri.getAuthority());
      return super.handle(request, response, callback);
    }

    @Override
    protected HttpURI rewriteHttpURI(Request request) {
      InetSocketAddress target = (InetSocketAddress) request.getAttribute(CHECKED);
      InetAddress address = target.getAddress();
      String literal =
          address.getAddress().length == 16
              ? "[" + address.getHostAddress() + "]"
              : address.getHostAddress();
      return HttpURI.build(request.getHttpURI()).host(literal).port(target.getPort()).asImmutable();
    }

    /**
     * The browser's headers as it sent them, with one Host: the original authority (the request
     * line carries the checked IP literal). Jetty would add a second Host of its own.
     */
    @Override
    protected void copyRequestHeaders(
        Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest) {
      super.copyRequestHeaders(clientToProxyRequest, proxyToServerRequest);
      String authority = (String) clientToProxyRequest.getAttribute(AUTHORITY);
      proxyToServerRequest.headers(h -> h.put(HttpHeader.HOST, authority));
    }

    /**
     * No Via or Forwarded: a site learns nothing of the proxy, and Via would carry this machine's
     * host name.
     */
    @Override
    protected void addProxyHeaders(
        Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest) {
      // nothing added
    }

    /**
     * The site could not be reached, or sent no answer in time: the proxy's own marked answer with
     * the cause, instead of Jetty's error page, which a browser would show as the site. A failure
     * after the site's answer began is Jetty's to handle (the connection is cut).
     */
    @Override
    protected void onServerToProxyResponseFailure(
        Request clientToProxyRequest,
        org.eclipse.jetty.client.Request proxyToServerRequest,
        org.eclipse.jetty.client.Response serverToProxyResponse,
        Response proxyToClientResponse,
        Callback proxyToClientCallback,
        Throwable failure) {
      if (proxyToClientResponse.isCommitted()) {
        super.onServerToProxyResponseFailure(
            clientToProxyRequest,
            proxyToServerRequest,
            serverToProxyResponse,
            proxyToClientResponse,
            proxyToClientCallback,
            failure);
        return;
      }
      HttpURI uri = clientToProxyRequest.getHttpURI();
      HttpClient client = getHttpClient();
      long waited =
          failure instanceof java.net.SocketTimeoutException
              ? client.getConnectTimeout()
              : client.getIdleTimeout();
      unreachable(
          proxyToClientResponse,
          Callback.from(
              () ->
                  onProxyToClientResponseComplete(
                      clientToProxyRequest,
                      proxyToServerRequest,
                      serverToProxyResponse,
                      proxyToClientResponse,
                      proxyToClientCallback),
              x ->
                  onProxyToClientResponseFailure(
                      clientToProxyRequest,
                      proxyToServerRequest,
                      serverToProxyResponse,
                      proxyToClientResponse,
                      proxyToClientCallback,
                      x)),
          uri.getHost().toLowerCase(java.util.Locale.ROOT),
          uri.getPort() > 0 ? uri.getPort() : 80,
          TransportCauses.of(failure, waited));
    }

    @Override
    protected HttpClient newHttpClient() {
      // Plain HTTP only: HTTPS never comes here (it is tunnelled with CONNECT), so the client has
      // no TLS to set up, which on a cold JVM costs a third of a second per start.
      HttpClient client =
          new HttpClient(
              new org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP(
                  new PlainConnector()));
      // Only the checked IP literal ever reaches the client: any name is refused rather than
      // resolved.
      client.setSocketAddressResolver(
          (host, port, context, promise) -> {
            var literal = IpLiteral.parse(host);
            if (literal.isEmpty()) {
              promise.failed(
                  new IOException(
                      "refusing to resolve " + host + ": only checked addresses are dialled"));
            } else {
              promise.succeeded(List.of(new InetSocketAddress(literal.get(), port)));
            }
          });
      client.setFollowRedirects(false);
      // The browser's own User-Agent is the only one a site sees.
      client.setUserAgentField(null);
      client.setConnectTimeout(CONNECT_TIMEOUT_MS);
      return client;
    }
  }

  /** A client connector that never speaks TLS: its TLS factory is never loaded. */
  private static final class PlainConnector extends org.eclipse.jetty.io.ClientConnector {
    @Override
    protected org.eclipse.jetty.util.ssl.SslContextFactory.Client newSslContextFactory() {
      return new NoTls();
    }
  }

  /**
   * The TLS factory of a client that only forwards plain HTTP: it loads no trust store and makes no
   * TLS context, so any attempt at TLS through it fails.
   */
  private static final class NoTls extends org.eclipse.jetty.util.ssl.SslContextFactory.Client {
    @Override
    protected void doStart() {
      // nothing to load: this client never speaks TLS
    }
  }
}
