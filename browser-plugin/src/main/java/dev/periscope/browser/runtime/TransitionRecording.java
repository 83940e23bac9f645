package dev.periscope.browser.runtime;

import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Transition;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * The transition an action makes, from the moment it starts, with the evidence before it; {@link
 * #end} records it with the runtime, whether the action succeeded or not.
 */
final class TransitionRecording {
  private final DefaultBrowserRuntime runtime;
  private final Environment environment;
  private final String id = "transition-" + UUID.randomUUID();
  final Map<String, Object> action;
  private final Observation before;
  private final long start = System.nanoTime();

  /** What the call waited for its environment before the action, in ns; part of its duration. */
  private final long environmentWait;

  /** When the call began: the action's start, less the environment's wait. */
  private final Instant startedAt;

  TransitionRecording(
      DefaultBrowserRuntime runtime,
      Environment environment,
      Map<String, Object> action,
      Observation before,
      long environmentWait) {
    this.runtime = runtime;
    this.environment = environment;
    this.action = action;
    this.before = before;
    this.environmentWait = environmentWait;
    this.startedAt = Instant.now().minusNanos(environmentWait);
  }

  /** Records how the action ended; {@code acted} is when the action itself was over. */
  Transition end(Transition.Outcome outcome, Observation after, long acted, ErrorCode code) {
    return end(outcome, after, acted, code, java.util.List.of());
  }

  /** The same, with the files the action downloaded (for the recording: name, type, size). */
  Transition end(
      Transition.Outcome outcome,
      Observation after,
      long acted,
      ErrorCode code,
      java.util.List<dev.periscope.api.browser.spi.DownloadedFile> files) {
    Transition t =
        new Transition(
            id,
            environment.sessionId.value(),
            environment.id,
            environment.provider.id(),
            environment.generation,
            action,
            outcome,
            before == null ? null : before.id(),
            after,
            startedAt,
            Instant.now(),
            metrics(start, acted, System.nanoTime(), environmentWait, after),
            code);
    runtime.recordTransition(t, before, environment.placement());
    runtime.recorder().after(environment, t, after, files, FRAME_TIMEOUT_MS);
    return t;
  }

  /**
   * The most a recording's frame may take: a page that cannot be photographed by then gives none.
   */
  private static final long FRAME_TIMEOUT_MS = 5_000;

  private static Transition.Metrics metrics(
      long start, long acted, long done, long environmentWait, Observation after) {
    return new Transition.Metrics(
        (done - start + environmentWait) / 1_000_000,
        (acted - start) / 1_000_000,
        (done - acted) / 1_000_000,
        after == null ? 0 : after.text().length(),
        after == null ? 0 : after.elements().size(),
        after != null && after.textTruncated(),
        after != null && after.elementsTruncated(),
        environmentWait / 1_000_000);
  }
}
