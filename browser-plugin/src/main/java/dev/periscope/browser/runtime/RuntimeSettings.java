package dev.periscope.browser.runtime;

import dev.periscope.api.browser.spi.EnvironmentPolicy;
import java.time.Duration;
import java.util.Optional;

/**
 * The runtime's own settings: the configured provider, how long shutdown may wait for admitted work
 * and a checkpoint ({@code cleanupTimeoutMs}), how many transitions it keeps in memory, checkpoint
 * retention (age and count), the deadlines every step of a call runs under ({@link Timeouts}), and
 * the {@link EnvironmentPolicy} every provider is handed when it opens an environment. Without one
 * stated, the policy is {@link EnvironmentPolicy#defaults()}: strict.
 */
public record RuntimeSettings(
    Optional<String> provider,
    long cleanupTimeoutMs,
    int maxTransitionsInMemory,
    Duration checkpointTtl,
    int maxCheckpoints,
    Timeouts timeouts,
    EnvironmentPolicy environment) {
  public static RuntimeSettings defaults() {
    return new RuntimeSettings(
        Optional.empty(),
        10_000,
        500,
        Duration.ofDays(30),
        200,
        Timeouts.defaults(),
        EnvironmentPolicy.defaults());
  }

  /** These settings with another configured provider. */
  public RuntimeSettings withProvider(Optional<String> id) {
    return new RuntimeSettings(
        id,
        cleanupTimeoutMs,
        maxTransitionsInMemory,
        checkpointTtl,
        maxCheckpoints,
        timeouts,
        environment);
  }

  /** These settings with another shutdown wait and another number of transitions kept in memory. */
  public RuntimeSettings withLimits(long cleanupTimeoutMs, int maxTransitionsInMemory) {
    return new RuntimeSettings(
        provider,
        cleanupTimeoutMs,
        maxTransitionsInMemory,
        checkpointTtl,
        maxCheckpoints,
        timeouts,
        environment);
  }

  /** These settings with another checkpoint retention: the age and the number kept. */
  public RuntimeSettings withRetention(Duration checkpointTtl, int maxCheckpoints) {
    return new RuntimeSettings(
        provider,
        cleanupTimeoutMs,
        maxTransitionsInMemory,
        checkpointTtl,
        maxCheckpoints,
        timeouts,
        environment);
  }

  /** These settings with other deadlines. */
  public RuntimeSettings with(Timeouts other) {
    return new RuntimeSettings(
        provider,
        cleanupTimeoutMs,
        maxTransitionsInMemory,
        checkpointTtl,
        maxCheckpoints,
        other,
        environment);
  }

  /** These settings with another policy for the environments. */
  public RuntimeSettings with(EnvironmentPolicy other) {
    return new RuntimeSettings(
        provider,
        cleanupTimeoutMs,
        maxTransitionsInMemory,
        checkpointTtl,
        maxCheckpoints,
        timeouts,
        other);
  }

  /**
   * The deadlines of a call's steps. Each step of a call (the action, the observation after it, a
   * screenshot, a checkpoint) has its own timeout: the provider's own for the same work ({@code
   * actionMs}, {@code navigationMs}, a wait's own), which the provider is expected to keep; a step
   * still running {@code marginMs} after it is stopped by the runtime, and its environment is
   * discarded as unresponsive. Opening an environment (starting the browser, restoring its
   * checkpoint) may take {@code openMs}. A liveness check gets {@code livenessMs}; it runs every
   * {@code livenessIntervalMs} while the environment is idle, before a call that follows a pause of
   * {@code checkAfterPauseMs} or more, and after a step that failed.
   */
  public record Timeouts(
      long actionMs,
      long navigationMs,
      long marginMs,
      long livenessMs,
      long livenessIntervalMs,
      long checkAfterPauseMs,
      long openMs) {
    public static Timeouts defaults() {
      return new Timeouts(10_000, 30_000, 2_000, 5_000, 2_000, 250, 60_000);
    }

    /**
     * The provider's own timeouts, the margin and the liveness deadline from configuration; the
     * rest default.
     */
    public static Timeouts of(long actionMs, long navigationMs, long marginMs, long livenessMs) {
      Timeouts d = defaults();
      return new Timeouts(
          actionMs,
          navigationMs,
          marginMs,
          livenessMs,
          d.livenessIntervalMs(),
          d.checkAfterPauseMs(),
          d.openMs());
    }

    /** A step that may start a navigation: the action, then the navigation it started. */
    long actionThenNavigationMs() {
      return actionMs + navigationMs;
    }
  }
}
