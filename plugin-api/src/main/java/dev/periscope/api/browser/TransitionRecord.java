package dev.periscope.api.browser;

import java.time.Instant;

/**
 * The compact, durable form of a {@link Transition}: identities, the action's kind, the outcome,
 * the evidence before and after (observation id, digest, URL, revision), timing, metrics and the
 * failure code. Never page text, never an action's values. A {@code fault} record (the environment
 * died or stopped answering) and the {@code recover} record of the environment that replaced it
 * name the {@link dev.periscope.api.browser.spi.EnvironmentFault.Cause#id() cause}. {@code
 * placement} says where the environment's browser ran when its provider says so (a Selenium Grid
 * node), else null; since host API 2.4.0.
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
    String cause,
    String placement) {

  /** A record without a placement, as host API 2.3.0 made them. */
  public TransitionRecord(
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
    this(
        id,
        sessionId,
        environmentId,
        providerId,
        generation,
        actionKind,
        outcome,
        before,
        after,
        startedAt,
        finishedAt,
        metrics,
        error,
        cause,
        null);
  }

  /** One side of the evidence; null fields where there was no observation. */
  public record Evidence(String observationId, String digest, String url, Integer revision) {
    public static Evidence of(Observation o) {
      return o == null
          ? new Evidence(null, null, null, null)
          : new Evidence(o.id(), o.digest(), o.url(), o.revision());
    }
  }
}
