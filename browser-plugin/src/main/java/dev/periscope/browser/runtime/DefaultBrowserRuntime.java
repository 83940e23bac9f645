package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserEnvironment;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserProvider;
import dev.periscope.api.browser.BrowserRuntime;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.Requirements;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The runtime: providers, owner slots and leases. An owner slot is keyed by the owner object's identity and
 * holds one environment; the first acquire opens it and concurrent acquires by the same owner wait for that same
 * open (single flight), each able to cancel only its own wait. The last lease's release closes the environment.
 */
public final class DefaultBrowserRuntime implements BrowserRuntime, AutoCloseable {
  private final ProviderRegistry registry = new ProviderRegistry();
  private final Optional<String> configuredProvider;
  private final Map<Object, Slot> slots = new IdentityHashMap<>();
  private boolean closed;

  public DefaultBrowserRuntime(Optional<String> configuredProvider) {
    this.configuredProvider = configuredProvider;
  }

  @Override
  public AutoCloseable registerProvider(BrowserProvider provider) {
    registry.add(provider);
    return () -> unregister(provider);
  }

  private void unregister(BrowserProvider provider) {
    if (!registry.remove(provider)) {
      return;
    }
    List<Slot> opened = new ArrayList<>();
    synchronized (this) {
      slots.values().removeIf(slot -> {
        if (slot.provider == provider) {
          opened.add(slot);
          return true;
        }
        return false;
      });
    }
    RuntimeException failure = closeAll(opened);
    try {
      provider.dispose();
    } catch (RuntimeException e) {
      failure = addFailure(failure, e);
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public BrowserLease acquire(
      Object owner, BrowserSessionId sessionId, Persistence persistence, Requirements requirements,
      Cancellation cancellation) {
    cancellation.throwIfCancelled();
    Slot slot;
    boolean opener = false;
    synchronized (this) {
      if (closed) {
        throw new BrowserException(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "the browser runtime is closed");
      }
      slot = slots.get(owner);
      if (slot == null) {
        BrowserProvider provider = registry.select(requirements, configuredProvider);
        slot = new Slot(owner, sessionId, persistence, provider);
        slots.put(owner, slot);
        opener = true;
      } else if (!slot.sessionId.equals(sessionId) || slot.persistence != persistence
          || requirements.providerId().filter(id -> !id.equals(slots.get(owner).provider.id())).isPresent()) {
        throw new BrowserException(ErrorCode.BROWSER_OWNER_CONFLICT,
            "this owner already holds browser session " + slot.sessionId + " (" + slot.persistence.name().toLowerCase()
                + ", provider " + slot.provider.id() + ")");
      }
      slot.waiters++;
    }
    if (opener) {
      open(slot, cancellation);
    }
    Environment environment = await(slot, cancellation);
    synchronized (this) {
      slot.waiters--;
      slot.leases++;
    }
    return new Lease(this, slot, environment);
  }

  private void open(Slot slot, Cancellation cancellation) {
    try {
      BrowserEnvironment env = slot.provider.open(
          new BrowserProvider.OpenRequest(slot.sessionId, slot.persistence), cancellation);
      Environment environment = new Environment(slot.sessionId, slot.provider, env, 1);
      boolean keep;
      synchronized (this) {
        keep = slots.get(slot.owner) == slot && registry.contains(slot.provider);
      }
      if (!keep) {
        environment.close();
        slot.opening.completeExceptionally(
            new BrowserException(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "the browser provider was withdrawn while opening"));
        return;
      }
      slot.opening.complete(environment);
    } catch (RuntimeException e) {
      synchronized (this) {
        slots.remove(slot.owner, slot);
      }
      slot.opening.completeExceptionally(e);
    }
  }

  private Environment await(Slot slot, Cancellation cancellation) {
    CompletableFuture<Environment> mine = new CompletableFuture<>();
    slot.opening.whenComplete((env, error) -> {
      if (error != null) {
        mine.completeExceptionally(error);
      } else {
        mine.complete(env);
      }
    });
    try (AutoCloseable ignored = cancellation.onCancel(() -> mine.cancel(false))) {
      return mine.get();
    } catch (CancellationException e) {
      synchronized (this) {
        slot.waiters--;
      }
      releaseIfUnused(slot);
      throw e;
    } catch (ExecutionException e) {
      synchronized (this) {
        slot.waiters--;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, "opening the browser failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while waiting for the browser");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  void release(Slot slot) {
    synchronized (this) {
      slot.leases--;
    }
    releaseIfUnused(slot);
  }

  private void releaseIfUnused(Slot slot) {
    boolean last;
    synchronized (this) {
      last = slot.leases == 0 && slot.waiters == 0 && slots.get(slot.owner) == slot;
      if (last) {
        slots.remove(slot.owner);
      }
    }
    if (last) {
      RuntimeException failure = closeAll(List.of(slot));
      if (failure != null) {
        throw failure;
      }
    }
  }

  private static RuntimeException closeAll(List<Slot> toClose) {
    RuntimeException failure = null;
    for (Slot slot : toClose) {
      Environment env = slot.opening.getNow(null);
      if (env == null) {
        slot.opening.thenAccept(Environment::close);
        continue;
      }
      try {
        env.close();
      } catch (RuntimeException e) {
        failure = addFailure(failure, e);
      }
    }
    return failure;
  }

  private static RuntimeException addFailure(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  /** Closes every environment. Providers stay registered until their registrations close. */
  @Override
  public void close() {
    List<Slot> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(slots.values());
      slots.clear();
    }
    RuntimeException failure = closeAll(all);
    if (failure != null) {
      throw failure;
    }
  }

  /** What the runtime holds for one owner. */
  static final class Slot {
    final Object owner;
    final BrowserSessionId sessionId;
    final Persistence persistence;
    final BrowserProvider provider;
    final CompletableFuture<Environment> opening = new CompletableFuture<>();
    int waiters;
    int leases;

    Slot(Object owner, BrowserSessionId sessionId, Persistence persistence, BrowserProvider provider) {
      this.owner = owner;
      this.sessionId = sessionId;
      this.persistence = persistence;
      this.provider = provider;
    }
  }
}
