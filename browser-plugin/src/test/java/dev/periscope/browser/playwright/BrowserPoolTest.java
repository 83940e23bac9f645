package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.api.browser.spi.CallDeadline;
import dev.periscope.api.browser.spi.EnvironmentFault;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.policy.PolicyProxy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Environments that share one browser of the pool (its size set to 1, so every environment is a
 * context on the same Chromium and driver) keep their own cookies, storage, policy proxy and
 * faults; a wedged page holds the shared driver only until its call's bound or its abort.
 */
class BrowserPoolTest {
  private HttpServer server;
  private final ConcurrentLinkedQueue<String> arrivals = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> proxyAuthorizations = new ConcurrentLinkedQueue<>();
  private PlaywrightProvider provider;

  /** The provider of one browser that most tests share (the timeouts come with each request). */
  private static PlaywrightProvider shared;

  private static final String SET =
      """
      <!doctype html><title>Set</title><script>
      document.cookie = 'who=alice; path=/';
      localStorage.setItem('token', 'alice-storage');
      </script><p>set</p>""";

  private static final String SHOW =
      """
      <!doctype html><title>Show</title><p id=out></p><script>
      document.getElementById('out').textContent =
        'cookie=[' + document.cookie + '] storage=[' + (localStorage.getItem('token') || '') + ']';
      </script>""";

