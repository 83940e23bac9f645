package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserRuntime;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.Requirements;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.browser.TransitionRecord;
import dev.periscope.api.browser.spi.BrowserProvider;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.api.browser.spi.CheckpointingProvider;
import dev.periscope.browser.Cleanup;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime: providers, owner slots and leases. An owner slot is keyed by the owner object's
 * identity and holds one environment; the first acquire starts its open on a runtime thread, and
 * every acquire of that owner waits for the same open (single flight), each able to cancel only its
 * own wait. When the last waiter leaves before the open finished, the open is cancelled and
 * whatever it produced is closed. The last lease's release drains the environment, checkpoints it
 * when the session resumes, and closes it.
 */
public final class DefaultBrowserRuntime implements BrowserRuntime, AutoCloseable {
  private static final AtomicInteger OPENER_THREADS = new AtomicInteger();

  private final ProviderRegistry registry = new ProviderRegistry();
  private final RuntimeSettings settings;
  private final Map<Object, Slot> slots = new IdentityHashMap<>();

  /** Aborted environments no longer handed out, waiting for their last lease's release. */
  private final Set<Slot> detached = new HashSet<>();

  private final SessionClosings closings = new SessionClosings();
  private final EnvironmentOpener opener;
  private static final Logger LOG = LoggerFactory.getLogger(DefaultBrowserRuntime.class);
  private final TransitionRecords transitions;
  private final ExecutorService openers =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "periscope-open-" + OPENER_THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
  private final ActionCheckpoints actionCheckpoints;
  private final CredentialChannel credentials;
  private final Redactions redactions = new Redactions();
  private final Watchdog watchdog = new Watchdog();
  private final EnvironmentFaults faults;
  private boolean closed;

  /**
   * A runtime with {@code settings}; what it is not given it keeps in memory ({@link
   * CheckpointIndex#inMemory()}, {@link TransitionLog#none()}) or goes without ({@link
   * CredentialChannel#none()}).
   */
  public static RuntimeBuilder builder(RuntimeSettings settings) {
    return new RuntimeBuilder(settings);
  }

  DefaultBrowserRuntime(
      RuntimeSettings settings,
      CheckpointIndex checkpoints,
      TransitionLog transitionLog,
      CredentialChannel credentials,
      java.util.Optional<dev.periscope.browser.handoff.Handoffs> handoffs,
      PageScripting scripting,
      RecordingSettings recording,
      RecordingStore recordings) {
    this.recorder = new SessionRecorder(recording, recordings, redactions);
    this.settings = settings;
    this.scripting = scripting;
    this.credentials = credentials;
    this.handoffs = handoffs;
    this.transitions = new TransitionRecords(settings.maxTransitionsInMemory(), transitionLog);
    this.opener =
        new EnvironmentOpener(
            checkpoints,
            closings,
            settings,
            watchdog,
            session -> redactions.guarding(session).map(SecretEgress::filled).orElse(List.of()));
    this.actionCheckpoints = new ActionCheckpoints(opener, this::prune);
    this.faults = new EnvironmentFaults(transitions, openers, settings.cleanupTimeoutMs());
  }

  private final SessionRecorder recorder;

  /** What records each session after each action ({@code recording}). */
  SessionRecorder recorder() {
    return recorder;
  }

  /** Waits until every frame taken so far is written to the recording store. */
  public void flushRecordings() {
    recorder.flush();
  }

  /** Where credential fills get their secrets and approval. */
  CredentialChannel credentials() {
    return credentials;
  }

  private final PageScripting scripting;

  /** Whether scripts run in pages, and who approves each. */
  PageScripting scripting() {
    return scripting;
  }

  private final java.util.Optional<dev.periscope.browser.handoff.Handoffs> handoffs;

  /** Where pages are handed to a person, when this runtime can. */
  java.util.Optional<dev.periscope.browser.handoff.Handoffs> handoffs() {
    return handoffs;
  }

