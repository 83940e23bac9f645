package dev.periscope.browser.policy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The first handler of a {@link PolicyProxy}: a closing proxy answers 503; every request needs the
 * proxy's credentials (else 407); the bootstrap host is answered here, never forwarded.
 */
final class ProxyGate extends Handler.Wrapper {
  private final PolicyProxy proxy;
  private final byte[] expectedAuthorization;

  ProxyGate(PolicyProxy proxy, String expectedAuthorization, Handler next) {
    super(next);
    this.proxy = proxy;
    this.expectedAuthorization = expectedAuthorization.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    if (proxy.closed()) {
      ProxyAnswers.refuse(response, callback, 503, "the proxy is closing");
      return true;
    }
    String given = request.getHeaders().get(HttpHeader.PROXY_AUTHORIZATION);
    // In constant time: on an address other machines reach, anyone may try.
    if (given == null
        || !MessageDigest.isEqual(expectedAuthorization, given.getBytes(StandardCharsets.UTF_8))) {
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
        && PolicyProxy.BOOTSTRAP_HOST.equals(request.getHttpURI().getHost())) {
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
