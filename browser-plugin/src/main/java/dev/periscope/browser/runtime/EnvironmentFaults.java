package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.browser.spi.BrowserProvider;
import dev.periscope.api.browser.spi.EnvironmentFault;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the runtime does with an environment a fault ended: the operator hears of it in the log, the
 * audit trail gets a {@code fault} transition, its browser is shut down at once (not when its last
 * lease goes), and the loss is kept for the session's next environment, which records a {@code
 * recover} transition and, when no call told the model yet, tells it.
 */
final class EnvironmentFaults {
  private static final Logger LOG = LoggerFactory.getLogger(EnvironmentFaults.class);

  /**
   * How many sessions' losses are kept at most: the oldest go, so sessions that never come back
   * cannot fill it.
   */
  private static final int KEPT = 1_000;

  private final Map<BrowserSessionId, LostEnvironment> lost =
      Collections.synchronizedMap(
          new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(
                Map.Entry<BrowserSessionId, LostEnvironment> eldest) {
              return size() > KEPT;
            }
          });

  /** The closes of faulted environments still running, with the provider of each. */
  private final Map<CompletableFuture<Void>, BrowserProvider> closing = new ConcurrentHashMap<>();

  private final TransitionRecords transitions;
  private final Executor closer;
  private final long cleanupTimeoutMs;

  /** Closing a lost environment runs on {@code closer}; it may take {@code cleanupTimeoutMs}. */
  EnvironmentFaults(TransitionRecords transitions, Executor closer, long cleanupTimeoutMs) {
    this.transitions = transitions;
    this.closer = closer;
    this.cleanupTimeoutMs = cleanupTimeoutMs;
  }

  /**
   * Called by the environment, on whatever thread saw the fault, just before it is aborted; never
   * blocks.
   */
  void faulted(Environment environment, LostEnvironment fault) {
    lost.put(environment.sessionId, fault);
    if (fault.fault.cause() == EnvironmentFault.Cause.RETIRING) {
      LOG.info(
          "browser session {}: environment {} checkpointed and closed because {}; the next call"
              + " opens {}",
          environment.sessionId,
          environment.id,
          fault.fault.detail(),
          fault.next());
    } else {
      LOG.warn(
          "browser session {}: environment {} ended by a fault ({}): {}; the next call opens {}",
          environment.sessionId,
          environment.id,
          fault.fault.cause().id(),
          fault.fault.detail(),
          fault.next());
    }
    CompletableFuture<Void> closed = new CompletableFuture<>();
    closing.put(closed, environment.provider);
    closed.whenComplete((done, failure) -> closing.remove(closed));
    try {
      closer.execute(
          () -> {
            try {
              record(environment, fault);
              close(environment);
            } finally {
              closed.complete(null);
            }
          });
    } catch (RejectedExecutionException runtimeClosing) {
      close(environment);
      closed.complete(null);
    }
  }

  /** The audit trail's {@code fault} transition. */
  private void record(Environment environment, LostEnvironment fault) {
    Refs latest = environment.latest();
    transitions.add(
        new Transition(
            "transition-" + UUID.randomUUID(),
            environment.sessionId.value(),
            environment.id,
            environment.provider.id(),
            environment.generation,
            Map.of("kind", "fault", "cause", fault.fault.cause().id()),
            Transition.Outcome.FAILED,
            fault.observationId,
            null,
            fault.at,
            fault.at,
            new Transition.Metrics(0, 0, 0, 0, 0, false, false),
            fault.fault.cause().code()),
        latest == null ? null : latest.observation(),
        environment.placement());
  }

  /**
   * Waits up to {@code timeoutMs} until every environment of {@code provider} that a fault ended is
   * closed, so the provider can be disposed of after them; a wait that runs out is the failure
   * returned, else null.
   */
  RuntimeException awaitClosed(BrowserProvider provider, long timeoutMs) {
    CompletableFuture<?>[] pending =
        closing.entrySet().stream()
            .filter(e -> e.getValue() == provider)
            .map(Map.Entry::getKey)
            .toArray(CompletableFuture<?>[]::new);
    try {
      CompletableFuture.allOf(pending).get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return new IllegalStateException(
          "environments of provider "
              + provider.id()
              + " that a fault ended did not close within "
              + timeoutMs
              + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // close() logs its own failures and completes normally
    }
    return null;
  }

  private void close(Environment environment) {
    try {
      environment.shutdown(cleanupTimeoutMs, timeLeft -> {});
    } catch (RuntimeException e) {
      LOG.warn(
          "browser session {}: closing the environment a fault ended failed: {}",
          environment.sessionId,
          e.toString());
    }
  }

  /**
   * A new environment of the session opened: if a fault ended the one before, the audit trail says
   * the session goes on, and the new one tells the model of the loss unless a call already did.
   */
  void opened(Environment environment, Instant startedAt, long startNanos) {
    LostEnvironment predecessor = lost.remove(environment.sessionId);
    if (predecessor == null) {
      return;
    }
    if (!predecessor.reported()) {
      environment.inherit(predecessor);
    }
    long ms = (System.nanoTime() - startNanos) / 1_000_000;
    transitions.add(
        new Transition(
            "transition-" + UUID.randomUUID(),
            environment.sessionId.value(),
            environment.id,
            environment.provider.id(),
            environment.generation,
            Map.of(
                "kind",
                "recover",
                "cause",
                predecessor.fault.cause().id(),
                "from_environment",
                predecessor.environmentId),
            Transition.Outcome.SUCCEEDED,
            null,
            null,
            startedAt,
            Instant.now(),
            new Transition.Metrics(ms, ms, 0, 0, 0, false, false),
            null),
        null,
        environment.placement());
  }

  /** The session was discarded: its loss is nothing to tell any more. */
  void forget(BrowserSessionId sessionId) {
    lost.remove(sessionId);
  }
}
