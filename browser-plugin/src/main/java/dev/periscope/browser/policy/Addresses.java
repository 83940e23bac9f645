package dev.periscope.browser.policy;

import java.net.InetAddress;
import java.util.List;

/**
 * Which addresses are public unicast, and which serve cloud metadata. Everything that is not public
 * unicast is a special-purpose range: loopback, private, shared (CGNAT), link-local, documentation,
 * benchmarking, multicast, reserved, and the IPv6 forms that embed an IPv4 address (NAT64, 6to4,
 * Teredo), judged as a whole.
 */
public final class Addresses {
  private static final List<Cidr> NOT_PUBLIC =
      List.of(
              "0.0.0.0/8",
              "10.0.0.0/8",
              "100.64.0.0/10",
              "127.0.0.0/8",
              "169.254.0.0/16",
              "172.16.0.0/12",
              "192.0.0.0/24",
              "192.0.2.0/24",
              "192.88.99.0/24",
              "192.168.0.0/16",
              "198.18.0.0/15",
              "198.51.100.0/24",
              "203.0.113.0/24",
              "224.0.0.0/4",
              "240.0.0.0/4",
              "255.255.255.255/32",
              "::/128",
              "::1/128",
              "64:ff9b::/96",
              "64:ff9b:1::/48",
              "100::/64",
              "2001::/23",
              "2001:db8::/32",
              "2002::/16",
              "3fff::/20",
              "5f00::/16",
              "fc00::/7",
              "fe80::/10",
              "fec0::/10",
              "ff00::/8")
          .stream()
          .map(Cidr::parse)
          .toList();

  /** Cloud metadata and host-agent endpoints (AWS, ECS, GCP, Azure, Alibaba, Oracle and others). */
  public static final List<Cidr> METADATA =
      List.of(
              "169.254.169.254/32",
              "169.254.169.253/32",
              "169.254.169.123/32",
              "169.254.170.2/32",
              "169.254.170.23/32",
              "100.100.100.200/32",
              "168.63.129.16/32",
              "192.0.0.192/32",
              "fd00:ec2::254/128",
              "fd00:ec2::23/128",
              "fd00:ec2::123/128",
              "fd20:ce::254/128")
          .stream()
          .map(Cidr::parse)
          .toList();

  private Addresses() {}

  public static boolean isPublicUnicast(InetAddress address) {
    InetAddress a = IpLiteral.normalize(address);
    if (!IpLiteral.isV4(a) && (a.getAddress()[0] & 0xe0) != 0x20) {
      return false; // only 2000::/3 is global unicast in IPv6
    }
    return NOT_PUBLIC.stream().noneMatch(c -> c.contains(a));
  }

  public static boolean isMetadata(InetAddress address) {
    InetAddress a = IpLiteral.normalize(address);
    return METADATA.stream().anyMatch(c -> c.contains(a));
  }
}
