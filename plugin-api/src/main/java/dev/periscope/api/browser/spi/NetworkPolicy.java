package dev.periscope.api.browser.spi;

import java.util.List;
import java.util.Objects;

/**
 * A project's network policy as its configuration states it ({@code plugins.browser.network}): what
 * every connection an environment's browser makes must keep. In every mode a destination inside
 * {@code denyCidrs} or a cloud metadata address is refused (metadata only passes when {@code
 * allowCidrs} names that very address); in {@link Mode#STRICT} every address must be public
 * unicast; in {@link Mode#ALLOWLIST} it must also be a host in {@code allowHosts} ({@code
 * .example.com} covers its subdomains) or an address inside {@code allowCidrs}. A provider that
 * advertises {@link Capability#NETWORK_POLICY} enforces this for every request its browser makes,
 * loopback included; the runtime refuses a provider without it for any mode but {@link
 * Mode#UNRESTRICTED}.
 *
 * <p>Immutable and thread-safe.
 */
public record NetworkPolicy(
    Mode mode, List<String> allowHosts, List<String> allowCidrs, List<String> denyCidrs) {
  /** How much of the network an environment may reach. */
  public enum Mode {
    /** Public unicast addresses only. The default. */
    STRICT,
    /** Only the listed hosts and address ranges. */
    ALLOWLIST,
    /** Anything but {@code denyCidrs} and cloud metadata. */
    UNRESTRICTED;

    /** The mode as configuration spells it. */
    public String configName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public NetworkPolicy {
    Objects.requireNonNull(mode, "mode");
    allowHosts = List.copyOf(allowHosts);
    allowCidrs = List.copyOf(allowCidrs);
    denyCidrs = List.copyOf(denyCidrs);
  }

  public static NetworkPolicy strict() {
    return new NetworkPolicy(Mode.STRICT, List.of(), List.of(), List.of());
  }

  public static NetworkPolicy unrestricted() {
    return new NetworkPolicy(Mode.UNRESTRICTED, List.of(), List.of(), List.of());
  }
}
