package dev.periscope.browser.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.Requirements;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.api.browser.spi.ProviderElement;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The runtime's rules, each with an in-memory provider, each failing when its guard is removed. */
class DefaultBrowserRuntimeTest {
  private static final ObservationBudget BUDGET = new ObservationBudget(1000, 10);
  private static final Set<Capability> CHECKPOINTING =
      Set.of(Capability.SCREENSHOT, Capability.CHECKPOINT);
  private DefaultBrowserRuntime runtime =
      DefaultBrowserRuntime.builder(RuntimeSettings.defaults()).build();
  private final BrowserSessionId session = new BrowserSessionId("session-1");

  private BrowserLease acquire(Object owner) {
    return runtime.acquire(
        owner, session, Persistence.EPHEMERAL, Requirements.any(), Cancellation.none());
  }

  private BrowserLease resume(Object owner) {
    return runtime.acquire(
        owner, session, Persistence.RESUME, Requirements.any(), Cancellation.none());
  }

  private static ErrorCode codeOf(Runnable r) {
    return assertThrows(BrowserException.class, r::run).code();
  }

  private static Cancellation none() {
    return Cancellation.none();
  }

  /** Runs an acquire on its own thread, so a test can wait until it is really blocked. */
  private final class Acquirer extends Thread {
    final Object owner;
    final Cancellation cancellation;
    volatile BrowserLease lease;
    volatile Throwable failure;

    Acquirer(Object owner, Cancellation cancellation) {
      this.owner = owner;
      this.cancellation = cancellation;
      setDaemon(true);
      start();
    }

    @Override
    public void run() {
      try {
        lease =
            runtime.acquire(
                owner, session, Persistence.EPHEMERAL, Requirements.any(), cancellation);
      } catch (Throwable e) {
        failure = e;
      }
    }

    Acquirer waitingForTheOpen() {
      while (getState() != Thread.State.WAITING) {
        Thread.onSpinWait();
      }
      return this;
    }

    BrowserLease finish() throws InterruptedException {
      join(10_000);
      assertFalse(isAlive(), "acquire did not return");
      if (failure != null) {
        throw new AssertionError("acquire failed", failure);
      }
      return lease;
    }

    Throwable failed() throws InterruptedException {
      join(10_000);
      assertFalse(isAlive(), "acquire did not return");
      return failure;
    }
  }

  /** Runs a lease operation on its own thread. */
  private static final class Background<T> extends Thread {
    private final java.util.function.Supplier<T> work;
    volatile T result;
    volatile Throwable failure;

    Background(java.util.function.Supplier<T> work) {
      this.work = work;
      setDaemon(true);
      start();
    }

    @Override
    public void run() {
      try {
        result = work.get();
      } catch (Throwable e) {
        failure = e;
      }
    }

    T result() throws InterruptedException {
      join(10_000);
      assertFalse(isAlive(), "operation did not return");
      if (failure != null) {
        throw new AssertionError("operation failed", failure);
      }
      return result;
    }

    Throwable failed() throws InterruptedException {
      join(10_000);
      assertFalse(isAlive(), "operation did not return");
      return failure;
    }
  }

  private FakeProvider provider() {
    FakeProvider provider = new FakeProvider("fake", true);
    runtime.registerProvider(provider);
    return provider;
  }

  private FakeProvider gatedProvider() {
    FakeProvider provider = provider();
    provider.openGate = new CountDownLatch(1);
    return provider;
  }

  // Acquire and ownership

  @Test
  void sharesOneOpenBetweenConcurrentAcquiresOfOneOwner() throws Exception {
    FakeProvider provider = gatedProvider();
    Object owner = new Object();
    Acquirer a = new Acquirer(owner, none()).waitingForTheOpen();
    Acquirer b = new Acquirer(owner, none()).waitingForTheOpen();
    provider.openGate.countDown();
    BrowserLease la = a.finish();
    BrowserLease lb = b.finish();
    assertEquals(1, provider.opens.get());
    assertEquals(la.environmentId(), lb.environmentId());
    la.close();
    la.close();
    assertFalse(
        provider.environments.get(0).closed, "a lease released twice counted as two releases");
    assertTrue(lb.usable());
    lb.close();
    assertTrue(provider.environments.get(0).closed);
  }

  @Test
  void theFirstCallersCancellationEndsOnlyItsOwnWait() throws Exception {
    FakeProvider provider = gatedProvider();
    Object owner = new Object();
    Cancellation first = none();
    Acquirer a = new Acquirer(owner, first).waitingForTheOpen();
    Acquirer b = new Acquirer(owner, none()).waitingForTheOpen();
    first.cancel();
    assertInstanceOf(CancellationException.class, a.failed());
    provider.openGate.countDown();
    BrowserLease lease = b.finish();
    assertFalse(provider.openCancelled, "the shared open saw the first caller's cancellation");
    assertFalse(provider.environments.get(0).closed);
    lease.close();
    assertTrue(provider.environments.get(0).closed);
  }