  /**
   * The browser sessions this runtime runs, as the watch desk looks for them: an environment that
   * has opened, and what says it went (its slot left, or it no longer admits calls). Never through
   * an environment's queue.
   */
  public dev.periscope.browser.handoff.Watches.Sessions watchable() {
    return new dev.periscope.browser.handoff.Watches.Sessions() {
      @Override
      public java.util.Optional<dev.periscope.browser.handoff.Watches.Watchable> running(
          String id) {
        synchronized (DefaultBrowserRuntime.this) {
          for (Slot s : slots.values()) {
            if (s.sessionId.value().equals(id)
                && s.opening.isDone()
                && !s.opening.isCompletedExceptionally()) {
              Environment env = s.opening.join();
              return java.util.Optional.of(
                  new dev.periscope.browser.handoff.Watches.Watchable(
                      env.delegate(), () -> !stillRuns(s, env)));
            }
          }
        }
        return java.util.Optional.empty();
      }

      @Override
      public boolean any() {
        synchronized (DefaultBrowserRuntime.this) {
          return !slots.isEmpty();
        }
      }
    };
  }

  private synchronized boolean stillRuns(Slot slot, Environment env) {
    return slots.get(slot.owner) == slot && env.usable();
  }

  /** Writes a resuming session's checkpoint now, if its state changed. Caller holds the queue. */
  void checkpointNow(Slot slot, Environment env, long timeoutMs) {
    opener.checkpoint(slot, env, timeoutMs);
  }

  Redactions redactions() {
    return redactions;
  }

  @Override
  public AutoCloseable registerProvider(BrowserProvider provider) {
    if (provider.capabilities().contains(Capability.CHECKPOINT)
        && !(provider instanceof CheckpointingProvider)) {
      throw new BrowserException(
          ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
          "browser provider \""
              + provider.id()
              + "\" advertises checkpoints but cannot restore or destroy them");
    }
    registry.add(provider);
    // No retention here: it runs when a session's browser is released or checkpointed. A host
    // started only to answer its operator (listing sessions or checkpoints) deletes nothing.
    return () -> unregister(provider);
  }

  /**
   * Withdraws a provider: out of selection first, then its unfinished opens are cancelled and
   * settled, every environment it opened is closed, and finally the provider is disposed.
   */
  private void unregister(BrowserProvider provider) {
    if (!registry.remove(provider)) {
      return;
    }
    List<Slot> opened = new ArrayList<>();
    synchronized (this) {
      slots
          .values()
          .removeIf(
              slot -> {
                if (slot.provider == provider) {
                  opened.add(slot);
                  return true;
                }
                return false;
              });
      detached.removeIf(
          slot -> {
            if (slot.provider == provider) {
              opened.add(slot);
              return true;
            }
            return false;
          });
      opened.removeIf(slot -> slot.shuttingDown);
      opened.forEach(slot -> slot.shuttingDown = true);
    }
    opened.forEach(slot -> slot.openCancellation.cancel());
    new Cleanup()
        .add(settleOpens(opened))
        .add(shutdownAll(opened))
        .add(faults.awaitClosed(provider, settings.cleanupTimeoutMs()))
        .run(provider::dispose)
        .done();
  }

