package dev.periscope.browser.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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

  @Test
  void sharesOneOpenBetweenConcurrentAcquiresOfOneOwner() throws Exception {
    FakeProvider provider = new FakeProvider("fake", true);
    provider.openGate = new CountDownLatch(1);
    runtime.registerProvider(provider);
    Object owner = new Object();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<BrowserLease> a = pool.submit(() -> acquire(owner));
      Future<BrowserLease> b = pool.submit(() -> acquire(owner));
      Thread.onSpinWait();
      provider.openGate.countDown();
      BrowserLease la = a.get(10, TimeUnit.SECONDS);
      BrowserLease lb = b.get(10, TimeUnit.SECONDS);
      assertEquals(1, provider.opens.get());
      assertEquals(la.environmentId(), lb.environmentId());
      la.close();
      assertTrue(!provider.environments.get(0).closed, "closed before the last lease was released");
      lb.close();
      lb.close();
      assertTrue(provider.environments.get(0).closed);
    } finally {
      pool.shutdownNow();
    }
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

  @Test
  void aCancelledAcquireWaitsNoLongerAndLeavesNothingOpenWhenItWasTheOnlyWaiter() throws Exception {
    FakeProvider provider = new FakeProvider("fake", true);
    provider.openGate = new CountDownLatch(1);
    runtime.registerProvider(provider);
    Object owner = new Object();
    Cancellation mine = Cancellation.none();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<BrowserLease> opener = pool.submit(() -> acquire(owner));
      while (provider.opens.get() == 0) {
        Thread.onSpinWait();
      }
      Future<?> waiter = pool.submit(() -> runtime.acquire(owner, session, Persistence.EPHEMERAL, Requirements.any(), mine));
      mine.cancel();
      var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> waiter.get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof java.util.concurrent.CancellationException, String.valueOf(e.getCause()));
      provider.openGate.countDown();
      opener.get(10, TimeUnit.SECONDS).close();
      assertTrue(provider.environments.get(0).closed);
    } finally {
      pool.shutdownNow();
    }
  }
}
