package dev.periscope.browser.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserEnvironment.ObservationBudget;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.Requirements;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;

class DefaultBrowserRuntimeTest {
  private static final ObservationBudget BUDGET = new ObservationBudget(1000, 10);
  private final DefaultBrowserRuntime runtime = new DefaultBrowserRuntime(Optional.empty());
  private final BrowserSessionId session = new BrowserSessionId("session-1");

  private BrowserLease acquire(Object owner) {
    return runtime.acquire(owner, session, Persistence.EPHEMERAL, Requirements.any(), Cancellation.none());
  }

  private static ErrorCode codeOf(Runnable r) {
    return assertThrows(BrowserException.class, r::run).code();
  }

  @Test
  void rejectsAnActionOnAnOlderObservationBeforeTheProviderRuns() {
    FakeProvider provider = new FakeProvider("fake", true);
    runtime.registerProvider(provider);
    BrowserLease lease = acquire(new Object());
    var first = lease.observe(BUDGET);
    var second = lease.observe(BUDGET);
    var e = assertThrows(BrowserException.class, () -> lease.click(first.id(), "e1", BUDGET));
    assertEquals(ErrorCode.BROWSER_STALE_REFERENCE, e.code());
    assertTrue(e.failureLine().contains("url=about:blank"), e.failureLine());
    assertTrue(provider.environments.get(0).actions.isEmpty());
    assertEquals(ErrorCode.BROWSER_STALE_REFERENCE, codeOf(() -> lease.click(second.id(), "e9", BUDGET)));
    assertEquals(ErrorCode.BROWSER_OBSERVATION_REQUIRED, codeOf(() -> lease.click("", "e1", BUDGET)));
    var t = lease.click(second.id(), "e1", BUDGET);
    assertEquals(List.of("click Advance"), provider.environments.get(0).actions);
    assertEquals(second.id(), t.beforeObservationId());
    assertNotEquals(second.id(), t.after().id());
  }

  @Test
  void mintsRefsInRankedOrderAndReportsTotals() {
    runtime.registerProvider(new FakeProvider("fake", true));
    var o = acquire(new Object()).observe(BUDGET);
    assertEquals(List.of("e1", "e2"), o.elements().stream().map(e -> e.ref()).toList());
    assertEquals("Advance", o.elements().get(0).name());
    assertEquals(2, o.totalElements());
    assertTrue(o.digest().startsWith("sha256:"));
  }

