package dev.periscope.browser.policy;

import java.net.InetAddress;

/**
 * A network in CIDR notation ({@code 10.0.0.0/8}, {@code fd00::/8}); an IPv4-mapped network counts
 * as IPv4.
 */
public record Cidr(InetAddress network, int prefix, String text) {
  /** Parses a CIDR, or fails naming what is wrong with it. */
  public static Cidr parse(String text) {
    String t = text == null ? "" : text.strip();
    int slash = t.indexOf('/');
    if (slash <= 0 || slash == t.length() - 1) {
      throw new IllegalArgumentException("\"" + text + "\" is not a CIDR (address/prefix)");
    }
    InetAddress address =
        IpLiteral.parse(t.substring(0, slash))
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "\"" + text + "\" is not a CIDR: the address is not an IP literal"));
    int prefix;
    try {
      prefix = Integer.parseInt(t.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "\"" + text + "\" is not a CIDR: the prefix is not a number");
    }
    int bits = address.getAddress().length * 8;
    // An IPv4-mapped IPv6 network (::ffff:10.0.0.0/104) is the IPv4 network it carries.
    if (t.substring(0, slash).contains(":") && IpLiteral.isV4(address)) {
      if (prefix < 96) {
        throw new IllegalArgumentException(
            "\"" + text + "\" is not a CIDR: an IPv4-mapped network needs a prefix of 96 or more");
      }
      prefix -= 96;
    }
    if (prefix < 0 || prefix > bits) {
      throw new IllegalArgumentException(
          "\"" + text + "\" is not a CIDR: the prefix must be from 0 to " + bits);
    }
    return new Cidr(address, prefix, t);
  }

  public boolean contains(InetAddress candidate) {
    InetAddress a = IpLiteral.normalize(candidate);
    byte[] net = network.getAddress();
    byte[] other = a.getAddress();
    if (net.length != other.length) {
      return false;
    }
    int full = prefix / 8;
    for (int i = 0; i < full; i++) {
      if (net[i] != other[i]) {
        return false;
      }
    }
    int rest = prefix % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xff << (8 - rest)) & 0xff;
    return (net[full] & mask) == (other[full] & mask);
  }

  /** Whether this network is exactly one address. */
  public boolean single() {
    return prefix == network.getAddress().length * 8;
  }

  @Override
  public String toString() {
    return text;
  }
}
