package dev.periscope.browser.policy;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * IP literals, parsed without ever asking DNS: a canonical dotted quad, or an IPv6 literal
 * (bracketed or not). IPv4-mapped IPv6 addresses are taken as the IPv4 address they carry.
 */
final class IpLiteral {
  private static final Pattern DOTTED_QUAD =
      Pattern.compile("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+(%[A-Za-z0-9_.-]+)?");

  /**
   * A host a browser would read as a number (decimal, octal, hex, short forms), but not a canonical
   * quad.
   */
  private static final Pattern NUMERIC =
      Pattern.compile("(0[xX][0-9A-Fa-f]*|[0-9]+)(\\.(0[xX][0-9A-Fa-f]*|[0-9]*))*\\.?");

  private IpLiteral() {}

  static Optional<InetAddress> parse(String host) {
    String h =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    try {
      if (DOTTED_QUAD.matcher(h).matches()) {
        String[] parts = h.split("\\.");
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
          int v = Integer.parseInt(parts[i]);
          if (v > 255) {
            return Optional.empty();
          }
          bytes[i] = (byte) v;
        }
        return Optional.of(InetAddress.getByAddress(bytes));
      }
      if (h.contains(":") && IPV6.matcher(h).matches()) {
        // Only hex digits, colons and dots: the JDK parses this as a literal and never resolves it.
        return Optional.of(normalize(InetAddress.getByName(h)));
      }
    } catch (UnknownHostException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  /**
   * Whether a host is written as a number without being a canonical dotted quad ({@code
   * 2130706433}, {@code 0x7f.1}).
   */
  static boolean looksNumeric(String host) {
    return NUMERIC.matcher(host).matches() && !DOTTED_QUAD.matcher(host).matches();
  }

  /** An IPv4-mapped IPv6 address as the IPv4 address it carries; any other address as it is. */
  static InetAddress normalize(InetAddress address) {
    if (address instanceof Inet6Address) {
      byte[] b = address.getAddress();
      boolean mapped = true;
      for (int i = 0; i < 10; i++) {
        mapped &= b[i] == 0;
      }
      if (mapped && b[10] == (byte) 0xff && b[11] == (byte) 0xff) {
        try {
          return InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
        } catch (UnknownHostException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return address;
  }

  static boolean isV4(InetAddress a) {
    return a instanceof Inet4Address;
  }
}
