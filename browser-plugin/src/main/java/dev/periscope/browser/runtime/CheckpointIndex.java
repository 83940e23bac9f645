package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.CheckpointRef;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The newest checkpoint of each browser session: which provider build wrote it, its payload ref, and the
 * generation of the environment it came from. Kept in memory here; a durable index replaces it.
 */
public class CheckpointIndex {
  /** One session's checkpoint. */
  public record Entry(BrowserSessionId sessionId, CheckpointRef checkpoint, int generation) {}

  private final Map<BrowserSessionId, Entry> entries = new ConcurrentHashMap<>();

  public Optional<Entry> find(BrowserSessionId sessionId) {
    return Optional.ofNullable(entries.get(sessionId));
  }

  /** Records a new checkpoint and returns the one it replaced, whose payload the caller deletes. */
  public Optional<Entry> put(Entry entry) {
    return Optional.ofNullable(entries.put(entry.sessionId(), entry));
  }
}
