package dev.periscope.browser.policy;

import dev.periscope.api.browser.spi.NetworkPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Sends one forwarded request and opens one tunnel through a throwaway policy proxy, to a loopback
 * socket of its own, so that what an agent's first navigation needs of the JVM (Jetty's server and
 * client and their TLS setup, the policy's judgement) is loaded while the browser starts rather
 * than on that call: on a cold JVM this is most of a second. Touches nothing but loopback sockets
 * it opens and closes itself; a failure only means the first call does the loading.
 */
public final class ProxyWarmup {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ProxyWarmup.class);

  /** How long any one read may wait: the warm-up never holds a stop for longer. */
  private static final int STEP_TIMEOUT_MS = 5_000;

  /** How long the proxy may take to dial the loopback socket (a refused dial never comes). */
  private static final int DIAL_TIMEOUT_MS = 1_000;

  private ProxyWarmup() {}

  /**
   * Runs the warm-up on the calling thread, dialling through {@code upstream}.
   *
   * @return whether the forwarded request was answered and the tunnel opened
   */
  public static boolean run(Upstream upstream) {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    try (ServerSocket site = new ServerSocket(0, 4, loopback);
        PolicyProxy proxy =
            new PolicyProxy(
                DestinationPolicy.of(
                    new NetworkPolicy(
                        NetworkPolicy.Mode.ALLOWLIST,
                        List.of(),
                        List.of(loopback.getHostAddress() + "/32"),
                        List.of())),
                host -> List.of(),
                upstream)) {
      site.setSoTimeout(DIAL_TIMEOUT_MS);
      String authority = loopback.getHostAddress() + ":" + site.getLocalPort();
      String credentials =
          java.util.Base64.getEncoder()
              .encodeToString(
                  (proxy.username() + ":" + proxy.password()).getBytes(StandardCharsets.UTF_8));
      String forwarded =
          through(
              proxy,
              site,
              "GET http://" + authority + "/ HTTP/1.1\r\nHost: " + authority,
              credentials,
              "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
      String tunnelled =
          through(
              proxy,
              site,
              "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority,
              credentials,
              "");
      return forwarded.startsWith("HTTP/1.1 204") && tunnelled.startsWith("HTTP/1.1 200");
    } catch (IOException | RuntimeException e) {
      LOG.debug("the proxy warm-up did not complete: {}", e.toString());
      return false;
    }
  }

  /**
   * Sends {@code head} to the proxy, answers the connection the proxy makes to {@code site} with
   * {@code answer}, and returns the proxy's status line.
   */
  private static String through(
      PolicyProxy proxy, ServerSocket site, String head, String credentials, String answer)
      throws IOException {
    try (Socket browser = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      browser.setSoTimeout(STEP_TIMEOUT_MS);
      OutputStream out = browser.getOutputStream();
      out.write(
          (head + "\r\nProxy-Authorization: Basic " + credentials + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      try (Socket dialled = site.accept()) {
        dialled.setSoTimeout(STEP_TIMEOUT_MS);
        if (!answer.isEmpty()) {
          skipHead(dialled.getInputStream());
          dialled.getOutputStream().write(answer.getBytes(StandardCharsets.US_ASCII));
          dialled.getOutputStream().flush();
        }
        return line(browser.getInputStream());
      }
    }
  }

  private static void skipHead(InputStream in) throws IOException {
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    for (int b; matched < end.length && (b = in.read()) >= 0; ) {
      matched = b == end[matched] ? matched + 1 : b == '\r' ? 1 : 0;
    }
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b; (b = in.read()) >= 0 && b != '\n' && line.length() < 200; ) {
      line.append((char) b);
    }
    return line.toString().strip();
  }
}
