package dev.periscope.browser.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.Requirements;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.browser.TransitionRecord;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.api.browser.spi.EnvironmentFault;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the runtime does when a browser dies or stops answering, with an in-memory provider: every
 * step has a deadline, death is noticed while no call runs, the fault is recorded and told once,
 * and the session goes on in a fresh environment from its last checkpoint.
 */
@org.junit.jupiter.api.Timeout(60)
class EnvironmentFaultsTest {
  private static final ObservationBudget BUDGET = new ObservationBudget(1000, 10);

  /** Short deadlines: action 200 ms, navigation 300 ms, margin 100 ms, liveness 200 ms. */
  private static final RuntimeSettings.Timeouts SHORT =
      new RuntimeSettings.Timeouts(200, 300, 100, 200, 50, 100, 2_000);

  /**
   * The same, but the page is checked only after a step that failed: never while idle, nor before a
   * call.
   */
  private static final RuntimeSettings.Timeouts AFTER_FAILURES_ONLY =
      new RuntimeSettings.Timeouts(200, 300, 100, 200, 600_000, 60_000, 2_000);

  private final BrowserSessionId session = new BrowserSessionId("session-1");
  private DefaultBrowserRuntime runtime;
  private FakeProvider provider;

  private void start(RuntimeSettings.Timeouts timeouts) {
    runtime = DefaultBrowserRuntime.builder(RuntimeSettings.defaults().with(timeouts)).build();
    provider = new FakeProvider("fake", true, Set.of(Capability.SCREENSHOT, Capability.CHECKPOINT));
    runtime.registerProvider(provider);
  }

  @AfterEach
  void close() {
    runtime.close();
  }

  private BrowserLease acquire(Object owner) {
    return runtime.acquire(
        owner, session, Persistence.RESUME, Requirements.any(), Cancellation.none());
  }

  private FakeProvider.FakeEnvironment environment(int n) {
    return provider.environments.get(n);
  }

