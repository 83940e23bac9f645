package dev.periscope.browser.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DestinationPolicyTest {
  /** Answers as public DNS would for the names the SSRF corpus uses, without asking anyone. */
  static final Resolver PUBLIC_DNS =
      host ->
          switch (host) {
            case "127.0.0.1.nip.io",
                "company.127.0.0.1.nip.io",
                "localtest.me",
                "localh.st",
                "customer1.app.localhost.my.company.127.0.0.1.nip.io" ->
                List.of(address("127.0.0.1"));
            case "rebind.test" -> List.of(address("93.184.216.34"), address("10.0.0.1"));
            case "public.test", "www.public.test" -> List.of(address("93.184.216.34"));
            case "v6.test" -> List.of(address("2606:4700::6810:84e5"));
            case "metadata.test" -> List.of(address("169.254.169.254"));
            default -> throw new UnknownHostException(host);
          };

  static InetAddress address(String literal) {
    return IpLiteral.parse(literal).orElseThrow();
  }

  static DestinationPolicy policy(
      String mode, List<String> hosts, List<String> allow, List<String> deny) {
    return DestinationPolicy.from(
        new PluginConfiguration(
            Map.of(
                "network",
                Map.of(
                    "mode", mode, "allowHosts", hosts, "allowCidrs", allow, "denyCidrs", deny))));
  }

  @Test
  void classifiesAddresses() {
    for (String pub :
        List.of("93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700::6810:84e5", "::ffff:8.8.8.8")) {
      assertTrue(Addresses.isPublicUnicast(address(pub)), pub);
    }
    for (String special :
        List.of(
            "127.0.0.1",
            "127.127.127.127",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "169.254.169.254",
            "192.0.2.1",
            "198.18.0.1",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "fc00::1",
            "fd00:ec2::254",
            "fe80::1",
            "ff02::1",
            "64:ff9b::7f00:1",
            "2002:7f00:1::",
            "2001:db8::1",
            "2001:0::1")) {
      assertFalse(Addresses.isPublicUnicast(address(special)), special);
    }
    assertTrue(Addresses.isMetadata(address("169.254.169.254")));
    assertTrue(Addresses.isMetadata(address("fd00:ec2::254")));
    assertTrue(Addresses.isMetadata(address("100.100.100.200")));
    assertTrue(Addresses.isMetadata(address("::ffff:169.254.169.254")));
  }

  @Test
  void parsesCidrsAndRefusesMalformedOnesNamingThem() {
    assertTrue(Cidr.parse("10.0.0.0/8").contains(address("10.255.0.1")));
    assertFalse(Cidr.parse("10.0.0.0/8").contains(address("11.0.0.1")));
    assertTrue(Cidr.parse("172.16.0.0/12").contains(address("172.31.0.1")));
    assertTrue(Cidr.parse("fd00::/8").contains(address("fd12::1")));
    assertTrue(Cidr.parse("::ffff:10.0.0.0/104").contains(address("10.9.9.9")));
    assertTrue(Cidr.parse("127.0.0.1/32").contains(address("::ffff:127.0.0.1")));
    assertFalse(Cidr.parse("10.0.0.0/8").contains(address("fd00::1")));
    for (String bad :
        List.of(
            "10.0.0.0", "10.0.0.0/33", "10.0.0/8", "localhost/8", "10.0.0.0/x", "::/129", "/8")) {
      assertThrows(IllegalArgumentException.class, () -> Cidr.parse(bad), bad);
    }
    ConfigurationException e =
        assertThrows(
            ConfigurationException.class,
            () ->
                policy("allowlist", List.of(), List.of("127.0.0.1/32", "10.0.0.0/40"), List.of()));
    assertEquals("plugins.browser.network.allowCidrs[1]", e.path());
    assertTrue(e.getMessage().contains("plugins.browser.network.allowCidrs[1]"), e.getMessage());
    ConfigurationException host =
        assertThrows(
            ConfigurationException.class,
            () -> policy("allowlist", List.of("ok.test", "bad host"), List.of(), List.of()));
    assertEquals("plugins.browser.network.allowHosts[1]", host.path());
  }

  @Test
  void strictAdmitsPublicAddressesOnly() {
    DestinationPolicy strict = policy("strict", List.of(), List.of(), List.of());
    assertTrue(strict.judge("public.test", PUBLIC_DNS).admitted());
    assertTrue(strict.judge("v6.test", PUBLIC_DNS).admitted());
    assertTrue(strict.judge("93.184.216.34", PUBLIC_DNS).admitted());
    for (String host :
        List.of(
            "localhost",
            "app.localhost",
            "127.0.0.1",
            "[::1]",
            "127.0.0.1.nip.io",
            "localtest.me",
            "rebind.test",
            "metadata.test",
            "10.0.0.1",
            "[::ffff:127.0.0.1]",
            "0.0.0.0",
            "[::]",
            "2130706433",
            "0x7f000001",
            "0177.0.0.1",
            "127.1")) {
      DestinationPolicy.Verdict v = strict.judge(host, PUBLIC_DNS);
      assertEquals(DestinationPolicy.Verdict.Outcome.DENIED, v.outcome(), host + ": " + v);
    }
    assertEquals(
        DestinationPolicy.Verdict.Outcome.UNRESOLVED,
        strict.judge("nowhere.test", PUBLIC_DNS).outcome());
  }

  @Test
  void allowlistAdmitsExactlyWhatIsListed() {
    DestinationPolicy p =
        policy(
            "allowlist",
            List.of("intranet.test", ".corp.test"),
            List.of("127.0.0.1/32"),
            List.of());
    Resolver corp = host -> List.of(address("10.1.1.1"));
    assertTrue(p.judge("intranet.test", corp).admitted());
    assertTrue(p.judge("corp.test", corp).admitted());
    assertTrue(p.judge("a.b.corp.test", corp).admitted());
    assertTrue(p.judge("127.0.0.1", corp).admitted());
    assertTrue(p.judge("127.0.0.1.nip.io", PUBLIC_DNS).admitted(), "a name for an allowed address");
    for (String host :
        List.of("intranet.test.evil.test", "xcorp.test", "other.test", "127.0.0.2", "localhost")) {
      assertFalse(p.judge(host, corp).admitted(), host);
    }
    assertTrue(
        p.judge("public.test", PUBLIC_DNS).admitted(), "public addresses pass in allowlist too");
  }

  @Test
  void denyCidrsAndMetadataWinInEveryMode() {
    for (String mode : List.of("strict", "allowlist", "unrestricted")) {
      DestinationPolicy p =
          policy(
              mode,
              List.of("public.test"),
              List.of("93.0.0.0/8", "169.254.0.0/16"),
              List.of("93.184.216.0/24", "127.0.0.0/8"));
      DestinationPolicy.Verdict v = p.judge("public.test", PUBLIC_DNS);
      assertFalse(v.admitted(), mode);
      assertTrue(v.reason().contains("denyCidrs 93.184.216.0/24"), v.reason());
      assertFalse(p.judge("127.0.0.1", PUBLIC_DNS).admitted(), mode);
      DestinationPolicy.Verdict meta = p.judge("169.254.169.254", PUBLIC_DNS);
      assertTrue(meta.reason().contains("cloud metadata"), mode + ": " + meta);
      assertFalse(p.judge("metadata.test", PUBLIC_DNS).admitted());
      assertFalse(p.judge("[fd00:ec2::254]", PUBLIC_DNS).admitted());
    }
    DestinationPolicy named =
        policy("allowlist", List.of(), List.of("169.254.169.254/32"), List.of());
    assertTrue(
        named.judge("169.254.169.254", PUBLIC_DNS).admitted(),
        "an explicitly listed metadata address");
  }

  @Test
  void unrestrictedAdmitsEverythingElse() {
    DestinationPolicy open = policy("unrestricted", List.of(), List.of(), List.of());
    for (String host :
        List.of("127.0.0.1", "10.0.0.1", "localhost", "127.0.0.1.nip.io", "rebind.test", "[::1]")) {
      DestinationPolicy.Verdict v =
          open.judge(
              host,
              h -> h.equals("localhost") ? List.of(address("127.0.0.1")) : PUBLIC_DNS.resolve(h));
      assertTrue(v.admitted(), host + ": " + v);
    }
  }

  @Test
  void everyAddressOfAHostIsCheckedAndTheCheckedOnesAreKept() {
    DestinationPolicy strict = DestinationPolicy.strict();
    DestinationPolicy.Verdict v = strict.judge("rebind.test", PUBLIC_DNS);
    assertFalse(v.admitted(), "one private address among public ones denies the host");
    List<String> asked = new ArrayList<>();
    DestinationPolicy.Verdict once =
        strict.judge(
            "public.test",
            host -> {
              asked.add(host);
              return PUBLIC_DNS.resolve(host);
            });
    assertEquals(List.of("public.test"), asked, "resolved once");
    assertEquals(List.of(address("93.184.216.34")), once.addresses());
    assertEquals(
        List.of(),
        new ArrayList<String>() {
          {
            strict.judge(
                "8.8.8.8",
                host -> {
                  add(host);
                  return List.of();
                });
          }
        },
        "a literal is never resolved");
  }
}
