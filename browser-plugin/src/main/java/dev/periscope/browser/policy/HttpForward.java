package dev.periscope.browser.policy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Locale;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * A {@link PolicyProxy}'s forwarded HTTP: judged before anything is sent, then sent to the checked
 * address as an IP literal with the original Host header, so no later DNS answer can redirect it.
 * Its client speaks plain HTTP only and resolves no name.
 */
final class HttpForward extends ProxyHandler.Forward {
  private static final String CHECKED = "periscope.checked";
  private static final String AUTHORITY = "periscope.authority";

  private final PolicyProxy proxy;
  private final Upstream upstream;

  HttpForward(PolicyProxy proxy, Upstream upstream) {
    this.proxy = proxy;
    this.upstream = upstream;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    HttpURI uri = request.getHttpURI();
    if (uri.getHost() == null || uri.getScheme() == null || !(uri.getScheme().equals("http"))) {
      ProxyAnswers.refuse(
          response,
          callback,
          400,
          "this proxy forwards absolute http URLs and tunnels with CONNECT");
      return true;
    }
    int port = uri.getPort() > 0 ? uri.getPort() : 80;
    DestinationPolicy.Verdict v = proxy.judge(uri.getHost(), port);
    if (v.outcome() == DestinationPolicy.Verdict.Outcome.UNRESOLVED) {
      proxy.unreachable(response, callback, v.host(), port, TransportCauses.UNRESOLVED);
      return true;
    }
    if (!v.admitted()) {
      ProxyAnswers.refuse(
          response,
          callback,
          403,
          "Blocked by the project's network policy: " + v.host() + ": " + v.reason());
      return true;
    }
    if (proxy.closed()) {
      ProxyAnswers.refuse(response, callback, 503, "the proxy is closing");
      return true;
    }
    InetSocketAddress target;
    try {
      target = upstream.dial(new InetSocketAddress(v.addresses().get(0), port));
    } catch (IOException e) {
      proxy.unreachable(
          response,
          callback,
          v.host(),
          port,
          TransportCauses.of(e, PolicyProxy.CONNECT_TIMEOUT_MS));
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
   * The browser's headers as it sent them, with one Host: the original authority (the request line
   * carries the checked IP literal). Jetty would add a second Host of its own.
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
        failure instanceof SocketTimeoutException
            ? client.getConnectTimeout()
            : client.getIdleTimeout();
    proxy.unreachable(
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
        uri.getHost().toLowerCase(Locale.ROOT),
        uri.getPort() > 0 ? uri.getPort() : 80,
        TransportCauses.of(failure, waited));
  }

  @Override
  protected HttpClient newHttpClient() {
    // Plain HTTP only: HTTPS never comes here (it is tunnelled with CONNECT), so the client has
    // no TLS to set up, which on a cold JVM costs a third of a second per start.
    HttpClient client = new HttpClient(new HttpClientTransportOverHTTP(new PlainConnector()));
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
    client.setConnectTimeout(PolicyProxy.CONNECT_TIMEOUT_MS);
    return client;
  }

  /** A client connector that never speaks TLS: its TLS factory is never loaded. */
  private static final class PlainConnector extends ClientConnector {
    @Override
    protected SslContextFactory.Client newSslContextFactory() {
      return new NoTls();
    }
  }

  /**
   * The TLS factory of a client that only forwards plain HTTP: it loads no trust store and makes no
   * TLS context, so any attempt at TLS through it fails.
   */
  private static final class NoTls extends SslContextFactory.Client {
    @Override
    protected void doStart() {
      // nothing to load: this client never speaks TLS
    }
  }
}
