package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.api.browser.spi.BrowserProvider;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.api.browser.spi.CheckpointMissingException;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.api.browser.spi.CheckpointingEnvironment;
import dev.periscope.api.browser.spi.CheckpointingProvider;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens environments and saves them. A resuming session is restored from its newest checkpoint,
 * through the provider and provider build that wrote it, after any earlier environment of the
 * session has finished closing; a payload found missing drops the index entry and opens fresh.
 * Checkpoint work for one session is serialized across owners in arrival order: a payload is
 * written, then its metadata committed (a metadata failure deletes the new payload), then the
 * replaced payload deleted before the next checkpoint of the session may begin.
 */
final class EnvironmentOpener {
  private static final Logger LOG = LoggerFactory.getLogger(EnvironmentOpener.class);

  private final CheckpointIndex checkpoints;
  private final SessionClosings closings;
  private final RuntimeSettings settings;
  private final Watchdog watchdog;

  /** The secrets that have gone into each session's pages, as this process knows them. */
  private final Function<BrowserSessionId, java.util.List<CheckpointIndex.FilledSecret>> filledIn;

  /**
   * One fair lock per session: a waiter keeps its place in line even when its caller was cancelled.
   */
  private final Map<BrowserSessionId, ReentrantLock> sessionLocks = new ConcurrentHashMap<>();

  EnvironmentOpener(
      CheckpointIndex checkpoints,
      SessionClosings closings,
      RuntimeSettings settings,
      Watchdog watchdog,
      Function<BrowserSessionId, java.util.List<CheckpointIndex.FilledSecret>> filledIn) {
    this.checkpoints = checkpoints;
    this.closings = closings;
    this.settings = settings;
    this.watchdog = watchdog;
    this.filledIn = filledIn;
  }

  /** Opens the slot's environment, restoring a resuming session from its newest checkpoint. */
  Environment open(Slot slot) {
    BrowserProvider provider = slot.provider;
    BrowserProvider.OpenRequest request =
        new BrowserProvider.OpenRequest(slot.sessionId, slot.persistence, settings.environment());
    closings.await(slot.sessionId, settings.cleanupTimeoutMs());
    Optional<CheckpointIndex.Entry> saved =
        slot.persistence == Persistence.RESUME
            ? checkpoints.find(slot.sessionId)
            : Optional.empty();
    BrowserEnvironment env = null;
    int generation = saved.map(s -> s.generation() + 1).orElse(1);
    if (saved.isPresent()) {
      CheckpointRef checkpoint = saved.get().checkpoint();
      refuseForeign(slot.sessionId, checkpoint, provider);
      try {
        env =
            ((CheckpointingProvider) provider).restore(request, checkpoint, slot.openCancellation);
        slot.restoredSecrets = saved.get().secrets();
      } catch (CheckpointMissingException e) {
        LOG.warn(
            "browser session {}: its checkpoint payload is gone ({}); starting fresh",
            slot.sessionId,
            e.getMessage());
        // Only the entry whose payload is gone: a newer checkpoint written meanwhile stays.
        serialized(
            slot.sessionId, () -> checkpoints.removeIfNames(slot.sessionId, checkpoint.ref()));
      }
    }
    if (env == null) {
      env = provider.open(request, slot.openCancellation);
    }
    if (provider.capabilities().contains(Capability.CHECKPOINT)
        && !(env instanceof CheckpointingEnvironment)) {
      BrowserException refused =
          new BrowserException(
              ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
              "browser provider \""
                  + provider.id()
                  + "\" opened an environment that cannot be checkpointed");
      try {
        env.close();
      } catch (RuntimeException closing) {
        refused.addSuppressed(closing);
      }
      throw refused;
    }
    boolean restores =
        slot.persistence == Persistence.RESUME && env instanceof CheckpointingEnvironment;
    return new Environment(
        slot.sessionId, provider, env, generation, restores, watchdog, settings.timeouts());
  }

  private static void refuseForeign(
      BrowserSessionId sessionId, CheckpointRef checkpoint, BrowserProvider provider) {
    if (!checkpoint.providerId().equals(provider.id())) {
      throw new BrowserException(
          ErrorCode.BROWSER_CHECKPOINT_PROVIDER_MISMATCH,
          "browser session "
              + sessionId
              + " was saved by provider \""
              + checkpoint.providerId()
              + "\", not \""
              + provider.id()
              + "\"; use browser_reset to start this session afresh");
    }
    if (checkpoint.providerVersion() != null
        && provider.version().isPresent()
        && !checkpoint.providerVersion().equals(provider.version().get())) {
      throw new BrowserException(
          ErrorCode.BROWSER_CHECKPOINT_VERSION_MISMATCH,
          "browser session "
              + sessionId
              + " was saved by "
              + checkpoint.providerVersion()
              + " and cannot be read by "
              + provider.version().get()
              + "; use browser_reset to start this session afresh");
    }
  }

