package dev.periscope.api.browser;

import dev.periscope.api.Cancellation;
import java.util.List;

/**
 * The only owner of environment identity and leases. An owner is an object, compared by identity: concurrent
 * acquires by one owner share one open, and compatible acquires get separate leases over one environment.
 * Provider registration is an effect: closing it withdraws the provider and closes every environment it opened.
 */
public interface BrowserRuntime {
  BrowserLease acquire(
      Object owner, BrowserSessionId sessionId, Persistence persistence, Requirements requirements,
      Cancellation cancellation);

  AutoCloseable registerProvider(BrowserProvider provider);

  /** The most recent transitions kept in memory, oldest first. */
  List<Transition> transitions();
}
