package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Requirements;
import dev.periscope.api.browser.spi.BrowserProvider;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.api.browser.spi.NetworkPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The registered providers and the selection rule: the configured provider, else the single
 * available one. Registration order never decides: the map is sorted by id, and more than one
 * available provider is an error. The chosen provider must enforce the network policy ({@link
 * Capability#NETWORK_POLICY}) unless the project's mode is unrestricted: selection fails closed.
 */
final class ProviderRegistry {
  private final Map<String, BrowserProvider> providers = new TreeMap<>();

  synchronized void add(BrowserProvider provider) {
    if (providers.containsKey(provider.id())) {
      throw new BrowserException(
          ErrorCode.BROWSER_DUPLICATE_PROVIDER,
          "a browser provider with id \"" + provider.id() + "\" is already registered");
    }
    providers.put(provider.id(), provider);
  }

  synchronized boolean remove(BrowserProvider provider) {
    return providers.remove(provider.id(), provider);
  }

  synchronized Optional<BrowserProvider> byId(String id) {
    return Optional.ofNullable(providers.get(id));
  }

  synchronized boolean contains(BrowserProvider provider) {
    return providers.get(provider.id()) == provider;
  }

  BrowserProvider select(
      Requirements requirements, Optional<String> configured, NetworkPolicy.Mode mode) {
    List<BrowserProvider> snapshot;
    synchronized (this) {
      snapshot = List.copyOf(providers.values());
    }
    Optional<String> wanted = requirements.providerId().or(() -> configured);
    BrowserProvider chosen;
    if (wanted.isPresent()) {
      chosen =
          snapshot.stream()
              .filter(p -> p.id().equals(wanted.get()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new BrowserException(
                          ErrorCode.BROWSER_PROVIDER_CONFIGURED_MISSING,
                          "the configured browser provider \""
                              + wanted.get()
                              + "\" is not registered"));
      if (!chosen.available()) {
        throw new BrowserException(
            ErrorCode.BROWSER_PROVIDER_CONFIGURED_UNAVAILABLE,
            "the configured browser provider \""
                + chosen.id()
                + "\" is not available\n"
                + chosen.unavailableReason().orElse("(it gave no reason)"));
      }
    } else {
      List<BrowserProvider> available = new ArrayList<>();
      StringBuilder remedies = new StringBuilder();
      for (BrowserProvider p : snapshot) {
        if (p.available()) {
          available.add(p);
        } else {
          remedies
              .append('\n')
              .append(p.id())
              .append(": ")
              .append(p.unavailableReason().orElse("unavailable"));
        }
      }
      if (available.isEmpty()) {
        throw new BrowserException(
            ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, "no browser provider is available" + remedies);
      }
      if (available.size() > 1) {
        throw new BrowserException(
            ErrorCode.BROWSER_PROVIDER_AMBIGUOUS,
            "multiple browser providers are available: "
                + String.join(", ", available.stream().map(BrowserProvider::id).toList())
                + "; set plugins.browser.provider to choose one");
      }
      chosen = available.get(0);
    }
    if (mode != NetworkPolicy.Mode.UNRESTRICTED
        && !chosen.capabilities().contains(Capability.NETWORK_POLICY)) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "browser provider \""
              + chosen.id()
              + "\" does not enforce the network policy, and this project's network mode is "
              + mode.configName()
              + ": it opens browsers only for a project whose plugins.browser.network.mode is unrestricted; "
              + chosen.policyRemedy().orElse("choose a provider that enforces the policy"));
    }
    for (Capability c : requirements.capabilities()) {
      if (!chosen.capabilities().contains(c)) {
        throw new BrowserException(
            ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED,
            "browser provider \"" + chosen.id() + "\" does not support " + c.name().toLowerCase());
      }
    }
    return chosen;
  }
}