  private RuntimeException settleOpens(List<Slot> toSettle) {
    Cleanup cleanup = new Cleanup();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.cleanupTimeoutMs());
    for (Slot slot : toSettle) {
      try {
        slot.opening.get(
            Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
            TimeUnit.MILLISECONDS);
      } catch (ExecutionException | CancellationException e) {
        // a failed open left nothing to close
      } catch (TimeoutException e) {
        cleanup.add(
            new IllegalStateException(
                "an open by provider "
                    + slot.provider.id()
                    + " did not settle within "
                    + settings.cleanupTimeoutMs()
                    + " ms"));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return cleanup.failure();
  }

  @Override
  public BrowserLease acquire(
      Object owner,
      BrowserSessionId sessionId,
      Persistence persistence,
      Requirements requirements,
      Cancellation cancellation) {
    cancellation.throwIfCancelled();
    long start = System.nanoTime();
    Slot slot;
    boolean opener = false;
    synchronized (this) {
      if (closed) {
        throw new BrowserException(
            ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "the browser runtime is closed");
      }
      Slot existing = slots.get(owner);
      slot = existing;
      if (slot == null) {
        Set<Capability> needed = new HashSet<>(requirements.capabilities());
        if (persistence == Persistence.RESUME) {
          needed.add(Capability.CHECKPOINT);
        }
        BrowserProvider provider =
            registry.select(
                new Requirements(requirements.providerId(), needed),
                settings.provider(),
                settings.environment().network().mode());
        slot = new Slot(owner, sessionId, persistence, provider);
        slots.put(owner, slot);
        opener = true;
      } else if (!slot.sessionId.equals(sessionId)
          || slot.persistence != persistence
          || requirements
              .providerId()
              .filter(id -> !id.equals(existing.provider.id()))
              .isPresent()) {
        throw new BrowserException(
            ErrorCode.BROWSER_OWNER_CONFLICT,
            "this owner already holds browser session "
                + slot.sessionId
                + " ("
                + slot.persistence.name().toLowerCase()
                + ", provider "
                + slot.provider.id()
                + ")");
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
    return new Lease(this, slot, environment, System.nanoTime() - start);
  }

  /**
   * Opens (or, for a resuming session with a checkpoint, restores) the slot's environment on a
   * runtime thread, under the slot's own cancellation: no caller's cancellation reaches it, and it
   * is cancelled only when no caller waits for it any more.
   */
  private void open(Slot slot) {
    long openMs = settings.timeouts().openMs() + settings.timeouts().marginMs();
    java.util.concurrent.atomic.AtomicBoolean late =
        new java.util.concurrent.atomic.AtomicBoolean();
    Watchdog.Timer deadline =
        watchdog.after(
            openMs,
            () -> {
              late.set(true);
              slot.openCancellation.cancel();
            });
    java.time.Instant startedAt = java.time.Instant.now();
    long start = System.nanoTime();
    Environment opened = null;
    try {
      Environment environment;
      try {
        environment = opener.open(slot);
      } finally {
        deadline.close();
      }
      opened = environment;
      boolean keep;
      synchronized (this) {
        keep = slots.get(slot.owner) == slot && registry.contains(slot.provider);
      }
      if (!keep) {
        environment.shutdown(settings.cleanupTimeoutMs(), timeLeft -> {});
        slot.opening.completeExceptionally(
            new BrowserException(
                ErrorCode.BROWSER_ENVIRONMENT_CLOSED,
                "nobody waits for this browser any more, or its provider was withdrawn while it opened"));
        return;
      }
      faults.opened(environment, startedAt, start);
      RestoredSecrets.guardThenReopen(this, environment, slot.restoredSecrets);
      environment.afterClose(failure -> recorder.environmentClosed(slot.sessionId));
      if (environment.attached) {
        transitions.journalAttachment(environment, startedAt, start);
      }
      environment.watch(
          () -> detach(slot),
          faults::faulted,
          timeLeft -> opener.checkpoint(slot, environment, timeLeft));
      // If the last waiter leaves after the check above, shutdownAll() closes the environment once
      // it completes.
      slot.opening.complete(environment);
    } catch (Throwable e) {
      synchronized (this) {
        slots.remove(slot.owner, slot);
      }
      if (opened != null) {
        // Nobody will have it: it fails after it opened (guarding it, reopening its tabs).
        try {
          opened.shutdown(settings.cleanupTimeoutMs(), timeLeft -> {});
        } catch (RuntimeException closing) {
          e.addSuppressed(closing);
        }
      }
      slot.opening.completeExceptionally(
          late.get()
              ? BrowserException.rebuilt(
                  ErrorCode.BROWSER_UNRESPONSIVE,
                  "the browser did not start within " + openMs + " ms, and was stopped",
                  null,
                  e)
              : ownWords(e));
    }
  }

  /**
   * A failure of an open as the agent is told it: a provider's own {@code BrowserException}, a
   * cancellation or an {@code Error} as they are; anything else (a driver that stopped answering, a
   * provider's bug) {@code BROWSER_PROVIDER_UNAVAILABLE} with its message, rather than a failure
   * the host can only call unexpected.
   */
  private static Throwable ownWords(Throwable e) {
    if (e instanceof BrowserException
        || e instanceof CancellationException
        || !(e instanceof RuntimeException)) {
      return e;
    }
    String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    return new BrowserException(
        ErrorCode.BROWSER_PROVIDER_UNAVAILABLE,
        "the browser could not be opened: "
            + (message.isBlank() || message.equals("null")
                ? e.getClass().getSimpleName()
                : message),
        e);
  }

  /** Waits for the shared open; the caller's cancellation ends only this caller's wait. */
  private static Environment await(Slot slot, Cancellation cancellation) {
    CompletableFuture<Environment> mine = new CompletableFuture<>();
    slot.opening.whenComplete(
        (env, error) -> {
          if (error != null) {
            mine.completeExceptionally(error);
          } else {
            mine.complete(env);
          }
        });
    try (Cancellation.Registration waiting = cancellation.onCancel(() -> mine.cancel(false))) {
      return mine.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new BrowserException(
          ErrorCode.BROWSER_ACTION_FAILED,
          "opening the browser failed: " + e.getCause(),
          e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while waiting for the browser");
    }
  }

  /**
   * An aborted environment is no longer handed out: its owner's next acquire opens a fresh one,
   * while this one is shut down when its last lease is released.
   */
  private synchronized void detach(Slot slot) {
    if (slots.remove(slot.owner, slot)) {
      detached.add(slot);
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
      last =
          slot.leases == 0
              && slot.waiters == 0
              && !slot.shuttingDown
              && (slots.get(slot.owner) == slot || detached.contains(slot));
      if (last) {
        slot.shuttingDown = true;
        slots.remove(slot.owner, slot);
        detached.remove(slot);
      }
    }
    if (last) {
      slot.openCancellation.cancel();
      RuntimeException failure = shutdownAll(List.of(slot));
      prune();
      if (failure != null) {
        throw failure;
      }
    }
  }

  /**
   * Shuts each slot's environment down, now or, for one still opening, when its open completes. All
   * of them share one deadline of {@code cleanupTimeoutMs}. While a session's environment shuts
   * down, a new open of that session waits for it, so it restores the checkpoint this shutdown
   * writes.
   */
  private RuntimeException shutdownAll(List<Slot> toClose) {
    Cleanup cleanup = new Cleanup();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.cleanupTimeoutMs());
    for (Slot slot : toClose) {
      if (slot.opening.isCompletedExceptionally()) {
        continue;
      }
      Environment env = slot.opening.getNow(null);
      if (env != null && env.lost() != null) {
        continue; // a fault ended it: EnvironmentFaults closes it, and there is no state to save
      }
      if (env == null) {
        // Still opening, so nobody used it: nothing to checkpoint, and nothing a new open must wait
        // for.
        slot.opening.thenAccept(e -> e.shutdown(settings.cleanupTimeoutMs(), timeLeft -> {}));
        continue;
      }
      CompletableFuture<Void> done = closings.begin(slot.sessionId);
      try {
        env.shutdown(
            Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
            timeLeft -> opener.checkpoint(slot, env, timeLeft));
      } catch (RuntimeException e) {
        cleanup.add(e);
      } finally {
        closings.end(slot.sessionId, done);
      }
    }
    return cleanup.failure();
  }

  void recordTransition(Transition t, Observation before, String placement) {
    transitions.add(t, before, placement);
  }

  @Override
  public List<Transition> transitions() {
    return transitions.recent();
  }

  @Override
  public List<TransitionRecord> transitions(BrowserSessionId sessionId) {
    return transitions.of(sessionId);
  }

  @Override
  public void discard(BrowserSessionId sessionId) {
    faults.forget(sessionId);
    opener.discard(sessionId, registry::byId);
    recorder.delete(sessionId);
    redactions.forget(sessionId);
  }

  void actionCompleted(Slot slot, Environment env) {
    actionCheckpoints.actionCompleted(slot, env);
  }

  /** Applies checkpoint retention, keeping every session that has an environment now. */
  private void prune() {
    Set<BrowserSessionId> live = new HashSet<>();
    synchronized (this) {
      slots.values().forEach(s -> live.add(s.sessionId));
      detached.forEach(s -> live.add(s.sessionId));
    }
    try {
      opener.prune(live, registry::byId).forEach(recorder::delete);
    } catch (RuntimeException e) {
      LOG.warn("checkpoint retention failed: {}", e.getMessage());
    }
  }

  /** Closes every environment. Providers stay registered until their registrations close. */
  @Override
  public void close() {
    List<Slot> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(slots.values());
      all.addAll(detached);
      all.removeIf(slot -> slot.shuttingDown);
      all.forEach(slot -> slot.shuttingDown = true);
      slots.clear();
      detached.clear();
    }
    all.forEach(slot -> slot.openCancellation.cancel());
    Cleanup cleanup = new Cleanup().add(shutdownAll(all));
    openers.shutdown();
    try {
      if (!openers.awaitTermination(settings.cleanupTimeoutMs(), TimeUnit.MILLISECONDS)) {
        cleanup.add(
            new IllegalStateException(
                "the runtime's threads did not finish within "
                    + settings.cleanupTimeoutMs()
                    + " ms"));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    cleanup.run(() -> actionCheckpoints.close(settings.cleanupTimeoutMs()));
    cleanup.run(recorder::close);
    watchdog.close();
    cleanup.done();
  }
}
