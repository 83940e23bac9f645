package dev.periscope.browser.policy;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why the proxy could not reach a site, in words for the model: "connection refused", "the name
 * does not resolve", "no answer within 15000 ms". The words go into a response header, so they are
 * one line of printable ASCII; they never hold a request header (the proxy's credentials are one).
 */
final class TransportCauses {
  static final String UNRESOLVED = "the name does not resolve";
  static final String REFUSED = "connection refused";

  private static final Pattern MILLIS = Pattern.compile("(\\d+) ?ms");

  private TransportCauses() {}

  /**
   * The cause of a failed dial or exchange; {@code timeoutMs} is the wait that ran out when the
   * failure does not say.
   */
  static String of(Throwable failure, long timeoutMs) {
    Throwable t = failure;
    while (t.getCause() != null && t.getCause() != t && !telling(t)) {
      t = t.getCause();
    }
    String message = String.valueOf(t.getMessage());
    String lower = message.toLowerCase(Locale.ROOT);
    if (t instanceof UnknownHostException) {
      return UNRESOLVED;
    }
    if (t instanceof ConnectException && (t.getMessage() == null || lower.contains("refused"))) {
      return REFUSED;
    }
    if (t instanceof NoRouteToHostException) {
      return "no route to the address";
    }
    if (t instanceof SocketTimeoutException
        || t instanceof TimeoutException
        || lower.contains("timeout")
        || lower.contains("timed out")) {
      Matcher m = MILLIS.matcher(message);
      return "no answer within " + (m.find() ? m.group(1) : String.valueOf(timeoutMs)) + " ms";
    }
    if (lower.contains("reset")) {
      return "the connection was reset";
    }
    if (t instanceof EOFException
        || t instanceof ClosedChannelException
        || lower.contains("closed")) {
      return "the server closed the connection without an answer";
    }
    return "could not connect: " + oneLine(t.getClass().getSimpleName() + ": " + message);
  }

  /** A failure whose own type already says what happened. */
  private static boolean telling(Throwable t) {
    return t instanceof UnknownHostException
        || t instanceof ConnectException
        || t instanceof SocketTimeoutException
        || t instanceof TimeoutException
        || t instanceof EOFException;
  }

  /** One line of printable ASCII, at most 200 characters: fit for a header. */
  static String oneLine(String text) {
    StringBuilder b = new StringBuilder();
    for (char c : text.toCharArray()) {
      b.append(c >= 0x20 && c < 0x7f ? c : ' ');
    }
    String line = b.toString().replaceAll(" +", " ").strip();
    return line.length() <= 200 ? line : line.substring(0, 199) + "~";
  }
}
