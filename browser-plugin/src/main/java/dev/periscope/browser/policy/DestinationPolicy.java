package dev.periscope.browser.policy;

import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.browser.spi.NetworkPolicy;
import dev.periscope.api.browser.spi.NetworkPolicy.Mode;
import java.net.IDN;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * How a project's {@link NetworkPolicy} judges a destination, in this order: the host's form
 * ({@code localhost} names, numbers that are not canonical IP literals), one resolution to every
 * address, {@code denyCidrs} and cloud metadata addresses (in every mode; metadata only passes when
 * {@code allowCidrs} names that very address), then, except in {@code unrestricted}, every address
 * must be public unicast, or (in {@code allowlist}) the host listed in {@code allowHosts} or the
 * address inside {@code allowCidrs}.
 */
public record DestinationPolicy(
    Mode mode, List<String> allowHosts, List<Cidr> allowCidrs, List<Cidr> denyCidrs) {
  private static final Pattern HOST_ENTRY = Pattern.compile("\\.?[a-z0-9]([a-z0-9.-]*[a-z0-9])?");

  public DestinationPolicy {
    allowHosts = List.copyOf(allowHosts);
    allowCidrs = List.copyOf(allowCidrs);
    denyCidrs = List.copyOf(denyCidrs);
  }

  public static DestinationPolicy strict() {
    return new DestinationPolicy(Mode.STRICT, List.of(), List.of(), List.of());
  }

  /** Reads {@code plugins.browser.network}; a malformed entry fails, naming it. */
  public static DestinationPolicy from(PluginConfiguration config) {
    return of(read(config));
  }

  /**
   * The policy {@code plugins.browser.network} states, checked entry by entry; a malformed entry
   * fails, naming it.
   */
  public static NetworkPolicy read(PluginConfiguration config) {
    String mode = config.string("network.mode").orElse("strict");
    Mode m;
    try {
      m = Mode.valueOf(mode.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw invalid(
          "mode",
          "plugins.browser.network.mode must be strict, allowlist or unrestricted (found "
              + mode
              + ")");
    }
    NetworkPolicy stated =
        new NetworkPolicy(
            m,
            config.strings("network.allowHosts"),
            config.strings("network.allowCidrs"),
            config.strings("network.denyCidrs"));
    of(stated);
    return stated;
  }

  /** The rules of a stated policy; a malformed entry fails, naming it. */
  public static DestinationPolicy of(NetworkPolicy stated) {
    List<String> hosts = new ArrayList<>();
    List<String> listed = stated.allowHosts();
    for (int i = 0; i < listed.size(); i++) {
      String h = normalizeHost(listed.get(i).strip());
      if (!HOST_ENTRY.matcher(h).matches() || h.startsWith("..")) {
        throw invalid(
            "allowHosts[" + i + "]",
            "plugins.browser.network.allowHosts["
                + i
                + "] is not a host name or .domain: "
                + listed.get(i));
      }
      hosts.add(h);
    }
    return new DestinationPolicy(
        stated.mode(),
        hosts,
        cidrs(stated.allowCidrs(), "allowCidrs"),
        cidrs(stated.denyCidrs(), "denyCidrs"));
  }

  private static List<Cidr> cidrs(List<String> listed, String key) {
    List<Cidr> out = new ArrayList<>();
    for (int i = 0; i < listed.size(); i++) {
      try {
        out.add(Cidr.parse(listed.get(i)));
      } catch (IllegalArgumentException e) {
        throw invalid(
            key + "[" + i + "]",
            "plugins.browser.network." + key + "[" + i + "]: " + e.getMessage());
      }
    }
    return out;
  }

  private static ConfigurationException invalid(String key, String message) {
    return new ConfigurationException("plugins.browser.network." + key, message);
  }

  /**
   * What a destination came to: admitted with the addresses to use, denied with the reason, or
   * unresolved.
   */
  public record Verdict(Outcome outcome, String host, List<InetAddress> addresses, String reason) {
    public enum Outcome {
      ADMITTED,
      DENIED,
      UNRESOLVED
    }

    public boolean admitted() {
      return outcome == Outcome.ADMITTED;
    }
  }

  /** Judges a host, resolving it (once) through {@code resolver} unless it is an IP literal. */
  public Verdict judge(String rawHost, Resolver resolver) {
    String host = normalizeHost(rawHost == null ? "" : rawHost);
    if (host.isEmpty()) {
      return denied(host, "no host");
    }
    boolean listed = mode == Mode.ALLOWLIST && hostListed(host);
    if (mode != Mode.UNRESTRICTED
        && !listed
        && (host.equals("localhost") || host.endsWith(".localhost"))) {
      return denied(host, "localhost names are refused");
    }
    if (IpLiteral.looksNumeric(host)) {
      return denied(host, "a numeric host that is not a canonical IP address");
    }
    List<InetAddress> addresses;
    var literal = IpLiteral.parse(host);
    if (literal.isPresent()) {
      addresses = List.of(literal.get());
    } else {
      try {
        addresses = resolver.resolve(host).stream().map(IpLiteral::normalize).toList();
      } catch (UnknownHostException e) {
        return new Verdict(Verdict.Outcome.UNRESOLVED, host, List.of(), host + " does not resolve");
      }
      if (addresses.isEmpty()) {
        return new Verdict(Verdict.Outcome.UNRESOLVED, host, List.of(), host + " does not resolve");
      }
    }
    for (InetAddress a : addresses) {
      for (Cidr deny : denyCidrs) {
        if (deny.contains(a)) {
          return denied(host, a.getHostAddress() + " is in denyCidrs " + deny);
        }
      }
      if (Addresses.isMetadata(a)
          && allowCidrs.stream().noneMatch(c -> c.single() && c.contains(a))) {
        return denied(host, a.getHostAddress() + " is a cloud metadata address");
      }
    }
    if (mode == Mode.UNRESTRICTED) {
      return new Verdict(Verdict.Outcome.ADMITTED, host, addresses, null);
    }
    for (InetAddress a : addresses) {
      boolean ok =
          Addresses.isPublicUnicast(a)
              || (mode == Mode.ALLOWLIST
                  && (listed || allowCidrs.stream().anyMatch(c -> c.contains(a))));
      if (!ok) {
        return denied(
            host,
            a.getHostAddress()
                + " is not a public address"
                + (mode == Mode.ALLOWLIST
                    ? " and not allowed by allowHosts or allowCidrs"
                    : " (strict mode)"));
      }
    }
    return new Verdict(Verdict.Outcome.ADMITTED, host, addresses, null);
  }

  private boolean hostListed(String host) {
    for (String entry : allowHosts) {
      if (entry.startsWith(".")
          ? host.equals(entry.substring(1)) || host.endsWith(entry)
          : host.equals(entry)) {
        return true;
      }
    }
    return false;
  }

  private static Verdict denied(String host, String reason) {
    return new Verdict(Verdict.Outcome.DENIED, host, List.of(), reason);
  }

  /** Lower case, ASCII (punycode), without brackets' contents changed or a trailing dot. */
  public static String normalizeHost(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.endsWith(".") && !h.endsWith("..")) {
      h = h.substring(0, h.length() - 1);
    }
    if (h.startsWith("[") || h.contains(":")) {
      return h;
    }
    try {
      return IDN.toASCII(h, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      return h;
    }
  }

  /** One line for the startup log: the mode and the allow and deny lists. */
  public String describe() {
    return "network "
        + mode.name().toLowerCase(Locale.ROOT)
        + ", allowHosts "
        + allowHosts
        + ", allowCidrs "
        + allowCidrs
        + ", denyCidrs "
        + denyCidrs;
  }
}