  @Test
  void whenTheLastWaiterCancelsTheOpenIsCancelledAndNothingStaysOpen() throws Exception {
    FakeProvider provider = gatedProvider();
    Cancellation only = none();
    Acquirer a = new Acquirer(new Object(), only).waitingForTheOpen();
    only.cancel();
    assertInstanceOf(CancellationException.class, a.failed());
    provider.openGate.countDown();
    while (provider.environments.isEmpty()) {
      Thread.onSpinWait();
    }
    assertTrue(provider.openCancelled, "the provider's open was not told to stop");
    while (!provider.environments.get(0).closed) {
      Thread.onSpinWait();
    }
  }

  @Test
  void anInterruptedWaiterDoesNotKeepTheEnvironmentOpen() throws Exception {
    FakeProvider provider = gatedProvider();
    Object owner = new Object();
    Acquirer a = new Acquirer(owner, none()).waitingForTheOpen();
    Acquirer b = new Acquirer(owner, none()).waitingForTheOpen();
    b.interrupt();
    assertInstanceOf(CancellationException.class, b.failed());
    provider.openGate.countDown();
    a.finish().close();
    assertTrue(provider.environments.get(0).closed, "the interrupted waiter still counted");
  }

  @Test
  void givesDifferentOwnersSeparateEnvironmentsAndRejectsAnIncompatibleAcquire() {
    runtime.registerProvider(new FakeProvider("fake", true, CHECKPOINTING));
    Object owner = new Object();
    BrowserLease a = acquire(owner);
    BrowserLease b = acquire(new Object());
    assertNotEquals(a.environmentId(), b.environmentId());
    assertEquals(
        ErrorCode.BROWSER_OWNER_CONFLICT,
        codeOf(
            () ->
                runtime.acquire(
                    owner,
                    new BrowserSessionId("other"),
                    Persistence.EPHEMERAL,
                    Requirements.any(),
                    none())));
    assertEquals(ErrorCode.BROWSER_OWNER_CONFLICT, codeOf(() -> resume(owner)));
    assertEquals(
        ErrorCode.BROWSER_OWNER_CONFLICT,
        codeOf(
            () ->
                runtime.acquire(
                    owner,
                    session,
                    Persistence.EPHEMERAL,
                    new Requirements(Optional.of("another"), Set.of()),
                    none())));
  }

  @Test
  void anotherOwnersObservationIsStaleForThisOwner() {
    provider();
    BrowserLease mine = acquire(new Object());
    BrowserLease theirs = acquire(new Object());
    var theirObservation = theirs.observe(BUDGET, none());
    assertEquals(
        ErrorCode.BROWSER_STALE_REFERENCE,
        codeOf(() -> mine.click(theirObservation.id(), "e1", BUDGET, none())));
  }

  // Last release: drain, checkpoint, close

  @Test
  void theLastReleaseStopsAdmissionDrainsAdmittedWorkThenCloses() throws Exception {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    var o = lease.observe(BUDGET, none());
    var env = provider.environments.get(0);
    provider.clickGate = new CountDownLatch(1);
    Background<Transition> click =
        new Background<>(() -> lease.click(o.id(), "e1", BUDGET, none()));
    env.clickStarted.await(10, TimeUnit.SECONDS);
    Background<Object> release =
        new Background<>(
            () -> {
              lease.close();
              return null;
            });
    while (lease.usable()) {
      Thread.onSpinWait();
    }
    assertFalse(env.closed, "closed while admitted work was still running");
    provider.clickGate.countDown();
    assertEquals(Transition.Outcome.SUCCEEDED, click.result().outcome());
    release.result();
    assertTrue(env.closed);
    assertEquals(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, codeOf(() -> lease.observe(BUDGET, none())));
  }

  @Test
  void aShutdownThatWaitsLongerThanTheCleanupTimeoutAbortsTheWork() throws Exception {
    runtime = DefaultBrowserRuntime.builder(RuntimeSettings.defaults().withLimits(200, 10)).build();
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    var o = lease.observe(BUDGET, none());
    provider.clickGate = new CountDownLatch(1);
    Background<Transition> click =
        new Background<>(() -> lease.click(o.id(), "e1", BUDGET, none()));
    provider.environments.get(0).clickStarted.await(10, TimeUnit.SECONDS);
    lease.close();
    assertEquals(
        0, provider.environments.get(0).aborted.getCount(), "the stuck click was not aborted");
    assertTrue(provider.environments.get(0).closed);
    var failure = assertInstanceOf(BrowserException.class, click.failed());
    assertEquals(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, failure.code());
    assertTrue(failure.leaseRebuilt());
  }

