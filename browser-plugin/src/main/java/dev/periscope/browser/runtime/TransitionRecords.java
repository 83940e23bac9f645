package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.browser.TransitionRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's transitions: the most recent ones in memory (bounded), each also appended in
 * compact form to the durable index. An index failure only warns, and listing a session merges the
 * index with memory by id, so a record the index did not keep is still listed while this process
 * runs.
 */
final class TransitionRecords {
  private static final Logger LOG = LoggerFactory.getLogger(TransitionRecords.class);

  private record Kept(Transition transition, TransitionRecord record) {}

  private final ArrayDeque<Kept> recent = new ArrayDeque<>();
  private final int limit;
  private final TransitionLog log;

  TransitionRecords(int limit, TransitionLog log) {
    this.limit = limit;
    this.log = log;
  }

  /** Records {@code t} of an environment whose browser ran at {@code placement} (null: here). */
  void add(Transition t, Observation before, String placement) {
    TransitionRecord record =
        new TransitionRecord(
            t.id(),
            t.sessionId(),
            t.environmentId(),
            t.providerId(),
            t.generation(),
            String.valueOf(t.action().get("kind")),
            t.outcome(),
            TransitionRecord.Evidence.of(before),
            TransitionRecord.Evidence.of(t.after()),
            t.startedAt(),
            t.finishedAt(),
            t.metrics(),
            t.error(),
            t.action().get("cause") instanceof String cause ? cause : null,
            placement);
    LOG.debug(
        "browser session {} gen {}: {} {} {}{}",
        t.sessionId(),
        t.generation(),
        // The kind only: the action's values are the model's, and may be what the log keeps no copy
        // of.
        t.action().get("kind"),
        t.outcome(),
        t.after() == null ? "" : t.after().url(),
        t.error() == null ? "" : " " + t.error());
    synchronized (recent) {
      recent.addLast(new Kept(t, record));
      while (recent.size() > limit) {
        recent.removeFirst();
      }
    }
    try {
      log.append(record);
    } catch (RuntimeException e) {
      LOG.warn(
          "transition {} of browser session {} was not written to the transitions index: {}",
          t.id(),
          t.sessionId(),
          e.getMessage());
    }
  }

  List<Transition> recent() {
    synchronized (recent) {
      return recent.stream().map(Kept::transition).toList();
    }
  }

  List<TransitionRecord> of(BrowserSessionId sessionId) {
    Map<String, TransitionRecord> merged = new LinkedHashMap<>();
    try {
      log.list(sessionId, limit * 10).forEach(r -> merged.put(r.id(), r));
    } catch (RuntimeException e) {
      LOG.warn("the transitions index could not be read: {}", e.getMessage());
    }
    synchronized (recent) {
      recent.stream()
          .map(Kept::record)
          .filter(r -> r.sessionId().equals(sessionId.value()))
          .forEach(r -> merged.put(r.id(), r));
    }
    List<TransitionRecord> all = new ArrayList<>(merged.values());
    all.sort(Comparator.comparing(TransitionRecord::startedAt));
    return all;
  }

  /**
   * The journal's {@code attach} event of an environment that works in a browser someone else runs,
   * and, once it closes, its {@code detach}: where that browser is, and how long each took.
   */
  void journalAttachment(Environment environment, java.time.Instant startedAt, long startNanos) {
    String where = environment.placement() == null ? "a running browser" : environment.placement();
    long ms = (System.nanoTime() - startNanos) / 1_000_000;
    add(
        environment.event("attach", where, Transition.Outcome.SUCCEEDED, null, null, startedAt, ms),
        null,
        environment.placement());
    environment.afterClose(
        failure ->
            add(
                environment.event(
                    "detach",
                    failure == null
                        ? where
                        : where
                            + ": the close failed: "
                            + firstLine(
                                failure.getMessage() == null
                                    ? failure.toString()
                                    : failure.getMessage()),
                    failure == null ? Transition.Outcome.SUCCEEDED : Transition.Outcome.FAILED,
                    null,
                    null,
                    java.time.Instant.now(),
                    0),
                null,
                environment.placement()));
  }

  /** A failure's message as the journal keeps it: its first line, at most 300 characters. */
  private static String firstLine(String message) {
    String line = String.valueOf(message).lines().findFirst().orElse("");
    return line.length() <= 300 ? line : line.substring(0, 300) + "...";
  }
}
