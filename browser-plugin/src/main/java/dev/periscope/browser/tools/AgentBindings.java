package dev.periscope.browser.tools;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserRuntime;
import dev.periscope.api.browser.Requirements;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.store.AgentSessionStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One lease per host agent session: the binding is the lease's owner, so two agents never share an
 * environment, and ending an agent session releases its lease.
 */
final class AgentBindings implements AutoCloseable {
  private final BrowserRuntime runtime;
  private final AgentSessionStore sessions;
  private final BrowserSettings settings;
  private final Map<String, Binding> bindings = new HashMap<>();

  AgentBindings(BrowserRuntime runtime, AgentSessionStore sessions, BrowserSettings settings) {
    this.runtime = runtime;
    this.sessions = sessions;
    this.settings = settings;
  }

  /** The agent session's lease, acquiring it on first use. */
  BrowserLease lease(String agentSessionId, Cancellation cancellation) {
    while (true) {
      Binding binding;
      synchronized (this) {
        binding = bindings.computeIfAbsent(agentSessionId, id -> new Binding());
      }
      synchronized (binding) {
        if (binding.ended) {
          // The session ended between the lookup and here: its binding must not acquire again.
          continue;
        }
        if (binding.lease == null) {
          binding.lease = runtime.acquire(binding, sessions.browserSessionFor(agentSessionId),
              settings.persistence(), new Requirements(settings.provider(), java.util.Set.of()), cancellation);
        }
        return binding.lease;
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
    RuntimeException failure = null;
    for (Binding b : all) {
      try {
        b.release();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** The owner object of one agent session's lease. */
  private static final class Binding {
    private BrowserLease lease;
    private boolean ended;

    synchronized void release() {
      ended = true;
      if (lease != null) {
        BrowserLease l = lease;
        lease = null;
        l.close();
      }
    }
  }
}
