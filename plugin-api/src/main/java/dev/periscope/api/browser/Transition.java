package dev.periscope.api.browser;

import java.time.Instant;
import java.util.Map;

/**
 * The evidence of one admitted action: what was done (redacted: a fill keeps its length, never its
 * value), the observation before, the outcome, the observation after (absent unless it succeeded),
 * timing, and the failure code when it did not succeed.
 */
public record Transition(
    String id,
    String sessionId,
    String environmentId,
    String providerId,
    int generation,
    Map<String, Object> action,
    Outcome outcome,
    String beforeObservationId,
    Observation after,
    Instant startedAt,
    Instant finishedAt,
    Metrics metrics,
    ErrorCode error) {
  public Transition {
    action = Map.copyOf(action);
  }

  public enum Outcome {
    SUCCEEDED,
    FAILED,
    UNKNOWN
  }

  /** Durations in milliseconds, and the size of what the after-observation kept. */
  public record Metrics(
      long durationMs,
      long actionMs,
      long observationMs,
      int textChars,
      int elementCount,
      boolean textTruncated,
      boolean elementsTruncated) {}
}
