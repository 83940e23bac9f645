package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import dev.periscope.browser.BrowserSettings;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Playwright provider against a real Chromium and pages served on 127.0.0.1. */
class PlaywrightProviderTest {
  static final String CANARY = "canary-pw-5521";
  static final Map<String, String> PAGES =
      Map.of(
          "/form",
              """
          <!doctype html><html><head><title>Form</title></head><body>
          <footer><a href="/legal">Legal</a></footer>
          <p>Intro <a href="/story">A story</a></p>
          <nav><a href="/">Home</a></nav>
          <form><label>User <input name="u" value="alice"></label>
            <label>Password <input type="password" name="p" value="%s"></label>
            <input type="hidden" name="h" value="%s-hidden">
            <button type="button" id="go" onclick="this.textContent='Done'">Go</button></form>
          <a href="/hidden" style="display:none">Invisible</a>
          </body></html>"""
                  .formatted(CANARY, CANARY),
          "/long", "<!doctype html><html><body><p>" + "x".repeat(100_000) + "</p></body></html>",
          "/links",
              """
          <!doctype html><html><head><title>Links</title></head><body>
          <a href="/slow">To the slow page</a></body></html>""",
          "/slow",
              """
          <!doctype html><html><head><title>Slow</title></head><body><p>Arrived</p>
          <script>const until = Date.now() + 300; while (Date.now() < until) {}</script></body></html>""",
          "/tall",
              "<!doctype html><html><body style='margin:0'><div style='height:3000px'>tall</div></body></html>");

  static HttpServer server;
  static final java.util.concurrent.CountDownLatch stallArrived =
      new java.util.concurrent.CountDownLatch(1);
  static final java.util.concurrent.CountDownLatch stallRelease =
      new java.util.concurrent.CountDownLatch(1);
  static PlaywrightProvider provider;