  @Test
  void refusesUrlsThatAreNotHttpOrCarryCredentials() {
    runtime.registerProvider(new FakeProvider("fake", true));
    BrowserLease lease = acquire(new Object());
    for (String url : List.of("file:///etc/passwd", "javascript:alert(1)", "ftp://x.test/", "https://user:pw@x.test/",
        "not a url", "http:///nohost")) {
      assertEquals(ErrorCode.BROWSER_INVALID_URL, codeOf(() -> lease.navigate(url, BUDGET)), url);
    }
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
        lease = runtime.acquire(owner, session, Persistence.EPHEMERAL, Requirements.any(), cancellation);
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

  private FakeProvider gatedProvider() {
    FakeProvider provider = new FakeProvider("fake", true);
    provider.openGate = new CountDownLatch(1);
    runtime.registerProvider(provider);
    return provider;
  }

  @Test
  void sharesOneOpenBetweenConcurrentAcquiresOfOneOwner() throws Exception {
    FakeProvider provider = gatedProvider();
    Object owner = new Object();
    Acquirer a = new Acquirer(owner, Cancellation.none()).waitingForTheOpen();
    Acquirer b = new Acquirer(owner, Cancellation.none()).waitingForTheOpen();
    provider.openGate.countDown();
    BrowserLease la = a.finish();
    BrowserLease lb = b.finish();
    assertEquals(1, provider.opens.get());
    assertEquals(la.environmentId(), lb.environmentId());
    la.close();
    assertFalse(provider.environments.get(0).closed, "closed before the last lease was released");
    lb.close();
    lb.close();
    assertTrue(provider.environments.get(0).closed);
  }

  @Test
  void theFirstCallersCancellationEndsOnlyItsOwnWait() throws Exception {
    FakeProvider provider = gatedProvider();
    Object owner = new Object();
    Cancellation first = Cancellation.none();
    Acquirer a = new Acquirer(owner, first).waitingForTheOpen();
    Acquirer b = new Acquirer(owner, Cancellation.none()).waitingForTheOpen();
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
    Cancellation only = Cancellation.none();
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
    Acquirer a = new Acquirer(owner, Cancellation.none()).waitingForTheOpen();
    Acquirer b = new Acquirer(owner, Cancellation.none()).waitingForTheOpen();
    b.interrupt();
    assertInstanceOf(CancellationException.class, b.failed());
    provider.openGate.countDown();
    a.finish().close();
    assertTrue(provider.environments.get(0).closed, "the interrupted waiter still counted");
  }

  @Test
  void givesDifferentOwnersSeparateEnvironmentsAndRejectsAnIncompatibleAcquire() {
    runtime.registerProvider(new FakeProvider("fake", true));
    Object owner = new Object();
    BrowserLease a = acquire(owner);
    BrowserLease b = acquire(new Object());
    assertNotEquals(a.environmentId(), b.environmentId());
    assertEquals(ErrorCode.BROWSER_OWNER_CONFLICT, codeOf(() -> runtime.acquire(owner, new BrowserSessionId("other"),
        Persistence.EPHEMERAL, Requirements.any(), Cancellation.none())));
    assertEquals(ErrorCode.BROWSER_OWNER_CONFLICT, codeOf(() -> runtime.acquire(owner, session,
        Persistence.RESUME, Requirements.any(), Cancellation.none())));
  }

  @Test
  void selectsWithoutRegardToRegistrationOrder() {
    assertEquals(ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, codeOf(() -> acquire(new Object())));
    runtime.registerProvider(new FakeProvider("zeta", false));
    var none = assertThrows(BrowserException.class, () -> acquire(new Object()));
    assertEquals(ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, none.code());
    assertTrue(none.getMessage().contains("zeta: install zeta with: apt-get install -y zeta"), none.getMessage());
    runtime.registerProvider(new FakeProvider("beta", true));
    runtime.registerProvider(new FakeProvider("alpha", true));
    var ambiguous = assertThrows(BrowserException.class, () -> acquire(new Object()));
    assertEquals(ErrorCode.BROWSER_PROVIDER_AMBIGUOUS, ambiguous.code());
    assertTrue(ambiguous.getMessage().contains("alpha, beta"), ambiguous.getMessage());
    assertEquals(ErrorCode.BROWSER_DUPLICATE_PROVIDER, codeOf(() -> runtime.registerProvider(new FakeProvider("beta", true))));
    var configured = new DefaultBrowserRuntime(Optional.of("zeta"));
    configured.registerProvider(new FakeProvider("zeta", false));
    var unavailable = assertThrows(BrowserException.class, () -> configured.acquire(new Object(), session,
        Persistence.EPHEMERAL, Requirements.any(), Cancellation.none()));
    assertEquals(ErrorCode.BROWSER_PROVIDER_CONFIGURED_UNAVAILABLE, unavailable.code());
    assertTrue(unavailable.getMessage().contains("apt-get install -y zeta"));
    var missing = new DefaultBrowserRuntime(Optional.of("nope"));
    assertEquals(ErrorCode.BROWSER_PROVIDER_CONFIGURED_MISSING, assertThrows(BrowserException.class,
        () -> missing.acquire(new Object(), session, Persistence.EPHEMERAL, Requirements.any(), Cancellation.none()))
        .code());
  }

  @Test
  void closingARegistrationClosesItsEnvironmentsAndDisposesTheProvider() throws Exception {
    FakeProvider provider = new FakeProvider("fake", true);
    AutoCloseable registration = runtime.registerProvider(provider);
    BrowserLease lease = acquire(new Object());
    registration.close();
    assertTrue(provider.environments.get(0).closed);
    assertTrue(provider.disposed);
    assertEquals(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, codeOf(() -> lease.observe(BUDGET)));
    assertEquals(ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, codeOf(() -> acquire(new Object())));
  }

}
