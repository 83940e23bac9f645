package dev.periscope.api.host;

import java.net.IDN;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;

/**
 * An origin a credential may be filled into: {@code scheme://host[:port]}, compared as parsed
 * origins (scheme, host and effective port), never as strings. {@code *} may stand only for the
 * whole leftmost host label ({@code https://*.bank.test} matches {@code https://login.bank.test},
 * not {@code https://bank.test} nor {@code https://a.b.bank.test}) or for the port ({@code
 * http://127.0.0.1:*}).
 */
public final class OriginPattern {
  private final String scheme;
  private final String host;
  private final boolean anyLeftmostLabel;
  private final int port;
  private final boolean anyPort;
  private final String text;

  private OriginPattern(
      String text,
      String scheme,
      String host,
      boolean anyLeftmostLabel,
      int port,
      boolean anyPort) {
    this.text = text;
    this.scheme = scheme;
    this.host = host;
    this.anyLeftmostLabel = anyLeftmostLabel;
    this.port = port;
    this.anyPort = anyPort;
  }

  /** Parses a pattern, or fails with a message naming what is wrong with it. */
  public static OriginPattern parse(String pattern) {
    String p = pattern == null ? "" : pattern.strip();
    int schemeEnd = p.indexOf("://");
    if (schemeEnd <= 0) {
      throw invalid(pattern, "expected scheme://host[:port]");
    }
    String scheme = p.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw invalid(pattern, "only http and https origins");
    }
    String rest = p.substring(schemeEnd + 3);
    if (rest.endsWith("/")) {
      rest = rest.substring(0, rest.length() - 1);
    }
    if (rest.isEmpty()
        || rest.contains("/")
        || rest.contains("@")
        || rest.contains("?")
        || rest.contains("#")) {
      throw invalid(pattern, "an origin has no path, user, query or fragment");
    }
    boolean anyPort = false;
    int port = defaultPort(scheme);
    String hostPart = rest;
    int colon = rest.lastIndexOf(':');
    if (colon >= 0 && !rest.endsWith("]")) {
      hostPart = rest.substring(0, colon);
      String portText = rest.substring(colon + 1);
      if (portText.equals("*")) {
        anyPort = true;
      } else {
        try {
          port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
          throw invalid(pattern, "the port must be a number or *");
        }
        if (port < 1 || port > 65535) {
          throw invalid(pattern, "the port must be from 1 to 65535");
        }
      }
    }
    boolean anyLabel = hostPart.startsWith("*.");
    String hostName = anyLabel ? hostPart.substring(2) : hostPart;
    if (hostName.contains("*")) {
      throw invalid(pattern, "* may stand only for the whole leftmost host label or for the port");
    }
    String normalized =
        normalizeHost(hostName)
            .orElseThrow(() -> invalid(pattern, "\"" + hostName + "\" is not a host name"));
    return new OriginPattern(p, scheme, normalized, anyLabel, port, anyPort);
  }

  /**
   * Whether an origin ({@code https://login.bank.test}, or a whole URL) is one this pattern admits.
   */
  public boolean matches(String origin) {
    URI uri;
    try {
      uri = new URI(origin);
    } catch (URISyntaxException | NullPointerException e) {
      return false;
    }
    String s = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!s.equals(scheme) || uri.getRawUserInfo() != null || uri.getHost() == null) {
      return false;
    }
    int p = uri.getPort() == -1 ? defaultPort(s) : uri.getPort();
    if (!anyPort && p != port) {
      return false;
    }
    Optional<String> h = normalizeHost(uri.getHost());
    if (h.isEmpty()) {
      return false;
    }
    if (!anyLeftmostLabel) {
      return h.get().equals(host);
    }
    int dot = h.get().indexOf('.');
    return dot > 0 && h.get().substring(dot + 1).equals(host);
  }

  private static int defaultPort(String scheme) {
    return scheme.equals("https") ? 443 : 80;
  }

  /** Lower case, ASCII (punycode), without a trailing dot; IPv6 literals keep their brackets. */
  private static Optional<String> normalizeHost(String host) {
    String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    if (h.isEmpty()) {
      return Optional.empty();
    }
    if (h.startsWith("[") && h.endsWith("]")) {
      return Optional.of(h.toLowerCase(Locale.ROOT));
    }
    try {
      String ascii = IDN.toASCII(h, IDN.USE_STD3_ASCII_RULES).toLowerCase(Locale.ROOT);
      return ascii.isEmpty() ? Optional.empty() : Optional.of(ascii);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static IllegalArgumentException invalid(String pattern, String why) {
    return new IllegalArgumentException("invalid origin \"" + pattern + "\": " + why);
  }

  @Override
  public String toString() {
    return text;
  }
}