  @BeforeAll
  static void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String page =
              PAGES.getOrDefault(
                  exchange.getRequestURI().getPath(), "<html><body>other</body></html>");
          byte[] body = page.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.createContext(
        "/stall",
        exchange -> {
          stallArrived.countDown();
          try {
            stallRelease.await(30, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.createContext(
        "/hang",
        exchange -> {
          try {
            stallRelease.await(30, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
    provider = new PlaywrightProvider(BrowserSettings.from(LocalBrowser.LOOPBACK).playwright());
  }

  @AfterAll
  static void stop() {
    stallRelease.countDown();
    server.stop(0);
    if (provider != null) {
      provider.dispose();
    }
  }

  static String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  static BrowserEnvironment open() {
    return provider.open(
        LocalBrowser.request(LocalBrowser.LOOPBACK, Persistence.EPHEMERAL), Cancellation.none());
  }

  @Test
  void ranksControlsThenNavigationThenBodyLinksThenFooterLinksAndSkipsInvisibleOnes() {
    try (BrowserEnvironment env = open()) {
      env.actions().navigate(new BrowserAction.Navigate(url("/form")));
      ProviderObservation o = env.observe(new ObservationBudget(4000, 40));
      List<String> names = o.elements().stream().map(ProviderElement::name).toList();
      // The link of the bar at the top ranks with the controls, ahead of them.
      assertEquals(List.of("Home", "User", "Password", "Go", "A story", "Legal"), names);
      assertEquals(
          List.of(1, 1, 1, 1, 4, 5), o.elements().stream().map(ProviderElement::tier).toList());
      assertEquals("input:password", o.elements().get(2).kind());
      assertEquals("button", o.elements().get(3).role());
      assertEquals(6, o.totalElements());
    }
  }

  @Test
  void neverCarriesAPasswordOrHiddenValueAcross() {
    try (BrowserEnvironment env = open()) {
      env.actions().navigate(new BrowserAction.Navigate(url("/form")));
      ProviderObservation o = env.observe(new ObservationBudget(60_000, 100));
      String everything =
          o.toString() + o.elements().stream().map(Object::toString).collect(Collectors.joining());
      assertFalse(everything.contains(CANARY), everything);
      // A text field's value crosses as what it shows, and nothing else of it does.
      assertEquals("alice", o.elements().get(1).state().value(), everything);
      assertEquals(List.of("filled"), o.elements().get(2).state().flags(), everything);
      assertEquals(1, o.toString().split("alice", -1).length - 1, everything);
    }
  }

  @Test
  void clicksTheObservedElementAndRefusesOneThatChangedSinceItWasObserved() {
    try (BrowserEnvironment env = open()) {
      env.actions().navigate(new BrowserAction.Navigate(url("/form")));
      ProviderObservation before = env.observe(new ObservationBudget(4000, 40));
      ProviderElement go = before.elements().get(3);
      env.actions().click(new BrowserAction.Click("observation", "e1"), go);
      ProviderObservation after = env.observe(new ObservationBudget(4000, 40));
      assertEquals("Done", after.elements().get(3).name());
      // The same ordinal now holds a button with another name: acting on it would act on a
      // neighbour.
      var e =
          assertThrows(
              BrowserException.class,
              () -> env.actions().click(new BrowserAction.Click("observation", "e1"), go));
      assertEquals(ErrorCode.BROWSER_STALE_REFERENCE, e.code());
    }
  }

  @Test
  void observesTheNewPageAfterAClickThatNavigates() {
    try (BrowserEnvironment env = open()) {
      env.actions().navigate(new BrowserAction.Navigate(url("/links")));
      ProviderObservation before = env.observe(new ObservationBudget(4000, 40));
      env.actions().click(new BrowserAction.Click("observation", "e1"), before.elements().get(0));
      ProviderObservation after = env.observe(new ObservationBudget(4000, 40));
      assertEquals(url("/slow"), after.url());
      assertEquals("Slow", after.title());
      assertTrue(after.text().contains("Arrived"), after.text());
    }
  }

  @Test
  void anAbortStopsANavigationThatIsStillWaitingForItsServer() throws Exception {
    BrowserEnvironment env = open();
    Throwable[] failure = new Throwable[1];
    Thread navigating =
        new Thread(
            () -> {
              try {
                env.actions().navigate(new BrowserAction.Navigate(url("/stall")));
              } catch (Throwable e) {
                failure[0] = e;
              }
            });
    navigating.start();
    stallArrived.await(30, java.util.concurrent.TimeUnit.SECONDS);
    // What the log says of a stopped call: where the lane was held.
    String at = ((PlaywrightEnvironment) env).laneAt();
    assertTrue(
        at.startsWith("PageImpl.navigate:") && at.contains(" < NavigationRoom.navigateOnce:"), at);
    env.abort();
    navigating.join(30_000);
    // The server still holds the response: only the abort can have ended the navigation.
    assertEquals(1, stallRelease.getCount());
    assertFalse(navigating.isAlive());
    assertTrue(failure[0] instanceof BrowserException, String.valueOf(failure[0]));
    env.close();
    var e = assertThrows(BrowserException.class, () -> env.observe(new ObservationBudget(10, 10)));
    assertEquals(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, e.code());
    // The abort closed that environment's context only: the browser serves the next one.
    try (BrowserEnvironment next = open()) {
      next.actions().navigate(new BrowserAction.Navigate(url("/form")));
      assertEquals("Form", next.observe(new ObservationBudget(100, 10)).title());
    }
  }

  @Test
  void slicesPageTextInsideChromiumAndReportsTheTotal() {
    try (BrowserEnvironment env = open()) {
      env.actions().navigate(new BrowserAction.Navigate(url("/long")));
      ProviderObservation o = env.observe(new ObservationBudget(60_000, 10));
      assertEquals(60_000, o.text().length());
      assertEquals(100_000, o.totalTextChars());
    }
  }

  @Test
  void takesViewportAndFullPagePngScreenshots() {
    try (BrowserEnvironment env = open()) {
      env.actions().navigate(new BrowserAction.Navigate(url("/tall")));
      var viewport = env.screenshot(false);
      assertEquals(1280, viewport.width());
      assertEquals(720, viewport.height());
      assertEquals((byte) 0x89, viewport.png()[0]);
      assertEquals("PNG", new String(viewport.png(), 1, 3, StandardCharsets.US_ASCII));
      var full = env.screenshot(true);
      assertEquals(3000, full.height());
    }
  }

  @Test
  void refusesScreenshotsOverThePixelBudgetBeforeCaptureAndOverTheByteBudgetAfterEncoding() {
    var smallBudget =
        LocalBrowser.withLoopback(
            Map.of("maxScreenshotPixels", 1280 * 720 + 1, "maxScreenshotBytes", 20_000_000));
    var tinyBudget = LocalBrowser.withLoopback(Map.of("maxScreenshotBytes", 100));
    var small = new PlaywrightProvider(BrowserSettings.from(smallBudget).playwright());
    var tiny = new PlaywrightProvider(BrowserSettings.from(tinyBudget).playwright());
    try {
      try (BrowserEnvironment env =
          small.open(
              LocalBrowser.request(smallBudget, Persistence.EPHEMERAL), Cancellation.none())) {
        env.actions().navigate(new BrowserAction.Navigate(url("/tall")));
        assertEquals(720, env.screenshot(false).height());
        var e = assertThrows(BrowserException.class, () -> env.screenshot(true));
        assertEquals(ErrorCode.BROWSER_POLICY_DENIED, e.code());
        assertTrue(
            e.getMessage().contains("3840000 device pixels, over the budget of 921601"),
            e.getMessage());
      }
      try (BrowserEnvironment env =
          tiny.open(LocalBrowser.request(tinyBudget, Persistence.EPHEMERAL), Cancellation.none())) {
        env.actions().navigate(new BrowserAction.Navigate(url("/form")));
        var e = assertThrows(BrowserException.class, () -> env.screenshot(false));
        assertEquals(ErrorCode.BROWSER_POLICY_DENIED, e.code());
        assertTrue(e.getMessage().contains("bytes as PNG, over the budget of 100"), e.getMessage());
      }
    } finally {
      small.dispose();
      tiny.dispose();
    }
  }

  @Test
  void givesUpAPageWhoseNavigationGetsNoResponseHeadersInTimeAndOpensAFreshOne() {
    var quickNavigation = LocalBrowser.withLoopback(Map.of("navigationTimeoutMs", 500));
    var impatient = new PlaywrightProvider(BrowserSettings.from(quickNavigation).playwright());
    try (BrowserEnvironment env =
        impatient.open(
            LocalBrowser.request(quickNavigation, Persistence.EPHEMERAL), Cancellation.none())) {
      env.actions().navigate(new BrowserAction.Navigate(url("/form")));
      var e =
          assertThrows(
              BrowserException.class,
              () -> env.actions().navigate(new BrowserAction.Navigate(url("/hang"))));
      assertEquals(ErrorCode.BROWSER_NAVIGATION_FAILED, e.code());
      assertTrue(e.getMessage().contains("sent no response headers within 500 ms"), e.getMessage());
      ProviderObservation after = env.observe(new ObservationBudget(100, 10));
      assertEquals("about:blank", after.url(), "the stuck page was not replaced");
      env.actions().navigate(new BrowserAction.Navigate(url("/form")));
      assertEquals("Form", env.observe(new ObservationBudget(100, 10)).title());
    } finally {
      impatient.dispose();
    }
  }

  @Test
  void isUnavailableWithTheInstallCommandWhenChromiumIsMissing() {
    var missing =
        new PlaywrightProvider(
            BrowserSettings.from(
                    LocalBrowser.withLoopback(
                        Map.of("chromium", Map.of("executable", "/nonexistent/chromium"))))
                .playwright());
    assertFalse(missing.available());
    String reason = missing.unavailableReason().orElseThrow();
    assertTrue(reason.contains("/nonexistent/chromium"), reason);
    assertTrue(reason.contains("apt-get install -y chromium"), reason);
  }

  @Test
  void disposingLeavesNoProcessThreadOrTempDirectoryBehind() throws Exception {
    Set<java.nio.file.Path> dirsBefore = tempRoots();
    long threadsBefore = playwrightThreads();
    Set<Long> before =
        ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    var own = new PlaywrightProvider(BrowserSettings.from(LocalBrowser.LOOPBACK).playwright());
    BrowserEnvironment env =
        own.open(
            LocalBrowser.request(LocalBrowser.LOOPBACK, Persistence.EPHEMERAL),
            Cancellation.none());
    env.actions().navigate(new BrowserAction.Navigate(url("/form")));
    // Its driver is this JVM's new child; Chromium and the rest are the driver's. (The other
    // tests' provider starts renderers meanwhile, but no child of this JVM.)
    List<ProcessHandle> started =
        ProcessHandle.current()
            .children()
            .filter(p -> !before.contains(p.pid()))
            .flatMap(
                p -> java.util.stream.Stream.concat(java.util.stream.Stream.of(p), p.descendants()))
            .toList();
    assertTrue(started.size() >= 2, "expected a Node.js driver and Chromium, saw " + started);
    Set<java.nio.file.Path> made = tempRoots();
    made.removeAll(dirsBefore);
    assertEquals(1, made.size(), "the provider keeps everything under one temp root: " + made);
    assertEquals(threadsBefore + 1, playwrightThreads());
    env.close();
    own.dispose();
    for (ProcessHandle p : started) {
      p.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertFalse(p.isAlive(), "still running: " + p.pid() + " " + p.info().command().orElse(""));
    }
    assertFalse(java.nio.file.Files.exists(made.iterator().next()), "left behind: " + made);
    assertEquals(threadsBefore, playwrightThreads());
  }

  private static Set<java.nio.file.Path> tempRoots() throws java.io.IOException {
    try (var dirs =
        java.nio.file.Files.list(java.nio.file.Path.of(System.getProperty("java.io.tmpdir")))) {
      return dirs.filter(d -> d.getFileName().toString().startsWith("periscope-"))
          .collect(Collectors.toCollection(java.util.HashSet::new));
    }
  }

  private static long playwrightThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("periscope-playwright-") && t.isAlive())
        .count();
  }
}
