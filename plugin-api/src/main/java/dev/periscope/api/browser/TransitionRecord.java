package dev.periscope.api.browser;

import java.time.Instant;

/**
 * The compact, durable form of a {@link Transition}: identities, the action's kind, the outcome,
 * the evidence before and after (observation id, digest, URL, revision), timing, metrics and the
 * failure code. Never page text, never an action's values. A {@code fault} record (the environment
 * died or stopped answering) and the {@code recover} record of the environment that replaced it
 * name the {@link dev.periscope.api.browser.spi.EnvironmentFault.Cause#id() cause}.
 */
public record TransitionRecord(
    String id,
    String sessionId,
    String environmentId,
    String providerId,
    int generation,
    String actionKind,
    Transition.Outcome outcome,
    Evidence before,
    Evidence after,
    Instant startedAt,
    Instant finishedAt,
    Transition.Metrics metrics,
    ErrorCode error,
    String cause) {

  /** One side of the evidence; null fields where there was no observation. */
  public record Evidence(String observationId, String digest, String url, Integer revision) {
    public static Evidence of(Observation o) {
      return o == null
          ? new Evidence(null, null, null, null)
          : new Evidence(o.id(), o.digest(), o.url(), o.revision());
    }
  }
}
