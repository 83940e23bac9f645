package dev.periscope.api.browser;

import dev.periscope.api.browser.spi.Capability;
import java.util.Optional;
import java.util.Set;

/**
 * What an acquire asks of the provider: a provider id (else automatic selection) and capabilities.
 */
public record Requirements(Optional<String> providerId, Set<Capability> capabilities) {
  public Requirements {
    capabilities = Set.copyOf(capabilities);
  }

  public static Requirements any() {
    return new Requirements(Optional.empty(), Set.of());
  }
}
