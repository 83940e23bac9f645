package dev.periscope.browser.runtime;

import java.time.Duration;
import java.util.Optional;

/**
 * The runtime's own settings: the configured provider, how long shutdown may wait for admitted work and a
 * checkpoint ({@code cleanupTimeoutMs}), how many transitions it keeps in memory, checkpoint retention (age and
 * count).
 */
public record RuntimeSettings(Optional<String> provider, long cleanupTimeoutMs, int maxTransitionsInMemory,
    Duration checkpointTtl, int maxCheckpoints) {
  public RuntimeSettings(Optional<String> provider, long cleanupTimeoutMs, int maxTransitionsInMemory) {
    this(provider, cleanupTimeoutMs, maxTransitionsInMemory, defaults().checkpointTtl(), defaults().maxCheckpoints());
  }

  public static RuntimeSettings defaults() {
    return new RuntimeSettings(Optional.empty(), 10_000, 500, Duration.ofDays(30), 200);
  }
}
