package dev.periscope.browser.policy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ConnectHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;

/**
 * A {@link PolicyProxy}'s CONNECT tunnels (HTTPS, WebSockets): judged, then dialled to the checked
 * address only. Jetty tunnels the bytes; anything but CONNECT goes on to {@code next}.
 */
final class ConnectTunnels extends ConnectHandler {
  private final PolicyProxy proxy;
  private final Upstream upstream;

  ConnectTunnels(PolicyProxy proxy, Upstream upstream, Handler next) {
    super(next);
    this.proxy = proxy;
    this.upstream = upstream;
    setConnectTimeout(PolicyProxy.CONNECT_TIMEOUT_MS);
  }

  /** The verdict's reason, carried from the dial to the CONNECT response. */
  private static final class Denied extends IOException {
    final int status;

    Denied(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  @Override
  protected void connectToServer(
      Request request, String host, int port, Promise<SocketChannel> promise) {
    DestinationPolicy.Verdict v = proxy.judge(host, port);
    if (v.outcome() == DestinationPolicy.Verdict.Outcome.UNRESOLVED) {
      promise.failed(new UnknownHostException(v.host()));
      return;
    }
    if (!v.admitted()) {
      promise.failed(new Denied(403, v.host() + ": " + v.reason()));
      return;
    }
    // Close wins over a resolution that was still running, and a client that left is not dialled
    // for.
    if (proxy.closed() || clientLeft(request)) {
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
   * before the tunnel is granted, so one read that finds the end of the stream means it left; bytes
   * sent early are a protocol error and refused too.
   */
  private static boolean clientLeft(Request request) {
    EndPoint client = request.getConnectionMetaData().getConnection().getEndPoint();
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
      ProxyAnswers.refuse(response, callback, d.status, d.getMessage());
    } else {
      HttpURI uri = request.getHttpURI();
      proxy.unreachable(
          response,
          callback,
          String.valueOf(uri.getHost()).toLowerCase(Locale.ROOT),
          uri.getPort(),
          TransportCauses.of(failure, PolicyProxy.CONNECT_TIMEOUT_MS));
    }
  }
}
