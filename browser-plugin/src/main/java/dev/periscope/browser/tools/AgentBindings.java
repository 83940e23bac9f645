package dev.periscope.browser.tools;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserRuntime;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.Requirements;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.browser.Cleanup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * One lease per host agent session: the binding is the lease's owner, so two agents never share an
 * environment. A tool call's cancellation ends only its own wait for the lease; a call cancelled
 * while its operation ran leaves the lease unusable, and the binding releases it so the next call
 * acquires a fresh environment. Ending an agent session releases its lease.
 */
final class AgentBindings implements AutoCloseable {
  private final BrowserRuntime runtime;
  private final Function<String, BrowserSessionId> sessions;
  private final ToolSettings settings;
  private final Map<String, Binding> bindings = new HashMap<>();

  /** {@code sessions} maps a host agent session to its durable browser session. */
  AgentBindings(
      BrowserRuntime runtime, Function<String, BrowserSessionId> sessions, ToolSettings settings) {
    this.runtime = runtime;
    this.sessions = sessions;
    this.settings = settings;
  }

  /**
   * Runs an operation on the agent session's lease, acquiring it first when needed. An operation
   * that did nothing because its browser was gone ({@link BrowserException#rerunnable()}: discarded
   * before the operation began, or found dead by a call that only reads the page or opens a URL)
   * runs once more on a fresh lease, so a call after a crash does not fail merely because the crash
   * came first.
   */
  <T> T run(String agentSessionId, Cancellation cancellation, Function<BrowserLease, T> operation) {
    try {
      return runOnce(agentSessionId, cancellation, operation);
    } catch (BrowserException e) {
      if (!e.rerunnable() || cancellation.isCancelled()) {
        throw e;
      }
      return runOnce(agentSessionId, cancellation, operation);
    }
  }

  private <T> T runOnce(
      String agentSessionId, Cancellation cancellation, Function<BrowserLease, T> operation) {
    Binding binding;
    BrowserLease lease;
    while (true) {
      synchronized (this) {
        binding = bindings.computeIfAbsent(agentSessionId, id -> new Binding());
      }
      binding.lock(cancellation);
      try {
        if (binding.ended) {
          // The session ended between the lookup and here: its binding must not acquire again.
          continue;
        }
        if (binding.lease != null && !binding.lease.usable()) {
          // Closed under us (its provider withdrawn, or aborted by another call): start afresh.
          binding.lease.close();
          binding.lease = null;
        }
        if (binding.lease == null) {
          binding.lease =
              binding.acquire(runtime, sessions.apply(agentSessionId), settings, cancellation);
        }
        lease = binding.lease;
        break;
      } finally {
        binding.unlock();
      }
    }
    try {
      return operation.apply(lease);
    } finally {
      if (!lease.usable()) {
        binding.discard(lease);
      }
    }
  }

  /** Releases the agent session's lease, if it holds one. */
  void end(String agentSessionId) {
    Binding binding;
    synchronized (this) {
      binding = bindings.remove(agentSessionId);
    }
    if (binding != null) {
      binding.release();
    }
  }

  @Override
  public void close() {
    List<Binding> all;
    synchronized (this) {
      all = new ArrayList<>(bindings.values());
      bindings.clear();
    }
    Cleanup cleanup = new Cleanup();
    all.forEach(b -> cleanup.run(b::release));
    cleanup.done();
  }

  /** The owner object of one agent session's lease. */
  private static final class Binding {
    /** Held while a call gets the lease; a call waiting for it can still be cancelled. */
    private final ReentrantLock acquiring = new ReentrantLock(true);

    private volatile BrowserLease lease;
    private volatile boolean ended;

    void lock(Cancellation cancellation) {
      try {
        while (!acquiring.tryLock(20, TimeUnit.MILLISECONDS)) {
          cancellation.throwIfCancelled();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CancellationException("interrupted while waiting for the browser");
      }
    }

    void unlock() {
      acquiring.unlock();
    }

    /** Cancelled when the agent session ends: an acquire still in progress for it stops. */
    private final Cancellation disposal = Cancellation.none();

    /** Acquires for the call, stopping when either the call or the agent session is cancelled. */
    BrowserLease acquire(
        BrowserRuntime runtime,
        BrowserSessionId sessionId,
        ToolSettings settings,
        Cancellation call) {
      Cancellation either = Cancellation.none();
      try (Cancellation.Registration byCall = call.onCancel(either::cancel);
          Cancellation.Registration byDisposal = disposal.onCancel(either::cancel)) {
        Requirements requirements =
            new Requirements(settings.provider(), Set.of(Capability.SCREENSHOT));
        try {
          return runtime.acquire(this, sessionId, settings.persistence(), requirements, either);
        } catch (BrowserException e) {
          // Resuming is the default, not a demand: a provider that keeps no checkpoints still
          // serves, ephemerally.
          // A project that asked for resume explicitly gets the refusal.
          if (e.code() != ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED
              || settings.persistenceConfigured()
              || settings.persistence() != Persistence.RESUME) {
            throw e;
          }
          return runtime.acquire(this, sessionId, Persistence.EPHEMERAL, requirements, either);
        }
      }
    }

    /**
     * Drops an unusable lease, releasing it before another call of the session can look for one.
     */
    void discard(BrowserLease unusable) {
      acquiring.lock();
      try {
        if (lease == unusable) {
          lease = null;
          unusable.close();
        }
      } finally {
        acquiring.unlock();
      }
    }

    void release() {
      disposal.cancel();
      acquiring.lock();
      try {
        ended = true;
        if (lease != null) {
          BrowserLease held = lease;
          lease = null;
          held.close();
        }
      } finally {
        acquiring.unlock();
      }
    }
  }
}
