package dev.periscope.browser.playwright;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Chromium's network errors for a main document, in words: {@code net::ERR_CONNECTION_REFUSED} is
 * "connection refused". A navigation that failed so is {@code BROWSER_NAVIGATION_FAILED}, naming
 * the host and the cause, never a successful open of Chromium's error page.
 */
final class NavigationFailures {
  private static final Pattern NET_ERROR = Pattern.compile("net::ERR_[A-Z0-9_]+");

  private NavigationFailures() {}

  /** The failure of a navigation to {@code host}, with the cause in words. */
  static BrowserException failed(String host, String cause) {
    return BrowserException.of(
        ErrorCode.BROWSER_NAVIGATION_FAILED,
        (host.isEmpty() ? "the page" : host) + " could not be reached: " + cause);
  }

  /**
   * The cause in words of the first Chromium network error in {@code text}, or nothing when there
   * is none or it is not a failure to reach the site (an aborted navigation, a blocked one).
   */
  static Optional<String> cause(String text) {
    Matcher m = NET_ERROR.matcher(String.valueOf(text));
    if (!m.find()) {
      return Optional.empty();
    }
    String error = m.group();
    String code = error.substring("net::ERR_".length());
    if (code.startsWith("CERT_") || code.equals("BAD_SSL_CLIENT_AUTH_CERT")) {
      return Optional.of("TLS certificate error: " + error);
    }
    if (code.startsWith("SSL_") || code.contains("_SSL_") || code.startsWith("TLS")) {
      return Optional.of("TLS error: " + error);
    }
    String words =
        switch (code) {
          case "CONNECTION_REFUSED" -> "connection refused";
          case "NAME_NOT_RESOLVED", "NAME_RESOLUTION_FAILED" -> "the name does not resolve";
          case "TUNNEL_CONNECTION_FAILED" -> "the environment's proxy could not open a connection";
          case "TIMED_OUT", "CONNECTION_TIMED_OUT" -> "no answer in time";
          case "EMPTY_RESPONSE" -> "the server closed the connection without an answer";
          case "CONNECTION_RESET" -> "the connection was reset";
          case "CONNECTION_CLOSED" -> "the connection was closed";
          case "CONNECTION_FAILED" -> "the connection failed";
          case "ADDRESS_UNREACHABLE", "INTERNET_DISCONNECTED" -> "the address is unreachable";
          case "PROXY_CONNECTION_FAILED" -> "the environment's proxy is gone";
          case "INVALID_RESPONSE", "INVALID_HTTP_RESPONSE" -> "the answer is not valid HTTP";
          case "TOO_MANY_REDIRECTS" -> "too many redirects";
          case "RESPONSE_HEADERS_TOO_BIG" -> "the answer's headers are too big";
          default -> null;
        };
    return Optional.ofNullable(words).map(w -> w + " (" + error + ")");
  }
}
