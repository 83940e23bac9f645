package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.spi.BrowserProvider;
import java.util.concurrent.CompletableFuture;

/**
 * What the runtime holds for one owner: the browser session it is bound to, the provider chosen for
 * it, the environment being opened or open, and how many callers wait for it or hold a lease on it.
 * The counts and {@code shuttingDown} are guarded by the runtime's lock.
 */
final class Slot {
  final Object owner;
  final BrowserSessionId sessionId;
  final Persistence persistence;
  final BrowserProvider provider;
  final CompletableFuture<Environment> opening = new CompletableFuture<>();
  final Cancellation openCancellation = Cancellation.none();

  /**
   * The secrets the checkpoint the environment was restored from named (set by the opener as it
   * restores; none for a fresh open): the restored pages' stored data may hold them.
   */
  volatile java.util.List<CheckpointIndex.FilledSecret> restoredSecrets = java.util.List.of();

  int waiters;
  int leases;
  boolean shuttingDown;

  Slot(
      Object owner, BrowserSessionId sessionId, Persistence persistence, BrowserProvider provider) {
    this.owner = owner;
    this.sessionId = sessionId;
    this.persistence = persistence;
    this.provider = provider;
  }
}
