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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The runtime: providers, owner slots and leases. An owner slot is keyed by the owner object's identity and
 * holds one environment; the first acquire opens it and concurrent acquires by the same owner wait for that same
 * open (single flight), each able to cancel only its own wait. The last lease's release closes the environment.
 */
public final class DefaultBrowserRuntime implements BrowserRuntime, AutoCloseable {
  private static final AtomicInteger OPENER_THREADS = new AtomicInteger();
  private final ProviderRegistry registry = new ProviderRegistry();
  private final Optional<String> configuredProvider;
  private final Map<Object, Slot> slots = new IdentityHashMap<>();
  private final ExecutorService openers = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "periscope-open-" + OPENER_THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  });
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
      Slot existing = slots.get(owner);
      slot = existing;
      if (slot == null) {
        BrowserProvider provider = registry.select(requirements, configuredProvider);
        slot = new Slot(owner, sessionId, persistence, provider);
        slots.put(owner, slot);
        opener = true;
      } else if (!slot.sessionId.equals(sessionId) || slot.persistence != persistence
          || requirements.providerId().filter(id -> !id.equals(existing.provider.id())).isPresent()) {
        throw new BrowserException(ErrorCode.BROWSER_OWNER_CONFLICT,
            "this owner already holds browser session " + slot.sessionId + " (" + slot.persistence.name().toLowerCase()
                + ", provider " + slot.provider.id() + ")");
      }
      slot.waiters++;
    }
    if (opener) {
      Slot opening = slot;
      openers.execute(() -> open(opening));
    }
    Environment environment;
    try {
      environment = await(slot, cancellation);
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        slot.waiters--;
      }
      releaseIfUnused(slot);
      throw e;
    }
    synchronized (this) {
      slot.waiters--;
      slot.leases++;
    }
    return new Lease(this, slot, environment);
  }

  /**
   * Opens the slot's environment on a runtime thread, under the slot's own cancellation: no caller's cancellation
   * reaches it, and it is cancelled only when no caller waits for it any more.
   */
  private void open(Slot slot) {
    try {
      BrowserEnvironment env = slot.provider.open(
          new BrowserProvider.OpenRequest(slot.sessionId, slot.persistence), slot.openCancellation);
      Environment environment = new Environment(slot.sessionId, slot.provider, env, 1);
      boolean keep;
      synchronized (this) {
        keep = slots.get(slot.owner) == slot && registry.contains(slot.provider);
      }
      if (!keep) {
        environment.close();
        slot.opening.completeExceptionally(new BrowserException(ErrorCode.BROWSER_ENVIRONMENT_CLOSED,
            "nobody waits for this browser any more, or its provider was withdrawn while it opened"));
        return;
      }
      // If the last waiter leaves after the check above, closeAll() closes the environment once it completes.
      slot.opening.complete(environment);
    } catch (Throwable e) {
      synchronized (this) {
        slots.remove(slot.owner, slot);
      }
      slot.opening.completeExceptionally(e);
    }
  }

  /** Waits for the shared open; the caller's cancellation ends only this caller's wait. */
  private static Environment await(Slot slot, Cancellation cancellation) {
    CompletableFuture<Environment> mine = new CompletableFuture<>();
    slot.opening.whenComplete((env, error) -> {
      if (error != null) {
        mine.completeExceptionally(error);
      } else {
        mine.complete(env);
      }
    });
    AutoCloseable registration = cancellation.onCancel(() -> mine.cancel(false));
    try {
      return mine.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, "opening the browser failed: " + e.getCause(),
          e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while waiting for the browser");
    } finally {
      try {
        registration.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
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
      slot.openCancellation.cancel();
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
    all.forEach(slot -> slot.openCancellation.cancel());
    RuntimeException failure = closeAll(all);
    openers.shutdown();
    try {
      if (!openers.awaitTermination(30, TimeUnit.SECONDS)) {
        failure = addFailure(failure, new IllegalStateException("a browser open did not finish within 30 s"));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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
    final Cancellation openCancellation = Cancellation.none();
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
