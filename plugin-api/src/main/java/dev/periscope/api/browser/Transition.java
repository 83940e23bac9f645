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

  /**
   * Durations in milliseconds, and the size of what the after-observation kept. {@code durationMs}
   * is the whole call's; {@code environmentMs} is the part of it the call waited for its browser
   * environment before the action began (a browser starting, a session restored from its
   * checkpoint), 0 when it was ready (since host API 2.9.0).
   */
  public record Metrics(
      long durationMs,
      long actionMs,
      long observationMs,
      int textChars,
      int elementCount,
      boolean textTruncated,
      boolean elementsTruncated,
      long environmentMs) {
    /** Metrics of a call whose environment was ready (as before host API 2.9.0). */
    public Metrics(
        long durationMs,
        long actionMs,
        long observationMs,
        int textChars,
        int elementCount,
        boolean textTruncated,
        boolean elementsTruncated) {
      this(
          durationMs,
          actionMs,
          observationMs,
          textChars,
          elementCount,
          textTruncated,
          elementsTruncated,
          0);
    }
  }
}