  private static final String WEDGE =
      """
      <!doctype html><title>Wedge</title><p>about to loop</p><script>
      setTimeout(() => { while (true) {} }, 1000);
      </script>""";

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    Map<String, String> pages = Map.of("/set", SET, "/show", SHOW, "/wedge", WEDGE);
    server.createContext(
        "/",
        exchange -> {
          arrivals.add(exchange.getRequestURI().getPath());
          String authorization = exchange.getRequestHeaders().getFirst("Proxy-Authorization");
          if (authorization != null) {
            proxyAuthorizations.add(authorization);
          }
          byte[] body =
              pages
                  .getOrDefault(exchange.getRequestURI().getPath(), "<p>other</p>")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  @AfterEach
  void stop() {
    if (provider != null && provider != shared) {
      provider.dispose();
    }
    server.stop(0);
  }

  @org.junit.jupiter.api.AfterAll
  static void disposeShared() {
    if (shared != null) {
      shared.dispose();
    }
  }

  private String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private static PluginConfiguration config(int browsers, Map<String, Object> more) {
    Map<String, Object> settings = new HashMap<>(more);
    settings.put("pool", Map.of("browsers", browsers, "prelaunch", false));
    return LocalBrowser.withLoopback(settings);
  }

  private PlaywrightProvider provider(PluginConfiguration config) {
    PlaywrightSettings settings = BrowserSettings.from(config).playwright();
    if (settings.browsers() == 1) {
      if (shared == null) {
        shared = new PlaywrightProvider(settings);
      }
      provider = shared;
    } else {
      provider = new PlaywrightProvider(settings);
    }
    return provider;
  }

  private BrowserEnvironment open(PluginConfiguration config) {
    return provider.open(LocalBrowser.request(config, Persistence.EPHEMERAL), Cancellation.none());
  }

  private String shown(BrowserEnvironment env) {
    env.actions().navigate(new BrowserAction.Navigate(url("/show")));
    return env.observe(new ObservationBudget(400, 10)).text();
  }

  /** Chromium's browser processes (the ones without a --type) among this JVM's descendants. */
  private static Set<Long> chromiumBrowsers() {
    return ProcessHandle.current()
        .descendants()
        .filter(p -> p.info().command().map(c -> c.contains("chrom")).orElse(false))
        .filter(p -> !cmdline(p).contains("--type="))
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }

  private static Set<Long> renderers() {
    return ProcessHandle.current()
        .descendants()
        .filter(p -> cmdline(p).contains("--type=renderer"))
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }

  private static String cmdline(ProcessHandle p) {
    try {
      return new String(
              Files.readAllBytes(Path.of("/proc", String.valueOf(p.pid()), "cmdline")),
              StandardCharsets.UTF_8)
          .replace('\0', ' ');
    } catch (IOException e) {
      return "";
    }
  }

  @Test
  void environmentsOnOneBrowserKeepTheirOwnCookiesAndStorage() {
    PluginConfiguration config = config(1, Map.of());
    provider(config);
    try (BrowserEnvironment alice = open(config);
        BrowserEnvironment bob = open(config)) {
      alice.actions().navigate(new BrowserAction.Navigate(url("/set")));
      assertTrue(shown(alice).contains("cookie=[who=alice] storage=[alice-storage]"), shown(alice));
      assertTrue(shown(bob).contains("cookie=[] storage=[]"), shown(bob));
      assertEquals(1, chromiumBrowsers().size(), "both are contexts of one Chromium");
    }
  }

  @Test
  void eachEnvironmentOnOneBrowserGoesThroughItsOwnPolicy() {
    PluginConfiguration loopback = config(1, Map.of());
    // The same browser, but this environment's policy is strict: loopback is never admitted.
    PluginConfiguration strict =
        new PluginConfiguration(
            Map.of(
                "pool", Map.of("browsers", 1, "prelaunch", false),
                "network", Map.of("mode", "strict")));
    provider(loopback);
    try (BrowserEnvironment admitted = open(loopback);
        BrowserEnvironment refused = open(strict)) {
      admitted.actions().navigate(new BrowserAction.Navigate(url("/show")));
      arrivals.clear();
      var e =
          assertThrows(
              BrowserException.class,
              () -> refused.actions().navigate(new BrowserAction.Navigate(url("/set"))));
      assertEquals(ErrorCode.BROWSER_POLICY_DENIED, e.code());
      // Its page's own requests go through its proxy too, not the other environment's.
      refused
          .actions()
          .navigate(new BrowserAction.Navigate("data:text/html,<img src='" + url("/set") + "'>"));
      refused.observe(new ObservationBudget(100, 5));
      admitted.actions().navigate(new BrowserAction.Navigate(url("/show")));
      assertTrue(arrivals.contains("/show"), "the admitted page arrived: " + arrivals);
      assertFalse(arrivals.contains("/set"), "the refused one never did: " + arrivals);
      assertEquals(1, chromiumBrowsers().size());
    }
  }

  /**
   * A page on the same browser cannot ride another environment's proxy: its request for that proxy
   * goes through its own proxy, arrives there without the other's credentials and in the wrong
   * form, and is refused; and no site ever receives a proxy's credentials.
   */
  @Test
  void aPageCannotUseAnotherEnvironmentsProxyAndNoSiteSeesAProxysCredentials() {
    PluginConfiguration config = config(1, Map.of());
    provider(config);
    try (BrowserEnvironment attacker = open(config);
        BrowserEnvironment victim = open(config)) {
      victim.actions().navigate(new BrowserAction.Navigate(url("/show")));
      PolicyProxy victims = ((PlaywrightEnvironment) victim).proxy();
      String throughVictim = "http://127.0.0.1:" + victims.port() + "/secret";

      String seen;
      try {
        attacker.actions().navigate(new BrowserAction.Navigate(throughVictim));
        seen = attacker.observe(new ObservationBudget(400, 10)).text();
      } catch (BrowserException refused) {
        seen = refused.getMessage();
      }
      // The page's own requests for it, as a script and as an image.
      attacker
          .actions()
          .navigate(
              new BrowserAction.Navigate(
                  "data:text/html,<script>fetch('"
                      + throughVictim
                      + "').catch(()=>{})</script><img src='"
                      + throughVictim
                      + "2'>"));
      attacker.observe(new ObservationBudget(100, 5));

      assertFalse(
          arrivals.stream().anyMatch(p -> p.startsWith("/secret")),
          "a request rode the victim's proxy: " + arrivals);
      assertEquals(List.of(), List.copyOf(proxyAuthorizations), "a site saw proxy credentials");
      assertFalse(seen.contains(victims.password()), "the victim's proxy password showed: " + seen);
      assertTrue(shown(victim).contains("cookie=[]"), "the victim's browser still works");
    }
  }

  @Test
  void aWedgedPageHoldsTheSharedDriverOnlyUntilItsCallsBoundThenTheOtherEnvironmentGoesOn()
      throws Exception {
    PluginConfiguration quick =
        config(1, Map.of("actionTimeoutMs", 1000, "navigationTimeoutMs", 1000));
    provider(quick);
    try (BrowserEnvironment wedged = open(quick);
        BrowserEnvironment other = open(quick)) {
      other.actions().navigate(new BrowserAction.Navigate(url("/set")));
      wedged.actions().navigate(new BrowserAction.Navigate(url("/wedge")));
      Thread.sleep(1_500);
      long start = System.nanoTime();
      // As the runtime hands an observation its deadline: the action timeout and the margin (2 s).
      var e =
          assertThrows(
              BrowserException.class,
              () ->
                  wedged.within(
                      CallDeadline.startingNow(1000, 2000),
                      () -> wedged.observe(new ObservationBudget(100, 5))));
      long wedgedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      // The provider's calls end at the deadline's answerBy: the timeout (1 s) and half the margin.
      assertTrue(
          e.getMessage().contains("did not answer within 2000 ms to a script"), e.getMessage());
      assertTrue(wedgedMs < Lane.UNANSWERED_MARGIN_MS, "took " + wedgedMs + " ms");
      assertTrue(shown(other).contains("cookie=[who=alice]"), "the other went on");
      assertEquals(1, chromiumBrowsers().size(), "the shared browser was not replaced");
    }
  }

  @Test
  void aWedgedPagesCallEndsHalfTheRuntimesMarginPastItsTimeout() throws Exception {
    // A provider of its own (2 browsers).
    PluginConfiguration quick =
        config(
            2,
            Map.of("actionTimeoutMs", 1000, "navigationTimeoutMs", 1000, "timeoutMarginMs", 600));
    provider(quick);
    try (BrowserEnvironment wedged = open(quick)) {
      wedged.actions().navigate(new BrowserAction.Navigate(url("/wedge")));
      Thread.sleep(1_500);
      var e =
          assertThrows(
              BrowserException.class,
              () ->
                  wedged.within(
                      CallDeadline.startingNow(1000, 600),
                      () -> wedged.observe(new ObservationBudget(100, 5))));
      // The action timeout (1 s) and half the runtime's margin (0.3 s): within the runtime's
      // deadline (1.6 s).
      assertTrue(
          e.getMessage().contains("did not answer within 1300 ms to a script"), e.getMessage());
    }
  }

  @Test
  void abortingOneEnvironmentEndsItsRunningCallAtOnceAndLeavesTheOtherOnTheBrowserAsItWas()
      throws Exception {
    PluginConfiguration config = config(1, Map.of());
    provider(config);
    Set<Long> browsers;
    try (BrowserEnvironment wedged = open(config);
        BrowserEnvironment other = open(config)) {
      other.actions().navigate(new BrowserAction.Navigate(url("/set")));
      browsers = chromiumBrowsers();
      wedged.actions().navigate(new BrowserAction.Navigate(url("/wedge")));
      Thread.sleep(1_500);
      CompletableFuture<Object> stuck =
          CompletableFuture.supplyAsync(() -> wedged.observe(new ObservationBudget(100, 5)));
      // The other's call waits its turn on the shared driver behind the wedged one.
      CompletableFuture<String> waiting = CompletableFuture.supplyAsync(() -> shown(other));
      Thread.sleep(500);
      assertFalse(stuck.isDone());
      long start = System.nanoTime();
      wedged.abort();
      var failure =
          assertThrows(
              java.util.concurrent.ExecutionException.class, () -> stuck.get(10, TimeUnit.SECONDS));
      assertNotNull(failure.getCause());
      String seen = waiting.get(10, TimeUnit.SECONDS);
      long afterAbortMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(afterAbortMs < 5_000, "the abort took " + afterAbortMs + " ms to free the driver");
      assertTrue(seen.contains("cookie=[who=alice] storage=[alice-storage]"), seen);
      var closed =
          assertThrows(BrowserException.class, () -> wedged.observe(new ObservationBudget(10, 1)));
      assertEquals(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, closed.code());
      assertEquals(browsers, chromiumBrowsers(), "the browser is the one it was");
    }
  }

  @Test
  void aCrashedRendererFaultsOnlyItsOwnEnvironment() throws Exception {
    PluginConfiguration config = config(1, Map.of());
    provider(config);
    try (BrowserEnvironment other = open(config)) {
      other.actions().navigate(new BrowserAction.Navigate(url("/set")));
      List<EnvironmentFault> othersFaults = new java.util.concurrent.CopyOnWriteArrayList<>();
      other.onFault(othersFaults::add);
      Set<Long> before = renderers();
      try (BrowserEnvironment crashing = open(config)) {
        CompletableFuture<EnvironmentFault> fault = new CompletableFuture<>();
        crashing.onFault(fault::complete);
        crashing.actions().navigate(new BrowserAction.Navigate(url("/show")));
        Set<Long> its = renderers();
        its.removeAll(before);
        assertFalse(its.isEmpty(), "no renderer of its own");
        for (long pid : its) {
          ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        assertEquals(EnvironmentFault.Cause.PAGE_CRASHED, fault.get(10, TimeUnit.SECONDS).cause());
        crashing.abort();
      }
      assertTrue(shown(other).contains("cookie=[who=alice]"), "the other went on");
      assertEquals(List.of(), othersFaults);
    }
  }

  @Test
  void newEnvironmentsTakeAnEmptyBrowserUntilThePoolIsFullThenShareTheLeastOccupied() {
    PluginConfiguration config = config(2, Map.of());
    Set<Long> others = chromiumBrowsers(); // the shared provider's
    provider(config);
    try (BrowserEnvironment a = open(config);
        BrowserEnvironment b = open(config);
        BrowserEnvironment c = open(config)) {
      Set<Long> started = chromiumBrowsers();
      started.removeAll(others);
      assertEquals(2, started.size(), "two browsers for three environments");
      for (BrowserEnvironment env : List.of(a, b, c)) {
        assertTrue(shown(env).contains("cookie=[]"));
      }
    }
  }

  @Test
  void thePoolSizeIsBoundedAndItsDefaultFollowsTheCores() {
    int cores = Runtime.getRuntime().availableProcessors();
    assertEquals(
        Math.min(Math.max(2, cores), 4),
        BrowserSettings.from(new PluginConfiguration(Map.of())).playwright().browsers());
    for (int size : List.of(0, 9)) {
      var e =
          assertThrows(
              RuntimeException.class,
              () ->
                  BrowserSettings.from(
                      new PluginConfiguration(Map.of("pool", Map.of("browsers", size)))));
      assertTrue(
          e.getMessage().contains("pool.browsers must be an integer from 1 to 8"), e.getMessage());
    }
  }
}
