package dev.periscope.browser.runtime;

import java.util.Optional;

/**
 * The runtime's own settings: the configured provider, how long shutdown may wait for admitted work and a
 * checkpoint ({@code cleanupTimeoutMs}), and how many transitions it keeps in memory.
 */
public record RuntimeSettings(Optional<String> provider, long cleanupTimeoutMs, int maxTransitionsInMemory) {
  public static RuntimeSettings defaults() {
    return new RuntimeSettings(Optional.empty(), 10_000, 500);
  }
}