  @Test
  void checkpointsAResumingSessionOnTheLastReleaseAndRestoresItWithTheNextGeneration() {
    FakeProvider provider = new FakeProvider("fake", true, CHECKPOINTING);
    runtime.registerProvider(provider);
    BrowserLease first = resume(new Object());
    assertEquals(1, first.observe(BUDGET, none()).generation());
    first.close();
    BrowserLease second = resume(new Object());
    assertEquals(
        List.of("checkpoint-0"), provider.restoredFrom.stream().map(CheckpointRef::ref).toList());
    assertEquals(2, second.observe(BUDGET, none()).generation());
    second.close();
    assertEquals(
        List.of("checkpoint-0"), provider.destroyed, "the replaced checkpoint's payload was kept");
  }

  @Test
  void reportsACheckpointFailureAndACloseFailureTogether() {
    FakeProvider provider = new FakeProvider("fake", true, CHECKPOINTING);
    runtime.registerProvider(provider);
    BrowserLease lease = resume(new Object());
    provider.checkpointFailure = new IllegalStateException("checkpoint broke");
    provider.closeFailure = new IllegalStateException("close broke");
    var e = assertThrows(IllegalStateException.class, lease::close);
    assertEquals("checkpoint broke", e.getMessage());
    assertEquals("close broke", e.getSuppressed()[0].getMessage());
    assertTrue(
        provider.environments.get(0).closed, "close was not attempted after the checkpoint failed");
  }

