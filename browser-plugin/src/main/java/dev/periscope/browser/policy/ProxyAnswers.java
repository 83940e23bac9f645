package dev.periscope.browser.policy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The proxy's own answers, each closing the connection: a denial (403, marked with {@link
 * PolicyProxy#DENIAL_HEADER}), a request it does not take (400, 503 while closing), and a host it
 * could not reach (502, or 504 when nothing answered in time, with the cause in {@link
 * PolicyProxy#TRANSPORT_HEADER}).
 */
final class ProxyAnswers {
  private ProxyAnswers() {}

  /** The proxy's own answer: 403 is a denial, and says so in {@link PolicyProxy#DENIAL_HEADER}. */
  static void refuse(Response response, Callback callback, int status, String text) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    if (status == 403) {
      response.getHeaders().put(PolicyProxy.DENIAL_HEADER, "denied");
    }
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
  }

  /**
   * The proxy could not reach {@code host}: 502 (504 when nothing answered in time) with the cause
   * in words, {@code words}, in {@link PolicyProxy#TRANSPORT_HEADER} and in the text.
   */
  static void unreachable(Response response, Callback callback, String host, String words) {
    response.setStatus(words.startsWith("no answer within") ? 504 : 502);
    response.getHeaders().put(PolicyProxy.TRANSPORT_HEADER, words);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    String text = host + " could not be reached: " + words;
    response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
  }
}