  private static void eventually(String what, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("never happened: " + what);
      }
      Thread.sleep(5);
    }
  }

  private List<TransitionRecord> recorded(String kind) {
    return runtime.transitions(session).stream().filter(t -> t.actionKind().equals(kind)).toList();
  }

  @Test
  void eachStepHandsItsProviderTheOneDeadlineItIsStoppedBy() throws Exception {
    start(SHORT);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    Observation o = lease.observe(BUDGET, Cancellation.none());
    lease.click(o.id(), "e1", BUDGET, Cancellation.none());
    var navigate = environment(0).navigateDeadline;
    var click = environment(0).clickDeadline;
    // An open's step is the navigation timeout; a click's the action timeout, then a navigation's;
    // each with the runtime's margin, from which the provider reads its own bounds.
    assertEquals(List.of(300L, 100L), List.of(navigate.timeoutMs(), navigate.marginMs()));
    assertEquals(List.of(500L, 100L), List.of(click.timeoutMs(), click.marginMs()));
    assertTrue(click.startNanos() > navigate.startNanos());
    assertEquals(click.timeoutEnds() + 50_000_000L, click.answerBy());
    assertEquals(click.timeoutEnds() + 100_000_000L, click.ends());
    // A liveness check: its own timeout, which the runtime stops it at.
    eventually("a liveness check while idle", () -> environment(0).probeDeadline != null);
    assertEquals(200L, environment(0).probeDeadline.timeoutMs());
    // With the margin, which the layers below read: without it, the lane would give the driver up
    // as the check's own call ended (seen in BrowserFaultsTest: the browser went with the page).
    assertEquals(100L, environment(0).probeDeadline.marginMs());
  }

  @Test
  void aStepStillRunningPastItsTimeoutAndMarginIsStoppedAndItsBrowserDiscarded() throws Exception {
    start(SHORT);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    Observation o = lease.observe(BUDGET, Cancellation.none());
    provider.clickGate = new CountDownLatch(1); // the click never ends by itself
    long start = System.nanoTime();
    BrowserException e =
        assertThrows(
            BrowserException.class, () -> lease.click(o.id(), "e1", BUDGET, Cancellation.none()));
    long ms = (System.nanoTime() - start) / 1_000_000;
    // A click may navigate: its step is the action timeout, then the navigation timeout, then the
    // margin.
    assertTrue(ms >= 600 && ms < 5_000, "stopped after " + ms + " ms");
    assertEquals(ErrorCode.BROWSER_UNRESPONSIVE, e.code());
    assertEquals(
        "code=BROWSER_UNRESPONSIVE url=https://example.test/a observation=invalid lease=rebuilt"
            + " recommended_action=browser_open retryable=false",
        e.failureLine());
    assertTrue(
        e.getMessage().contains("the click was still running 600 ms after it began"),
        e.getMessage());
    assertFalse(lease.usable());
    eventually("the discarded browser is closed", () -> environment(0).closed);
    Transition click =
        runtime.transitions().stream()
            .filter(t -> "click".equals(t.action().get("kind")))
            .findFirst()
            .orElseThrow();
    assertEquals(Transition.Outcome.UNKNOWN, click.outcome());
    assertEquals(ErrorCode.BROWSER_UNRESPONSIVE, click.error());
    eventually("the fault is in the audit trail", () -> recorded("fault").size() == 1);
    assertEquals("deadline-exceeded", recorded("fault").get(0).cause());
  }

  /**
   * Runs {@code death} once {@code started} is reached, on another thread, as a crash would come.
   */
  private static void whenStarted(CountDownLatch started, Runnable death) {
    Thread t =
        new Thread(
            () -> {
              try {
                started.await();
                death.run();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    t.setDaemon(true);
    t.start();
  }

  @Test
  void aProviderWithdrawnWhileABrowserAFaultEndedStillClosesIsDisposedOfOnlyAfterIt()
      throws Exception {
    runtime = DefaultBrowserRuntime.builder(RuntimeSettings.defaults().with(SHORT)).build();
    provider = new FakeProvider("fake", true, Set.of(Capability.SCREENSHOT, Capability.CHECKPOINT));
    AutoCloseable registration = runtime.registerProvider(provider);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    CountDownLatch closing = new CountDownLatch(1);
    environment(0).closeGate = closing;
    environment(0).die(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited");
    eventually("the browser the fault ended is closing", () -> environment(0).closeStarted);
    Thread withdrawing =
        new Thread(
            () -> {
              try {
                registration.close();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    withdrawing.start();
    Thread.sleep(300);
    assertFalse(provider.disposed, "the provider was disposed of while its browser still closed");
    closing.countDown();
    withdrawing.join(10_000);
    assertTrue(environment(0).closed);
    assertTrue(provider.disposed);
    lease.close();
  }

  @Test
  void aClickTheBrowserDiesUnderNamesTheCauseAndCannotBeRepeated() throws Exception {
    start(SHORT);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    Observation o = lease.observe(BUDGET, Cancellation.none());
    provider.clickGate = new CountDownLatch(1);
    whenStarted(
        environment(0).clickStarted,
        () -> environment(0).die(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited"));
    BrowserException e =
        assertThrows(
            BrowserException.class, () -> lease.click(o.id(), "e1", BUDGET, Cancellation.none()));
    assertEquals(ErrorCode.BROWSER_CRASHED, e.code());
    assertTrue(e.getMessage().contains("Chromium exited"), e.getMessage());
    assertTrue(e.getMessage().contains("open https://example.test/a again"), e.getMessage());
    // A click names a ref of the lost page: repeating it cannot succeed.
    assertEquals(
        "code=BROWSER_CRASHED url=https://example.test/a observation=invalid lease=rebuilt"
            + " recommended_action=browser_open retryable=false",
        e.failureLine());
    assertFalse(e.rerunnable());
    lease.close();
  }

  @Test
  void aNavigationTheBrowserDiesUnderCanBeRepeatedButIsNotRunAgainForTheCaller() throws Exception {
    start(SHORT);
    Object owner = new Object();
    BrowserLease lease = acquire(owner);
    provider.navigateGate = new CountDownLatch(1);
    whenStarted(
        environment(0).navigateStarted,
        () -> environment(0).die(EnvironmentFault.Cause.DRIVER_EXITED, "the driver exited"));
    BrowserException e =
        assertThrows(
            BrowserException.class,
            () -> lease.navigate("https://example.test/b", BUDGET, Cancellation.none()));
    assertEquals(ErrorCode.BROWSER_CRASHED, e.code());
    assertTrue(
        e.failureLine().endsWith("lease=rebuilt recommended_action=browser_open retryable=true"),
        e.failureLine());
    // A navigation may have reached a server: repeating it is the caller's choice, not the
    // runtime's.
    assertFalse(e.rerunnable());
    lease.close();
    provider.navigateGate = null;
    BrowserLease next = acquire(owner);
    Transition again = next.navigate("https://example.test/b", BUDGET, Cancellation.none());
    assertEquals("https://example.test/b", again.after().url());
    assertTrue(again.after().pageEvents().isEmpty(), "told twice: " + again.after().pageEvents());
    next.close();
  }

  @Test
  void aCallThatFailsWhileAnotherThreadEndsItsEnvironmentForAFaultWaitsToSayWhatEndedIt()
      throws Exception {
    start(SHORT);
    var delegate = provider.open(null, Cancellation.none());
    try (Watchdog watchdog = new Watchdog()) {
      Environment environment =
          new Environment(session, provider, delegate, 1, false, watchdog, SHORT);
      CountDownLatch noting = new CountDownLatch(1);
      CountDownLatch noted = new CountDownLatch(1);
      environment.watch(
          () -> {},
          (env, lost) -> {
            noting.countDown();
            try {
              noted.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          },
          timeLeft -> {});
      // The driver's watcher reports the browser's death, and the runtime is still noting the loss
      // when the call that met the dead browser fails and asks whether its environment ended.
      Thread watcher =
          new Thread(
              () ->
                  environment.fault(
                      new EnvironmentFault(
                          EnvironmentFault.Cause.DRIVER_EXITED, "the driver exited")));
      watcher.start();
      assertTrue(noting.await(5, java.util.concurrent.TimeUnit.SECONDS));
      var asked = java.util.concurrent.CompletableFuture.supplyAsync(environment::aborted);
      Thread.sleep(200);
      assertFalse(
          asked.isDone(), "it answered before the environment had ended: " + asked.getNow(null));
      noted.countDown();
      assertTrue(asked.get(5, java.util.concurrent.TimeUnit.SECONDS));
      assertNotEquals(null, environment.lost());
      watcher.join();
    }
  }

  @Test
  void anObservationTheBrowserDiesUnderIsRerunnableAndTheNextBrowserTellsOfTheFault()
      throws Exception {
    start(SHORT);
    Object owner = new Object();
    BrowserLease lease = acquire(owner);
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    var env = environment(0);
    env.onNextObserve =
        () -> {
          env.die(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited");
          throw new IllegalStateException("Target page, context or browser has been closed");
        };
    BrowserException e =
        assertThrows(BrowserException.class, () -> lease.observe(BUDGET, Cancellation.none()));
    assertEquals(ErrorCode.BROWSER_CRASHED, e.code());
    assertTrue(e.rerunnable());
    lease.close();
    BrowserLease next = acquire(owner);
    Observation first = next.observe(BUDGET, Cancellation.none());
    assertTrue(
        first.pageEvents().get(0).contains("Chromium exited"), first.pageEvents().toString());
    next.close();
  }

  @Test
  void aFaultWhileNoCallRunsEndsTheEnvironmentAtOnceAndTheNextEnvironmentTellsOfItOnce()
      throws Exception {
    start(SHORT);
    Object owner = new Object();
    BrowserLease lease = acquire(owner);
    lease.navigate("https://example.test/account", BUDGET, Cancellation.none());
    Observation lost = lease.observe(BUDGET, Cancellation.none());
    eventually("the navigation is checkpointed", () -> provider.checkpointsWritten.get() >= 1);

    environment(0).die(EnvironmentFault.Cause.PAGE_CRASHED, "the page's renderer crashed");
    assertFalse(lease.usable());
    eventually(
        "the dead environment is closed without waiting for its lease",
        () -> environment(0).closed);
    eventually("the fault is in the audit trail", () -> recorded("fault").size() == 1);
    TransitionRecord fault = recorded("fault").get(0);
    assertEquals("page-crashed", fault.cause());
    assertEquals(ErrorCode.BROWSER_CRASHED, fault.error());
    assertEquals(lost.id(), fault.before().observationId());

    lease.close();
    BrowserLease fresh = acquire(owner);
    assertNotEquals(lease.environmentId(), fresh.environmentId());
    assertEquals(
        1,
        provider.restoredFrom.size(),
        "the fresh environment was not restored from the checkpoint");
    // The lost page's refs fail with the fault, once, naming where the page was.
    BrowserException e =
        assertThrows(
            BrowserException.class,
            () -> fresh.click(lost.id(), "e1", BUDGET, Cancellation.none()));
    assertEquals(ErrorCode.BROWSER_CRASHED, e.code());
    assertTrue(e.getMessage().contains("renderer crashed"), e.getMessage());
    assertEquals(
        "code=BROWSER_CRASHED url=https://example.test/account observation=invalid lease=rebuilt"
            + " recommended_action=browser_open retryable=false",
        e.failureLine());
    assertEquals(
        ErrorCode.BROWSER_STALE_REFERENCE,
        assertThrows(
                BrowserException.class,
                () -> fresh.click(lost.id(), "e1", BUDGET, Cancellation.none()))
            .code());
    assertEquals(1, recorded("recover").size());
    assertEquals("page-crashed", recorded("recover").get(0).cause());
    fresh.close();
  }

  /** A click of e1 running on a thread of its own (held by the provider's click gate). */
  private Thread clickRunning(BrowserLease lease, Observation o) throws InterruptedException {
    Thread clicking =
        new Thread(
            () -> {
              try {
                lease.click(o.id(), "e1", BUDGET, Cancellation.none());
              } catch (BrowserException ignored) {
                // what the click says is not the point here
              }
            });
    clicking.start();
    eventually(
        "the click runs",
        // A copy, taken under the list's lock: the click's thread adds to it meanwhile.
        () -> List.copyOf(environment(0).actions).stream().anyMatch(a -> a.startsWith("click")));
    return clicking;
  }

  @Test
  void aRetiringEnvironmentWaitsForItsRunningCallThenTheSessionMoves() throws Exception {
    start(SHORT);
    Object owner = new Object();
    BrowserLease lease = acquire(owner);
    lease.navigate("https://example.test/account", BUDGET, Cancellation.none());
    Observation o = lease.observe(BUDGET, Cancellation.none());
    eventually("the navigation is checkpointed", () -> provider.checkpointsWritten.get() >= 1);
    provider.clickGate = new CountDownLatch(1);
    Thread clicking = clickRunning(lease, o);
    // Its node drains while the click runs: the click is not disturbed.
    environment(0).die(EnvironmentFault.Cause.RETIRING, "its node drains");
    Thread.sleep(150);
    assertTrue(lease.usable(), "a retirement never stops a running call");
    assertFalse(environment(0).aborted());
    provider.clickGate.countDown();
    clicking.join();
    eventually("the idle environment is retired", () -> !lease.usable());
    eventually("its browser is closed", () -> environment(0).closed);
    eventually("the retirement is in the audit trail", () -> recorded("fault").size() == 1);
    assertEquals("retiring", recorded("fault").get(0).cause());
    lease.close();
    BrowserLease fresh = acquire(owner);
    assertEquals(1, provider.restoredFrom.size(), "restored once");
    Observation first = fresh.observe(BUDGET, Cancellation.none());
    assertTrue(
        first.pageEvents().get(0).contains("its node drains"), first.pageEvents().toString());
    assertEquals("retiring", recorded("recover").get(0).cause());
    fresh.close();
  }

  @Test
  void anIdleRetiringEnvironmentIsCheckpointedAsItIsNowAndTheNextStartsFromThat() throws Exception {
    start(AFTER_FAILURES_ONLY);
    Object owner = new Object();
    BrowserLease lease = acquire(owner);
    lease.navigate("https://example.test/account", BUDGET, Cancellation.none());
    lease.observe(BUDGET, Cancellation.none()); // after the navigation's checkpoint
    int written = provider.checkpointsWritten.get();
    environment(0).dirty = true; // the page changed its own state since (a timer's cookie)
    environment(0).die(EnvironmentFault.Cause.RETIRING, "its node drains");
    assertEquals(written + 1, provider.checkpointsWritten.get(), "no checkpoint as it is now");
    assertFalse(lease.usable());
    lease.close();
    BrowserLease fresh = acquire(owner);
    assertEquals(
        "checkpoint-0-" + provider.checkpointsWritten.get(),
        provider.restoredFrom.get(provider.restoredFrom.size() - 1).ref());
    fresh.close();
  }

  @Test
  void theNextCallOnARetiringEnvironmentThatNeverIdledRunsOnTheNextEnvironment() throws Exception {
    start(AFTER_FAILURES_ONLY);
    Object owner = new Object();
    BrowserLease lease = acquire(owner);
    lease.navigate("https://example.test/account", BUDGET, Cancellation.none());
    provider.clickGate = new CountDownLatch(1);
    Observation o = lease.observe(BUDGET, Cancellation.none());
    Thread clicking = clickRunning(lease, o);
    environment(0).die(EnvironmentFault.Cause.RETIRING, "its node drains");
    provider.clickGate.countDown();
    clicking.join();
    // No idle check runs with these timeouts: the next call finds the retirement and carries it
    // out, failing as a call does that finds its browser gone (the caller runs it again).
    BrowserException e =
        assertThrows(BrowserException.class, () -> lease.observe(BUDGET, Cancellation.none()));
    assertTrue(e.rerunnable(), e.failureLine());
    assertTrue(e.getMessage().contains("its node drains"), e.getMessage());
    eventually("its browser is closed", () -> environment(0).closed);
    lease.close();
    BrowserLease fresh = acquire(owner);
    assertEquals(1, provider.restoredFrom.size());
    fresh.observe(BUDGET, Cancellation.none());
    fresh.close();
  }

  @Test
  void theFirstObservationAfterAFaultWhileNoCallRanSaysTheBrowserWasReplaced() throws Exception {
    start(SHORT);
    Object owner = new Object();
    BrowserLease lease = acquire(owner);
    lease.navigate("https://example.test/account", BUDGET, Cancellation.none());
    environment(0).die(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited");
    lease.close();
    BrowserLease fresh = acquire(owner);
    Observation first = fresh.observe(BUDGET, Cancellation.none());
    assertEquals(1, first.pageEvents().size(), first.pageEvents().toString());
    assertTrue(
        first.pageEvents().get(0).startsWith("the browser was replaced by a fresh one"),
        first.pageEvents().get(0));
    assertTrue(
        first
            .pageEvents()
            .get(0)
            .contains("Chromium exited; the last page was https://example.test/account"));
    assertTrue(fresh.observe(BUDGET, Cancellation.none()).pageEvents().isEmpty(), "told twice");
    fresh.close();
  }

  @Test
  void aPageThatStopsAnsweringWhileIdleIsFoundByTheLivenessCheck() throws Exception {
    start(SHORT);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    provider.probeGate = new CountDownLatch(1); // the page stops answering
    eventually("the wedged page is found and its browser discarded", () -> !lease.usable());
    eventually("the fault is in the audit trail", () -> recorded("fault").size() == 1);
    assertEquals("unresponsive", recorded("fault").get(0).cause());
    assertEquals(ErrorCode.BROWSER_UNRESPONSIVE, recorded("fault").get(0).error());
    eventually("its browser is closed", () -> environment(0).closed);
    lease.close();
  }

  @Test
  void aCallAfterAPauseChecksThePageFirstAndDoesNothingOnAWedgedOne() throws Exception {
    // No idle checks here: only the check before the call can find the wedge.
    start(new RuntimeSettings.Timeouts(200, 300, 100, 200, 600_000, 100, 2_000));
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    Thread.sleep(150);
    provider.probeGate = new CountDownLatch(1);
    int actions = environment(0).actions.size();
    BrowserException e =
        assertThrows(
            BrowserException.class,
            () -> lease.navigate("https://example.test/b", BUDGET, Cancellation.none()));
    assertEquals(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, e.code());
    assertTrue(e.rerunnable());
    assertTrue(
        e.getMessage().contains("did not answer a liveness check within 200 ms"), e.getMessage());
    assertEquals(
        actions, environment(0).actions.size(), "the navigation reached the wedged browser");
    lease.close();
  }

  @Test
  void aCallRightAfterAnotherDoesNotCheckThePageFirst() throws Exception {
    start(AFTER_FAILURES_ONLY);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    lease.observe(BUDGET, Cancellation.none());
    lease.observe(BUDGET, Cancellation.none());
    assertEquals(0, environment(0).probes.get());
    lease.close();
  }

  @Test
  void aFailedStepIsFollowedByALivenessCheck() throws Exception {
    start(AFTER_FAILURES_ONLY);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    Observation o = lease.observe(BUDGET, Cancellation.none());
    environment(0).clickFailure =
        new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, "Timeout 200ms exceeded");
    provider.probeGate = new CountDownLatch(1);
    BrowserException e =
        assertThrows(
            BrowserException.class, () -> lease.click(o.id(), "e1", BUDGET, Cancellation.none()));
    // The click's own failure, then the check that found the page wedged: the line says the browser
    // is gone.
    assertEquals(ErrorCode.BROWSER_UNRESPONSIVE, e.code());
    assertTrue(e.leaseRebuilt());
    assertEquals(1, environment(0).probes.get());
    lease.close();
  }

  @Test
  void aRefusalIsNotFollowedByALivenessCheck() throws Exception {
    start(AFTER_FAILURES_ONLY);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    Observation o = lease.observe(BUDGET, Cancellation.none());
    environment(0).clickFailure =
        new BrowserException(ErrorCode.BROWSER_POLICY_DENIED, "it opens a new page");
    assertEquals(
        ErrorCode.BROWSER_POLICY_DENIED,
        assertThrows(
                BrowserException.class,
                () -> lease.click(o.id(), "e1", BUDGET, Cancellation.none()))
            .code());
    assertEquals(0, environment(0).probes.get());
    assertTrue(lease.usable());
    lease.close();
  }

  @Test
  void anOpenThatDoesNotFinishInTimeIsStoppedAndSaysSo() throws Exception {
    start(new RuntimeSettings.Timeouts(200, 300, 100, 200, 50, 100, 300));
    provider.openGate = new CountDownLatch(1); // the browser never starts by itself
    provider.openFailsWhenCancelled = true;
    Thread stopper =
        new Thread(
            () -> {
              try {
                while (provider.lastOpenCancellation == null
                    || !provider.lastOpenCancellation.isCancelled()) {
                  Thread.sleep(5);
                }
              } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
              }
              provider.openGate.countDown(); // a cancelled open ends, as a killed browser's would
            });
    stopper.setDaemon(true);
    stopper.start();
    BrowserException e = assertThrows(BrowserException.class, () -> acquire(new Object()));
    assertEquals(ErrorCode.BROWSER_UNRESPONSIVE, e.code());
    assertTrue(e.getMessage().contains("did not start within 400 ms"), e.getMessage());
  }

  @Test
  void aFaultReportedAfterTheEnvironmentClosedIsIgnored() throws Exception {
    start(SHORT);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/a", BUDGET, Cancellation.none());
    lease.close();
    assertTrue(environment(0).closed);
    environment(0).die(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited as it was closed");
    assertTrue(recorded("fault").isEmpty());
    BrowserLease next = acquire(new Object());
    assertTrue(next.observe(BUDGET, Cancellation.none()).pageEvents().isEmpty());
    next.close();
  }

  @Test
  void aPersonsTimeToApproveACredentialFillIsNotTheBrowsers() throws Exception {
    // Approval takes three times the whole step bound (action, navigation, margin: 600 ms).
    CredentialChannel slowApproval =
        new CredentialChannel(
            java.util.Optional.empty(),
            java.util.Map.of("bank", "BANK_VAR"),
            java.util.Map.of("BANK_VAR", "hunter2")::get,
            true,
            java.util.Optional.of(
                (request, c) -> {
                  try {
                    Thread.sleep(1_800);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return dev.periscope.api.host.ApprovalDecision.ALLOW_ONCE;
                }),
            false);
    runtime =
        DefaultBrowserRuntime.builder(RuntimeSettings.defaults().with(SHORT))
            .credentials(slowApproval)
            .build();
    provider = new FakeProvider("fake", true, Set.of(Capability.SCREENSHOT, Capability.CHECKPOINT));
    runtime.registerProvider(provider);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/login", BUDGET, Cancellation.none());
    Observation o = lease.observe(BUDGET, Cancellation.none());
    var filled =
        lease.act(
            new dev.periscope.api.browser.BrowserAction.FillCredential(o.id(), "e3", "bank"),
            BUDGET,
            Cancellation.none());
    assertEquals(Transition.Outcome.SUCCEEDED, filled.transition().outcome());
    assertEquals(7, filled.result().chars());
    assertTrue(lease.usable());
    assertTrue(recorded("fault").isEmpty());
    lease.close();
  }

  @Test
  void aBrowserThatReplacesOneAFilledSecretWentIntoIsGuardedFromTheStart() throws Exception {
    CredentialChannel channel =
        new CredentialChannel(
            java.util.Optional.empty(),
            java.util.Map.of("bank", "BANK_VAR"),
            java.util.Map.of("BANK_VAR", "hunter2-canary")::get,
            true,
            java.util.Optional.of(
                (request, c) -> dev.periscope.api.host.ApprovalDecision.ALLOW_ONCE),
            false);
    runtime =
        DefaultBrowserRuntime.builder(RuntimeSettings.defaults().with(SHORT))
            .credentials(channel)
            .build();
    provider = new FakeProvider("fake", true, Set.of(Capability.SCREENSHOT, Capability.CHECKPOINT));
    runtime.registerProvider(provider);
    BrowserLease lease = acquire(new Object());
    lease.navigate("https://example.test/login", BUDGET, Cancellation.none());
    assertEquals(null, environment(0).egressGuard, "no secret, no guard");
    Observation o = lease.observe(BUDGET, Cancellation.none());
    lease.act(
        new dev.periscope.api.browser.BrowserAction.FillCredential(o.id(), "e3", "bank"),
        BUDGET,
        Cancellation.none());
    assertTrue(environment(0).egressGuard != null, "guarded as the secret went in");
    lease.close();
    // The browser dies while idle; the session goes on in a new one, which the page's stored data
    // (restored from the checkpoint) may have carried the secret into.
    environment(0).die(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited");
    BrowserLease next = acquire(new Object());
    next.observe(BUDGET, Cancellation.none());
    eventually("a second environment", () -> provider.environments.size() == 2);
    var guard = environment(1).egressGuard;
    assertTrue(guard != null, "the new browser is guarded before any fill");
    assertTrue(
        guard
            .refusal("https://elsewhere.test/?p=hunter2-canary", java.util.Map.of(), null)
            .isPresent(),
        "the secret still goes nowhere else");
    assertFalse(
        guard.refusal("https://elsewhere.test/?p=harmless", java.util.Map.of(), null).isPresent());
    next.close();
  }
}