  @Test
  void anAttachedSessionWhoseCloseFailsJournalsItsDetachAsFailed() {
    FakeProvider provider = provider();
    provider.attaching = true;
    BrowserLease lease = acquire(new Object());
    provider.closeFailure = new IllegalStateException("the tab would not close");
    assertThrows(IllegalStateException.class, lease::close);

    Transition detach =
        runtime.transitions().stream()
            .filter(t -> "detach".equals(t.action().get("kind")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no detach in " + runtime.transitions()));
    assertEquals(Transition.Outcome.FAILED, detach.outcome());
    assertTrue(
        String.valueOf(detach.action().get("cause")).contains("the tab would not close"),
        detach.action().toString());
  }

  @Test
  void anAttachedSessionThatClosesJournalsAttachAndDetach() {
    FakeProvider provider = provider();
    provider.attaching = true;
    acquire(new Object()).close();

    assertEquals(
        List.of("attach", "detach"),
        runtime.transitions().stream().map(t -> t.action().get("kind")).toList());
    assertEquals(Transition.Outcome.SUCCEEDED, runtime.transitions().get(1).outcome());
  }

  @Test
  void refusesToResumeThroughAnotherProviderOrBuild() {
    FakeProvider writer = new FakeProvider("fake", true, CHECKPOINTING);
    AutoCloseable registration = runtime.registerProvider(writer);
    resume(new Object()).close();
    writer.version = "fake-2";
    assertEquals(ErrorCode.BROWSER_CHECKPOINT_VERSION_MISMATCH, codeOf(() -> resume(new Object())));
    assertDoesNotThrow(registration::close);
    runtime.registerProvider(new FakeProvider("other", true, CHECKPOINTING));
    assertEquals(
        ErrorCode.BROWSER_CHECKPOINT_PROVIDER_MISMATCH, codeOf(() -> resume(new Object())));
  }

  @Test
  void resumingNeedsACheckpointCapableProvider() {
    provider();
    assertEquals(ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED, codeOf(() -> resume(new Object())));
  }

  // Providers

  @Test
  void rejectsACheckpointProviderThatCannotRestoreOrDestroy() {
    var incomplete =
        new dev.periscope.api.browser.spi.BrowserProvider() {
          public String id() {
            return "half";
          }

          public Set<Capability> capabilities() {
            return Set.of(Capability.SCREENSHOT, Capability.CHECKPOINT, Capability.NETWORK_POLICY);
          }

          public boolean available() {
            return true;
          }

          public Optional<String> unavailableReason() {
            return Optional.empty();
          }

          public dev.periscope.api.browser.spi.BrowserEnvironment open(
              OpenRequest request, Cancellation cancellation) {
            throw new AssertionError("never opened");
          }
        };
    assertEquals(
        ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
        codeOf(() -> runtime.registerProvider(incomplete)));
  }

  @Test
  void closesAndRejectsAnEnvironmentThatCannotBeCheckpointed() {
    FakeProvider inner = new FakeProvider("inner", true);
    List<FakeProvider.FakeEnvironment> opened = inner.environments;
    FakeProvider provider =
        new FakeProvider("fake", true, CHECKPOINTING) {
          @Override
          public dev.periscope.api.browser.spi.BrowserEnvironment open(
              OpenRequest request, Cancellation cancellation) {
            var env = inner.open(request, cancellation);
            // Hide the checkpoint method behind a plain environment.
            return new dev.periscope.api.browser.spi.BrowserEnvironment() {
              public dev.periscope.api.browser.spi.ProviderObservation observe(
                  ObservationBudget b) {
                return env.observe(b);
              }

              public dev.periscope.api.browser.BrowserAction.Handler actions() {
                return env.actions();
              }

              public dev.periscope.api.browser.Screenshot screenshot(boolean fullPage) {
                return null;
              }

              public void abort() {}

              public void close() {
                env.close();
              }
            };
          }
        };
    runtime.registerProvider(provider);
    assertEquals(ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE, codeOf(() -> acquire(new Object())));
    assertTrue(opened.get(0).closed);
  }

  @Test
  void anOpenThatFailsInAProvidersOwnWayIsToldAsTheProviderBeingUnavailable() {
    runtime.registerProvider(
        new FakeProvider("fake", true) {
          @Override
          public dev.periscope.api.browser.spi.BrowserEnvironment open(
              OpenRequest request, Cancellation cancellation) {
            throw new IllegalStateException(
                "the browser's driver did not answer within 37000 ms and was stopped");
          }
        });
    BrowserException e = assertThrows(BrowserException.class, () -> acquire(new Object()));
    assertEquals(ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, e.code());
    assertEquals(
        "the browser could not be opened: the browser's driver did not answer within 37000 ms and"
            + " was stopped",
        e.getMessage());
  }

  @Test
  void selectsWithoutRegardToRegistrationOrder() {
    assertEquals(ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, codeOf(() -> acquire(new Object())));
    runtime.registerProvider(new FakeProvider("zeta", false));
    var none = assertThrows(BrowserException.class, () -> acquire(new Object()));
    assertEquals(ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, none.code());
    assertTrue(
        none.getMessage().contains("zeta: install zeta with: apt-get install -y zeta"),
        none.getMessage());
    runtime.registerProvider(new FakeProvider("beta", true));
    runtime.registerProvider(new FakeProvider("alpha", true));
    var ambiguous = assertThrows(BrowserException.class, () -> acquire(new Object()));
    assertEquals(ErrorCode.BROWSER_PROVIDER_AMBIGUOUS, ambiguous.code());
    assertTrue(ambiguous.getMessage().contains("alpha, beta"), ambiguous.getMessage());
    assertEquals(
        ErrorCode.BROWSER_DUPLICATE_PROVIDER,
        codeOf(() -> runtime.registerProvider(new FakeProvider("beta", true))));
    assertEquals(
        ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED,
        codeOf(
            () ->
                runtime.acquire(
                    new Object(),
                    session,
                    Persistence.EPHEMERAL,
                    new Requirements(Optional.of("alpha"), Set.of(Capability.EXTRACTION)),
                    none())));
    var configured =
        DefaultBrowserRuntime.builder(RuntimeSettings.defaults().withProvider(Optional.of("zeta")))
            .build();
    configured.registerProvider(new FakeProvider("zeta", false));
    var unavailable =
        assertThrows(
            BrowserException.class,
            () ->
                configured.acquire(
                    new Object(), session, Persistence.EPHEMERAL, Requirements.any(), none()));
    assertEquals(ErrorCode.BROWSER_PROVIDER_CONFIGURED_UNAVAILABLE, unavailable.code());
    assertTrue(unavailable.getMessage().contains("apt-get install -y zeta"));
    var missing =
        DefaultBrowserRuntime.builder(RuntimeSettings.defaults().withProvider(Optional.of("nope")))
            .build();
    assertEquals(
        ErrorCode.BROWSER_PROVIDER_CONFIGURED_MISSING,
        assertThrows(
                BrowserException.class,
                () ->
                    missing.acquire(
                        new Object(), session, Persistence.EPHEMERAL, Requirements.any(), none()))
            .code());
    var chosen =
        DefaultBrowserRuntime.builder(RuntimeSettings.defaults().withProvider(Optional.of("beta")))
            .build();
    chosen.registerProvider(new FakeProvider("alpha", true));
    FakeProvider beta = new FakeProvider("beta", true);
    chosen.registerProvider(beta);
    chosen.acquire(new Object(), session, Persistence.EPHEMERAL, Requirements.any(), none());
    assertEquals(1, beta.opens.get());
  }

  @Test
  void closingARegistrationSettlesItsOpensClosesItsEnvironmentsAndThenDisposesTheProvider()
      throws Exception {
    FakeProvider provider = new FakeProvider("fake", true);
    AutoCloseable registration = runtime.registerProvider(provider);
    BrowserLease lease = acquire(new Object());
    provider.openGate = new CountDownLatch(1);
    Acquirer opening = new Acquirer(new Object(), none()).waitingForTheOpen();
    Background<Object> unregister =
        new Background<>(
            () -> {
              assertDoesNotThrow(registration::close);
              return null;
            });
    while (!provider.openCancelled && unregister.isAlive() && provider.openGate.getCount() > 0) {
      if (unregister.getState() == Thread.State.TIMED_WAITING) {
        break;
      }
      Thread.onSpinWait();
    }
    assertFalse(provider.disposed, "disposed before the open in progress settled");
    provider.openGate.countDown();
    unregister.result();
    assertInstanceOf(BrowserException.class, opening.failed());
    assertTrue(provider.environments.stream().allMatch(e -> e.closed));
    assertTrue(provider.disposed);
    assertEquals(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, codeOf(() -> lease.observe(BUDGET, none())));
    assertEquals(ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, codeOf(() -> acquire(new Object())));
  }

  // One queue per environment

  @Test
  void runsOneEnvironmentsOperationsInAdmissionOrderAndOtherEnvironmentsAtTheSameTime()
      throws Exception {
    FakeProvider provider = provider();
    BrowserLease a = acquire(new Object());
    BrowserLease b = acquire(new Object());
    var oa = a.observe(BUDGET, none());
    var ob = b.observe(BUDGET, none());
    provider.clickGate = new CountDownLatch(1);
    var envA = provider.environments.get(0);
    Background<Transition> first = new Background<>(() -> a.click(oa.id(), "e1", BUDGET, none()));
    envA.clickStarted.await(10, TimeUnit.SECONDS);
    Background<Transition> second =
        new Background<>(() -> a.navigate("http://127.0.0.1/second", BUDGET, none()));
    while (second.getState() != Thread.State.WAITING) {
      Thread.onSpinWait();
    }
    Background<Transition> third =
        new Background<>(() -> a.navigate("http://127.0.0.1/third", BUDGET, none()));
    while (third.getState() != Thread.State.WAITING) {
      Thread.onSpinWait();
    }
    // Environment B is not held up by A's queue.
    var otherClick = new Background<>(() -> b.navigate("http://127.0.0.1/b", BUDGET, none()));
    assertEquals(Transition.Outcome.SUCCEEDED, otherClick.result().outcome());
    assertEquals(List.of("click Advance"), envA.actions);
    provider.clickGate.countDown();
    first.result();
    second.result();
    third.result();
    assertEquals(
        List.of(
            "click Advance", "navigate http://127.0.0.1/second", "navigate http://127.0.0.1/third"),
        envA.actions);
    assertNotEquals(ob.environmentId(), oa.environmentId());
  }

  @Test
  void aCancelledCallWaitingInTheQueueNeverRuns() throws Exception {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    var o = lease.observe(BUDGET, none());
    provider.clickGate = new CountDownLatch(1);
    var env = provider.environments.get(0);
    Background<Transition> running =
        new Background<>(() -> lease.click(o.id(), "e1", BUDGET, none()));
    env.clickStarted.await(10, TimeUnit.SECONDS);
    Cancellation mine = none();
    Background<Transition> queued =
        new Background<>(() -> lease.navigate("http://127.0.0.1/never", BUDGET, mine));
    while (queued.getState() != Thread.State.WAITING) {
      Thread.onSpinWait();
    }
    mine.cancel();
    var e = assertInstanceOf(BrowserException.class, queued.failed());
    assertEquals(ErrorCode.BROWSER_ACTION_CANCELLED, e.code());
    assertFalse(e.leaseRebuilt());
    provider.clickGate.countDown();
    running.result();
    assertEquals(List.of("click Advance"), env.actions);
    assertTrue(lease.usable());
  }

  @Test
  void aCallCancelledWhileItRunsAbortsTheEnvironmentAndSaysTheLeaseWasRebuilt() throws Exception {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    var o = lease.observe(BUDGET, none());
    provider.clickGate = new CountDownLatch(1);
    Cancellation mine = none();
    Background<Transition> click = new Background<>(() -> lease.click(o.id(), "e1", BUDGET, mine));
    provider.environments.get(0).clickStarted.await(10, TimeUnit.SECONDS);
    mine.cancel();
    var e = assertInstanceOf(BrowserException.class, click.failed());
    assertEquals(ErrorCode.BROWSER_ACTION_CANCELLED, e.code());
    assertTrue(e.failureLine().contains("observation=invalid lease=rebuilt"), e.failureLine());
    assertFalse(lease.usable());
    Transition recorded = runtime.transitions().get(runtime.transitions().size() - 1);
    assertEquals(Transition.Outcome.UNKNOWN, recorded.outcome());
    assertEquals(ErrorCode.BROWSER_ACTION_CANCELLED, recorded.error());
    lease.close();
    assertTrue(provider.environments.get(0).closed);
    assertTrue(acquire(new Object()).usable());
  }

  @Test
  void anAbortedEnvironmentIsNotHandedOutAgainToItsOwner() throws Exception {
    FakeProvider provider = provider();
    Object owner = new Object();
    BrowserLease held = acquire(owner);
    var o = held.observe(BUDGET, none());
    provider.clickGate = new CountDownLatch(1);
    Cancellation cancel = none();
    Background<Transition> click = new Background<>(() -> held.click(o.id(), "e1", BUDGET, cancel));
    provider.environments.get(0).clickStarted.await(10, TimeUnit.SECONDS);
    cancel.cancel();
    click.failed();
    BrowserLease fresh = acquire(owner);
    assertTrue(fresh.usable(), "the owner was handed the aborted environment again");
    assertEquals(2, provider.opens.get());
    assertNotEquals(held.environmentId(), fresh.environmentId());
    held.close();
    assertTrue(provider.environments.get(0).closed);
    assertFalse(provider.environments.get(1).closed);
  }

  @Test
  void aSessionReopenedWhileItsEnvironmentStillClosesRestoresWhatThatCloseSaved() throws Exception {
    FakeProvider provider = new FakeProvider("fake", true, CHECKPOINTING);
    runtime.registerProvider(provider);
    BrowserLease first = resume(new Object());
    var o = first.observe(BUDGET, none());
    provider.clickGate = new CountDownLatch(1);
    Background<Transition> click =
        new Background<>(() -> first.click(o.id(), "e1", BUDGET, none()));
    provider.environments.get(0).clickStarted.await(10, TimeUnit.SECONDS);
    Background<Object> release =
        new Background<>(
            () -> {
              first.close();
              return null;
            });
    while (first.usable()) {
      Thread.onSpinWait();
    }
    Background<BrowserLease> reopen = new Background<>(() -> resume(new Object()));
    // Wait until the reopen is either waiting for the old environment's close, or (wrongly) opened
    // anew.
    while (provider.opens.get() < 2 && !someThreadIsIn("SessionClosings.await")) {
      Thread.onSpinWait();
    }
    assertEquals(
        1, provider.opens.get(), "opened the session again before its previous environment closed");
    provider.clickGate.countDown();
    click.result();
    release.result();
    BrowserLease second = reopen.result();
    assertEquals(
        List.of("checkpoint-0"), provider.restoredFrom.stream().map(CheckpointRef::ref).toList());
    assertEquals(2, second.observe(BUDGET, none()).generation());
  }

  @Test
  void aLeaseHolderCannotStartWorkWhileItsEnvironmentDrains() throws Exception {
    FakeProvider provider = new FakeProvider("fake", true);
    AutoCloseable registration = runtime.registerProvider(provider);
    BrowserLease lease = acquire(new Object());
    var o = lease.observe(BUDGET, none());
    provider.clickGate = new CountDownLatch(1);
    Background<Transition> click =
        new Background<>(() -> lease.click(o.id(), "e1", BUDGET, none()));
    provider.environments.get(0).clickStarted.await(10, TimeUnit.SECONDS);
    // Withdrawing the provider drains its environment while this lease is still held.
    Background<Object> withdraw =
        new Background<>(
            () -> {
              assertDoesNotThrow(registration);
              return null;
            });
    while (lease.usable()) {
      Thread.onSpinWait();
    }
    Background<Transition> late =
        new Background<>(() -> lease.navigate("http://127.0.0.1/late", BUDGET, none()));
    var refused = assertInstanceOf(BrowserException.class, late.failed());
    assertEquals(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, refused.code());
    provider.clickGate.countDown();
    click.result();
    withdraw.result();
    assertEquals(List.of("click Advance"), provider.environments.get(0).actions);
    assertTrue(provider.disposed);
  }

  // Observations, refs and transitions

  @Test
  void rejectsAnActionOnAnOlderObservationBeforeTheProviderRuns() {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    var first = lease.observe(BUDGET, none());
    var second = lease.observe(BUDGET, none());
    var e =
        assertThrows(BrowserException.class, () -> lease.click(first.id(), "e1", BUDGET, none()));
    assertEquals(ErrorCode.BROWSER_STALE_REFERENCE, e.code());
    assertTrue(e.failureLine().contains("url=about:blank"), e.failureLine());
    assertTrue(provider.environments.get(0).actions.isEmpty());
    assertEquals(
        ErrorCode.BROWSER_STALE_REFERENCE,
        codeOf(() -> lease.click(second.id(), "e9", BUDGET, none())));
    assertEquals(
        ErrorCode.BROWSER_OBSERVATION_REQUIRED,
        codeOf(() -> lease.click("", "e1", BUDGET, none())));
    assertTrue(provider.environments.get(0).actions.isEmpty());
    var t = lease.click(second.id(), "e1", BUDGET, none());
    assertEquals(List.of("click Advance"), provider.environments.get(0).actions);
    assertEquals(second.id(), t.beforeObservationId());
    assertNotEquals(second.id(), t.after().id());
  }

  @Test
  void assignsIdsRefsInRankedOrderAndGroupRefsInOrderOfAppearance() {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    lease.observe(BUDGET, none());
    provider.environments.get(0).elements =
        List.of(
            new ProviderElement(
                "0", "a", "a", "link", "First paper", false, null, 3, "rec-7", "First paper"),
            new ProviderElement(
                "1", "b", "a", "link", "PDF", false, null, 5, "rec-7", "First paper"),
            new ProviderElement(
                "2", "c", "a", "link", "Second paper", false, null, 3, "rec-9", "Second paper"),
            new ProviderElement("3", "d", "button", "button", "Next", false, null, 1));
    var o = lease.observe(BUDGET, none());
    assertTrue(o.id().startsWith("observation-"));
    assertTrue(o.environmentId().startsWith("browser-"));
    assertEquals("page-1", o.pageId());
    assertEquals(2, o.revision());
    assertTrue(o.digest().startsWith("sha256:"));
    assertEquals(List.of("e1", "e2", "e3", "e4"), o.elements().stream().map(e -> e.ref()).toList());
    assertEquals(
        List.of("g1", "g1", "g2"),
        o.elements().subList(0, 3).stream().map(e -> e.group()).toList());
    assertNull(o.elements().get(3).group());
    assertEquals("g1", o.groups().get(0).ref());
    assertEquals(List.of("e1", "e2"), o.groups().get(0).elements());
    assertEquals("Second paper", o.groups().get(1).label());
  }

  @Test
  void recordsEveryActionWithItsOutcomeAndMetricsAndRedactsFillValues() {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    lease.navigate("http://127.0.0.1/form", BUDGET, none());
    var o = lease.observe(BUDGET, none());
    lease.fill(o.id(), "e1", "canary-value-123", BUDGET, none());
    var again = runtime.transitions().get(1).after();
    provider.environments.get(0).clickFailure = new IllegalStateException("the button moved");
    assertEquals(
        ErrorCode.BROWSER_ACTION_FAILED,
        codeOf(() -> lease.click(again.id(), "e1", BUDGET, none())));
    List<Transition> all = runtime.transitions();
    assertEquals(
        List.of("navigate", "fill", "click"),
        all.stream().map(t -> t.action().get("kind")).toList());
    assertEquals(
        List.of(
            Transition.Outcome.SUCCEEDED, Transition.Outcome.SUCCEEDED, Transition.Outcome.FAILED),
        all.stream().map(Transition::outcome).toList());
    Transition fill = all.get(1);
    assertEquals("[REDACTED]", fill.action().get("value"));
    assertEquals(16, fill.action().get("value_length"));
    assertFalse(all.toString().contains("canary-value-123"), "a fill value was recorded");
    assertEquals(o.id(), fill.beforeObservationId());
    assertTrue(fill.metrics().textChars() > 0);
    assertEquals(3, fill.metrics().elementCount());
    assertEquals(ErrorCode.BROWSER_ACTION_FAILED, all.get(2).error());
    assertNull(all.get(2).after());
  }

  @Test
  void recordsEveryKindOfAction() {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    String o = lease.observe(BUDGET, none()).id();
    List<dev.periscope.api.browser.BrowserAction<?>> actions =
        List.of(
            new dev.periscope.api.browser.BrowserAction.Navigate("http://127.0.0.1/"),
            new dev.periscope.api.browser.BrowserAction.Press(null, null, "Tab"),
            new dev.periscope.api.browser.BrowserAction.Select(null, null, List.of("x")),
            new dev.periscope.api.browser.BrowserAction.Check(null, null, true),
            new dev.periscope.api.browser.BrowserAction.Scroll(
                dev.periscope.api.browser.BrowserAction.Scroll.To.DOWN, 1, null, null),
            new dev.periscope.api.browser.BrowserAction.Wait(
                dev.periscope.api.browser.BrowserAction.Wait.Until.LOAD, null, null, 1000),
            new dev.periscope.api.browser.BrowserAction.History(
                dev.periscope.api.browser.BrowserAction.History.Move.BACK),
            new dev.periscope.api.browser.BrowserAction.History(
                dev.periscope.api.browser.BrowserAction.History.Move.FORWARD),
            new dev.periscope.api.browser.BrowserAction.History(
                dev.periscope.api.browser.BrowserAction.History.Move.RELOAD));
    for (var action : actions) {
      String latest = lease.latestObservation().orElseThrow().id();
      var withTarget =
          action instanceof dev.periscope.api.browser.BrowserAction.Select
              ? new dev.periscope.api.browser.BrowserAction.Select(latest, "e1", List.of("x"))
              : action instanceof dev.periscope.api.browser.BrowserAction.Check
                  ? new dev.periscope.api.browser.BrowserAction.Check(latest, "e1", true)
                  : action;
      assertEquals(
          Transition.Outcome.SUCCEEDED,
          lease.act(withTarget, BUDGET, none()).transition().outcome());
    }
    assertEquals(
        List.of(
            "navigate", "press", "select", "check", "scroll", "wait", "back", "forward", "reload"),
        runtime.transitions().stream().map(t -> t.action().get("kind")).toList());
    assertEquals(
        List.of(
            "navigate http://127.0.0.1/",
            "press Tab",
            "select [x] in Advance",
            "check Advance",
            "scroll down 1.0",
            "wait load 1000",
            "back",
            "forward",
            "reload"),
        provider.environments.get(0).actions);
    assertEquals(
        ErrorCode.BROWSER_INVALID_ARGUMENT,
        codeOf(
            () ->
                lease.act(
                    new dev.periscope.api.browser.BrowserAction.Scroll(
                        dev.periscope.api.browser.BrowserAction.Scroll.To.DOWN, 0, null, null),
                    BUDGET,
                    none())));
    assertEquals(
        ErrorCode.BROWSER_INVALID_ARGUMENT,
        codeOf(
            () ->
                lease.act(
                    new dev.periscope.api.browser.BrowserAction.Wait(
                        dev.periscope.api.browser.BrowserAction.Wait.Until.LOAD, null, null, 0),
                    BUDGET,
                    none())));
    assertEquals(
        ErrorCode.BROWSER_OBSERVATION_REQUIRED,
        codeOf(
            () ->
                lease.act(
                    new dev.periscope.api.browser.BrowserAction.Press(null, "e1", "Enter"),
                    BUDGET,
                    none())));
    assertTrue(o.startsWith("observation-"));
  }

  @Test
  void anActionWithoutAfterStateIsUnknownAndNeverRetryable() {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    var o = lease.observe(BUDGET, none());
    provider.environments.get(0).observeFailure = new IllegalStateException("renderer crashed");
    var e = assertThrows(BrowserException.class, () -> lease.click(o.id(), "e1", BUDGET, none()));
    assertEquals(ErrorCode.BROWSER_ACTION_EVIDENCE_FAILED, e.code());
    assertTrue(e.failureLine().endsWith("retryable=false"), e.failureLine());
    assertEquals(Transition.Outcome.UNKNOWN, runtime.transitions().get(0).outcome());
    assertEquals(
        List.of("click Advance"),
        provider.environments.get(0).actions,
        "the action ran exactly once");
  }

  @Test
  void refusesToFillAFieldObservedAsAPassword() {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    var o = lease.observe(BUDGET, none());
    var e =
        assertThrows(
            BrowserException.class, () -> lease.fill(o.id(), "e3", "hunter2", BUDGET, none()));
    assertEquals(ErrorCode.BROWSER_PASSWORD_INPUT_FORBIDDEN, e.code());
    assertTrue(
        e.failureLine().contains("recommended_action=browser_fill_credential"), e.failureLine());
    assertTrue(provider.environments.get(0).actions.isEmpty());
  }

  @Test
  void keepsOnlyTheConfiguredNumberOfTransitionsInMemory() {
    runtime = DefaultBrowserRuntime.builder(RuntimeSettings.defaults().withLimits(1000, 2)).build();
    provider();
    BrowserLease lease = acquire(new Object());
    for (int i = 0; i < 5; i++) {
      lease.navigate("http://127.0.0.1/" + i, BUDGET, none());
    }
    assertEquals(
        List.of("http://127.0.0.1/3", "http://127.0.0.1/4"),
        runtime.transitions().stream().map(t -> t.action().get("url")).toList());
  }

  @Test
  void refusesUrlsThatAreNotHttpOrCarryCredentials() {
    FakeProvider provider = provider();
    BrowserLease lease = acquire(new Object());
    for (String url :
        List.of(
            "file:///etc/passwd",
            "javascript:alert(1)",
            "ftp://x.test/",
            "https://user:pw@x.test/",
            "not a url",
            "http:///nohost")) {
      var e = assertThrows(BrowserException.class, () -> lease.navigate(url, BUDGET, none()), url);
      assertEquals(ErrorCode.BROWSER_INVALID_URL, e.code(), url);
      assertFalse(e.getMessage().contains("pw@"), "the credentials were echoed: " + e.getMessage());
    }
    assertTrue(provider.environments.get(0).actions.isEmpty());
  }

  private static boolean someThreadIsIn(String method) {
    return Thread.getAllStackTraces().values().stream()
        .anyMatch(
            stack ->
                java.util.Arrays.stream(stack)
                    .anyMatch(f -> (f.getClassName() + "." + f.getMethodName()).endsWith(method)));
  }

  private static void assertDoesNotThrow(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