  /**
   * Saves a resuming session's state, after an action or on its last release, unless its indexed
   * checkpoint already holds it, and replaces that checkpoint. Reading the state from the browser
   * is a step of at most {@code timeoutMs}. Caller holds the environment's queue.
   */
  void checkpoint(Slot slot, Environment env, long timeoutMs) {
    if (slot.persistence != Persistence.RESUME
        || !(env.delegate() instanceof CheckpointingEnvironment c)) {
      return;
    }
    CheckpointingProvider provider = (CheckpointingProvider) slot.provider;
    serialized(
        slot.sessionId,
        () -> {
          Optional<CheckpointIndex.Entry> current = checkpoints.find(slot.sessionId);
          if (current.isPresent()
              && !current.get().checkpoint().providerId().equals(provider.id())) {
            throw new BrowserException(
                ErrorCode.BROWSER_CHECKPOINT_PROVIDER_MISMATCH,
                "browser session "
                    + slot.sessionId
                    + " is checkpointed by provider \""
                    + current.get().checkpoint().providerId()
                    + "\"; provider \""
                    + provider.id()
                    + "\" may not replace it");
          }
          Optional<CheckpointRef> written =
              env.step(
                  "saving the browser state",
                  timeoutMs,
                  () -> c.checkpointIfChanged(current.map(CheckpointIndex.Entry::checkpoint)));
          if (written.isEmpty()) {
            return null;
          }
          Optional<CheckpointIndex.Entry> replaced;
          try {
            replaced =
                checkpoints.put(
                    new CheckpointIndex.Entry(
                        slot.sessionId,
                        written.get(),
                        env.generation,
                        Instant.now(),
                        carried(current, slot.sessionId)));
          } catch (RuntimeException e) {
            BrowserException failure =
                new BrowserException(
                    ErrorCode.BROWSER_CHECKPOINT_METADATA_FAILED,
                    "the checkpoint of browser session "
                        + slot.sessionId
                        + " could not be recorded: "
                        + e.getMessage(),
                    e);
            try {
              provider.destroyCheckpoint(written.get());
            } catch (RuntimeException rollback) {
              failure.addSuppressed(rollback);
            }
            throw failure;
          }
          replaced
              .filter(r -> !r.checkpoint().ref().equals(written.get().ref()))
              .ifPresent(r -> destroy(provider, r));
          return null;
        });
  }

  /**
   * The secrets a new checkpoint of {@code session} records: those its pages received in this
   * process, and those its current checkpoint recorded, which the saved data may still hold though
   * this process never held them (a password the model typed before a restart).
   */
  private java.util.List<CheckpointIndex.FilledSecret> carried(
      Optional<CheckpointIndex.Entry> current, BrowserSessionId session) {
    java.util.Set<CheckpointIndex.FilledSecret> all =
        new java.util.LinkedHashSet<>(
            current.map(CheckpointIndex.Entry::secrets).orElse(java.util.List.of()));
    all.addAll(filledIn.apply(session));
    return java.util.List.copyOf(all);
  }

  /** Deletes a session's checkpoint: metadata first, then the payload. */
  void discard(BrowserSessionId sessionId, Function<String, Optional<BrowserProvider>> providers) {
    serialized(
        sessionId,
        () -> {
          checkpoints
              .remove(sessionId)
              .ifPresent(
                  entry ->
                      providers
                          .apply(entry.checkpoint().providerId())
                          .filter(p -> p instanceof CheckpointingProvider)
                          .ifPresent(p -> destroy((CheckpointingProvider) p, entry)));
          return null;
        });
  }

  /** Applies retention; the live sessions' records stay. Returns the sessions whose it dropped. */
  java.util.List<BrowserSessionId> prune(
      Set<BrowserSessionId> live, Function<String, Optional<BrowserProvider>> providers) {
    java.util.List<BrowserSessionId> pruned = new java.util.ArrayList<>();
    for (CheckpointIndex.Entry dropped :
        checkpoints.prune(settings.checkpointTtl(), settings.maxCheckpoints(), live)) {
      pruned.add(dropped.sessionId());
      providers
          .apply(dropped.checkpoint().providerId())
          .filter(p -> p instanceof CheckpointingProvider)
          .ifPresent(p -> destroy((CheckpointingProvider) p, dropped));
    }
    return pruned;
  }

  private static void destroy(CheckpointingProvider provider, CheckpointIndex.Entry entry) {
    try {
      provider.destroyCheckpoint(entry.checkpoint());
    } catch (RuntimeException e) {
      LOG.warn(
          "could not delete the replaced checkpoint payload of browser session {}: {}",
          entry.sessionId(),
          e.getMessage());
    }
  }

  /** Runs checkpoint work of one session after all work of that session that arrived earlier. */
  private <T> T serialized(BrowserSessionId sessionId, Supplier<T> work) {
    ReentrantLock lock = sessionLocks.computeIfAbsent(sessionId, id -> new ReentrantLock(true));
    lock.lock();
    try {
      return work.get();
    } finally {
      lock.unlock();
    }
  }
}
