package dev.periscope.api.browser;

/**
 * The evidence of one admitted action: the observation before, the action's outcome, the observation after, and
 * how long each part took.
 */
public record Transition(
    String id, String action, Outcome outcome, String beforeObservationId, Observation after, Metrics metrics) {

  public enum Outcome {
    SUCCEEDED,
    FAILED,
    UNKNOWN
  }

  public record Metrics(long durationMs, long actionMs, long observationMs) {}
}
