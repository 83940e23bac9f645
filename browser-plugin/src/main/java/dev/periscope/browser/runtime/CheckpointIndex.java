package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.spi.CheckpointRef;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The newest checkpoint of each browser session: which provider build wrote it, its payload ref,
 * the generation of the environment it came from and when it was written. {@link #inMemory()} lasts
 * as long as the process; the durable index ({@code store.RuntimeStore}) keeps it in the {@code
 * checkpoints} table.
 */
public interface CheckpointIndex {
  /**
   * One session's checkpoint, with the secrets that had gone into its pages by then: the page's
   * saved data may hold them, so a browser restored from it is guarded for them from its start.
   */
  record Entry(
      BrowserSessionId sessionId,
      CheckpointRef checkpoint,
      int generation,
      Instant createdAt,
      List<FilledSecret> secrets) {
    public Entry {
      secrets = List.copyOf(secrets);
    }

    /** An entry of a session no secret went into. */
    public Entry(
        BrowserSessionId sessionId, CheckpointRef checkpoint, int generation, Instant createdAt) {
      this(sessionId, checkpoint, generation, createdAt, List.of());
    }
  }

  /**
   * A secret that went into a session's pages: its reference (a credential's, or {@code
   * typed-password} for a password the model typed) and the origins it may go to; never its value.
   */
  record FilledSecret(String ref, List<String> origins) {
    public FilledSecret {
      origins = List.copyOf(origins);
    }
  }

  Optional<Entry> find(BrowserSessionId sessionId);

  /** Commits a new entry and returns the one it replaced, whose payload the caller deletes. */
  Optional<Entry> put(Entry entry);

  /** Removes a session's entry and returns it, so the caller can delete its payload. */
  Optional<Entry> remove(BrowserSessionId sessionId);

  List<Entry> entries();

  /**
   * Removes the session's entry only while it still names the payload {@code ref}: one that a newer
   * checkpoint replaced meanwhile is kept. Returns what it removed.
   */
  Optional<Entry> removeIfNames(BrowserSessionId sessionId, String ref);

  /**
   * Retention: removes the entries older than {@code ttl}, then the oldest until at most {@code
   * max} remain, never the entry of a session in {@code live} (its environment still owns the
   * payload; it counts toward the limit). Returns what it removed, so the caller deletes their
   * payloads.
   */
  default List<Entry> prune(Duration ttl, int max, Set<BrowserSessionId> live) {
    List<Entry> all = new ArrayList<>(entries());
    all.sort(Comparator.comparing(Entry::createdAt));
    Instant expiry = Instant.now().minus(ttl);
    int remaining = all.size();
    List<Entry> dropped = new ArrayList<>();
    for (Entry e : all) {
      boolean expired = e.createdAt().isBefore(expiry);
      if ((expired || remaining > max) && !live.contains(e.sessionId())) {
        // Only the entry seen: a checkpoint that replaced it meanwhile is the session's now.
        removeIfNames(e.sessionId(), e.checkpoint().ref()).ifPresent(dropped::add);
        remaining--;
      }
    }
    return dropped;
  }

  /** An index kept in memory only. */
  static CheckpointIndex inMemory() {
    Map<BrowserSessionId, Entry> entries = new ConcurrentHashMap<>();
    return new CheckpointIndex() {
      @Override
      public Optional<Entry> find(BrowserSessionId sessionId) {
        return Optional.ofNullable(entries.get(sessionId));
      }

      @Override
      public Optional<Entry> put(Entry entry) {
        return Optional.ofNullable(entries.put(entry.sessionId(), entry));
      }

      @Override
      public Optional<Entry> remove(BrowserSessionId sessionId) {
        return Optional.ofNullable(entries.remove(sessionId));
      }

      @Override
      public Optional<Entry> removeIfNames(BrowserSessionId sessionId, String ref) {
        Entry[] removed = new Entry[1];
        entries.computeIfPresent(
            sessionId,
            (id, e) -> {
              if (!e.checkpoint().ref().equals(ref)) {
                return e;
              }
              removed[0] = e;
              return null;
            });
        return Optional.ofNullable(removed[0]);
      }

      @Override
      public List<Entry> entries() {
        return List.copyOf(entries.values());
      }
    };
  }
}
