package dev.periscope.api.browser;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.spi.BrowserProvider;
import java.util.List;

/**
 * The only owner of environment identity and leases. An owner is an object, compared by identity:
 * concurrent acquires by one owner share one open, and compatible acquires get separate leases over
 * one environment. Provider registration is an effect: closing it withdraws the provider and closes
 * every environment it opened.
 *
 * <p>Threading: thread-safe. Owners acquire and release from any thread; a provider registration
 * may be closed from any thread while calls run.
 */
public interface BrowserRuntime {
  BrowserLease acquire(
      Object owner,
      BrowserSessionId sessionId,
      Persistence persistence,
      Requirements requirements,
      Cancellation cancellation);

  AutoCloseable registerProvider(BrowserProvider provider);

  /** The most recent transitions kept in memory, oldest first. */
  List<Transition> transitions();

  /**
   * The audit trail of one browser session, oldest first: the durable index merged with the
   * transitions in memory, so a record the index could not keep is still listed while this process
   * runs.
   */
  List<TransitionRecord> transitions(BrowserSessionId sessionId);

  /**
   * Discards a browser session: deletes its checkpoint (metadata first, then the payload). The
   * caller releases its leases first; the session's next environment starts fresh.
   */
  void discard(BrowserSessionId sessionId);
}
