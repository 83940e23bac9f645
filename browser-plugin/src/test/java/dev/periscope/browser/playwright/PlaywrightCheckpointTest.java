package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.api.browser.spi.BrowserProvider;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.api.browser.spi.CheckpointMissingException;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.api.browser.spi.CheckpointingEnvironment;
import dev.periscope.browser.BrowserSettings;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints on real Chromium: cookies and local storage written to a payload and read back by a
 * new context.
 */
class PlaywrightCheckpointTest {
  static HttpServer server;
  @TempDir Path data;

  @BeforeAll
  static void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String cookie = String.valueOf(exchange.getRequestHeaders().getFirst("Cookie"));
          String path = exchange.getRequestURI().getPath();
          String body =
              path.equals("/firebase-login")
                  ? FIREBASE_LOGIN
                  : path.equals("/whoami")
                      ? WHOAMI
                      : path.equals("/settings")
                          ? "<button onclick=\"localStorage.setItem('theme', 'light')\">Light</button>"
                          : exchange.getRequestURI().getPath().equals("/login")
                              ? "<script>localStorage.setItem('theme', 'dark')</script><p>in</p>"
                              : "<p>cookie "
                                  + (cookie.contains("sid=s3cr3t") ? "back" : "absent")
                                  + "</p><p id=t></p>"
                                  + "<script>document.getElementById('t').textContent = 'theme ' + localStorage.getItem('theme')</script>";
          byte[] bytes =
              ("<!doctype html><html><body>" + body + "</body></html>")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/html");
          if (exchange.getRequestURI().getPath().equals("/login")) {
            exchange
                .getResponseHeaders()
                .set("Set-Cookie", "sid=s3cr3t; Path=/; Max-Age=3600; HttpOnly");
          }
          exchange.sendResponseHeaders(200, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    server.start();
  }

  /**
   * A login kept as Firebase keeps it, in IndexedDB ({@code firebaseLocalStorageDb}), with a tab's
   * state in session storage; the title says when both are written.
   */
  static final String FIREBASE_LOGIN =
      """
      <script>
        sessionStorage.setItem('tab', 'tab-7');
        const open = indexedDB.open('firebaseLocalStorageDb', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('firebaseLocalStorage', { keyPath: 'fbase_key' });
        open.onsuccess = () => {
          const tx = open.result.transaction('firebaseLocalStorage', 'readwrite');
          tx.objectStore('firebaseLocalStorage').put({ fbase_key: 'firebase:authUser', value: { token: 'tok-123' } });
          tx.oncomplete = () => { open.result.close(); document.title = 'stored'; };
        };
      </script><p>signing in</p>""";

  /** Says who the IndexedDB login and the session storage say is signed in. */
  static final String WHOAMI =
      """
      <p id=s>session none</p><p id=i>idb none</p>
      <script>
        document.getElementById('s').textContent = 'session ' + (sessionStorage.getItem('tab') || 'none');
        const open = indexedDB.open('firebaseLocalStorageDb');
        open.onupgradeneeded = () => open.transaction.abort();
        open.onsuccess = () => {
          const get = open.result.transaction('firebaseLocalStorage').objectStore('firebaseLocalStorage').get('firebase:authUser');
          get.onsuccess = () => { document.getElementById('i').textContent = 'idb ' + (get.result ? get.result.value.token : 'none'); document.title = 'read'; };
        };
        open.onerror = () => { document.title = 'read'; };
      </script>""";

  /** Observes until the page's title is {@code title}, for at most 5 s. */
  private static String observeUntilTitled(BrowserEnvironment env, String title) throws Exception {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (true) {
      var o = env.observe(new ObservationBudget(1000, 10));
      if (o.title().equals(title) || System.nanoTime() > deadline) {
        return o.title() + " | " + o.text();
      }
      Thread.sleep(50);
    }
  }

  @AfterAll
  static void stop() {
    server.stop(0);
  }

  static String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** A provider that keeps its checkpoints in this test's directory. */
  private PlaywrightProvider checkpointingProvider() {
    return new PlaywrightProvider(
        BrowserSettings.from(LocalBrowser.LOOPBACK).playwright(),
        Optional.of(data.resolve("checkpoints")));
  }

  private static BrowserProvider.OpenRequest request(String session) {
    return new BrowserProvider.OpenRequest(
        new BrowserSessionId(session),
        Persistence.RESUME,
        BrowserSettings.from(LocalBrowser.LOOPBACK).runtime().environment());
  }

  @Test
  void aChangeToLocalStorageAloneIsCheckpointedAndNoChangeIsNot() throws Exception {
    PlaywrightProvider provider = checkpointingProvider();
    var request = request("session-ls");
    try (BrowserEnvironment env = provider.open(request, Cancellation.none())) {
      CheckpointingEnvironment checkpointing = (CheckpointingEnvironment) env;
      env.actions().navigate(new BrowserAction.Navigate(url("/login")));
      CheckpointRef first = checkpointing.checkpointIfChanged(Optional.empty()).orElseThrow();
      assertEquals(Optional.empty(), checkpointing.checkpointIfChanged(Optional.of(first)));
      env.actions().navigate(new BrowserAction.Navigate(url("/settings")));
      // Another page of the same origin changed no storage: the checkpoint is the last state
      // again, with the tab's new URL.
      CheckpointRef moved = checkpointing.checkpointIfChanged(Optional.of(first)).orElseThrow();
      String movedPayload = Files.readString(data.resolve("checkpoints").resolve(moved.ref()));
      assertTrue(movedPayload.contains(url("/settings")), movedPayload);
      assertEquals(Optional.empty(), checkpointing.checkpointIfChanged(Optional.of(moved)));
      first = moved;
      var page = env.observe(new ObservationBudget(1000, 10));
      env.actions()
          .click(
              new BrowserAction.Click("o", "e1"),
              page.elements().stream()
                  .filter(e -> e.name().equals("Light"))
                  .findFirst()
                  .orElseThrow());
      CheckpointRef second =
          checkpointing
              .checkpointIfChanged(Optional.of(first))
              .orElseThrow(() -> new AssertionError("local storage changed, nothing written"));
      String payload = Files.readString(data.resolve("checkpoints").resolve(second.ref()));
      assertTrue(payload.contains("light"), payload);
      assertEquals(Optional.empty(), checkpointing.checkpointIfChanged(Optional.of(second)));
    } finally {
      provider.dispose();
    }
  }

  @Test
  void aRestoredEnvironmentHasTheCookiesAndLocalStorageOfItsCheckpoint() throws Exception {
    PlaywrightProvider provider = checkpointingProvider();
    var request = request("session-cp");
    try {
      assertTrue(provider.capabilities().contains(Capability.CHECKPOINT));
      CheckpointRef saved;
      try (BrowserEnvironment env = provider.open(request, Cancellation.none())) {
        env.actions().navigate(new BrowserAction.Navigate(url("/login")));
        CheckpointingEnvironment checkpointing = (CheckpointingEnvironment) env;
        saved = checkpointing.checkpoint();
        assertEquals(
            Optional.empty(),
            checkpointing.checkpointIfChanged(Optional.of(saved)),
            "an unchanged state was written again");
      }
      assertEquals("playwright", saved.providerId());
      assertTrue(saved.providerVersion().startsWith("playwright-1.62.0/"), saved.providerVersion());
      String payload = Files.readString(data.resolve("checkpoints").resolve(saved.ref()));
      assertTrue(
          payload.contains("\"sid\"") && payload.contains("theme"),
          "cookies and localStorage: " + payload);

      try (BrowserEnvironment env = provider.restore(request, saved, Cancellation.none())) {
        // As the runtime does once the environment is ready.
        env.reopenSaved();
        env.actions().navigate(new BrowserAction.Navigate(url("/home")));
        String text = env.observe(new ObservationBudget(1000, 10)).text();
        assertTrue(text.contains("cookie back") && text.contains("theme dark"), text);
      }
      provider.destroyCheckpoint(saved);
      assertThrows(
          CheckpointMissingException.class,
          () -> provider.restore(request, saved, Cancellation.none()));
    } finally {
      provider.dispose();
    }
  }

  @Test
  void aDamagedCheckpointIsAClearErrorNamingTheWayOut() throws Exception {
    PlaywrightProvider provider = checkpointingProvider();
    var request = request("session-damaged");
    try {
      CheckpointRef saved;
      try (BrowserEnvironment env = provider.open(request, Cancellation.none())) {
        env.actions().navigate(new BrowserAction.Navigate(url("/login")));
        saved = ((CheckpointingEnvironment) env).checkpoint();
      }
      for (String damage : List.of("{\"cookies\": [", "[1, 2]", "{\"tabs\": {\"urls\": [{}]}}")) {
        Files.writeString(data.resolve("checkpoints").resolve(saved.ref()), damage);
        BrowserException e =
            assertThrows(
                BrowserException.class,
                () -> provider.restore(request, saved, Cancellation.none()),
                damage);
        assertEquals(ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE, e.code(), e.getMessage());
        assertTrue(
            e.getMessage().contains("the checkpoint of browser session session-damaged is damaged")
                && e.getMessage().contains("use browser_reset to start this session afresh"),
            e.getMessage());
      }
    } finally {
      provider.dispose();
    }
  }

  @Test
  void aLoginKeptInIndexedDbAndSessionStorageIsCheckpointedAndRestoredIntoAFreshPage()
      throws Exception {
    PlaywrightProvider provider = checkpointingProvider();
    var request = request("session-idb");
    try {
      CheckpointRef saved;
      try (BrowserEnvironment env = provider.open(request, Cancellation.none())) {
        CheckpointingEnvironment checkpointing = (CheckpointingEnvironment) env;
        env.actions().navigate(new BrowserAction.Navigate(url("/settings")));
        CheckpointRef before = checkpointing.checkpointIfChanged(Optional.empty()).orElseThrow();
        env.actions().navigate(new BrowserAction.Navigate(url("/firebase-login")));
        String seen = observeUntilTitled(env, "stored");
        assertTrue(seen.startsWith("stored"), seen);
        saved =
            checkpointing
                .checkpointIfChanged(Optional.of(before))
                .orElseThrow(
                    () ->
                        new AssertionError(
                            "IndexedDB and session storage changed, nothing written"));
        assertEquals(Optional.empty(), checkpointing.checkpointIfChanged(Optional.of(saved)));
      }
      String payload = Files.readString(data.resolve("checkpoints").resolve(saved.ref()));
      assertTrue(
          payload.contains("firebaseLocalStorageDb") && payload.contains("tok-123"), payload);
      assertTrue(payload.contains("\"sessionStorage\"") && payload.contains("tab-7"), payload);

      try (BrowserEnvironment env = provider.restore(request, saved, Cancellation.none())) {
        // As the runtime does once the environment is ready.
        env.reopenSaved();
        env.actions().navigate(new BrowserAction.Navigate(url("/whoami")));
        String seen = observeUntilTitled(env, "read");
        assertTrue(seen.contains("idb tok-123") && seen.contains("session tab-7"), seen);
        // The restore's own visits left no history behind: the page started as a new page and
        // reopened the checkpoint's URL, so going back reaches that page, then about:blank, and
        // no further.
        var back = new BrowserAction.History(BrowserAction.History.Move.BACK);
        env.actions().history(back);
        assertEquals(url("/firebase-login"), env.observe(new ObservationBudget(1000, 10)).url());
        env.actions().history(back);
        assertEquals("about:blank", env.observe(new ObservationBudget(1000, 10)).url());
        var none =
            assertThrows(
                dev.periscope.api.browser.BrowserException.class,
                () -> env.actions().history(back));
        assertTrue(none.getMessage().contains("no history entry"), none.getMessage());
      }
    } finally {
      provider.dispose();
    }
  }

  @Test
  void aRestoreReopensEveryTabAtItsUrlWithTheCurrentOneCurrent() throws Exception {
    PlaywrightProvider provider = checkpointingProvider();
    var request = request("session-tabs");
    try {
      CheckpointRef saved;
      try (BrowserEnvironment env = provider.open(request, Cancellation.none())) {
        CheckpointingEnvironment checkpointing = (CheckpointingEnvironment) env;
        env.actions().navigate(new BrowserAction.Navigate(url("/login")));
        env.actions()
            .tabs(new BrowserAction.Tabs(BrowserAction.Tabs.Move.OPEN, null, url("/settings")));
        env.actions()
            .tabs(new BrowserAction.Tabs(BrowserAction.Tabs.Move.OPEN, null, url("/home")));
        env.actions().tabs(new BrowserAction.Tabs(BrowserAction.Tabs.Move.SELECT, 2, null));
        saved = checkpointing.checkpointIfChanged(Optional.empty()).orElseThrow();
      }
      try (BrowserEnvironment env = provider.restore(request, saved, Cancellation.none())) {
        // As the runtime does once the environment is ready.
        env.reopenSaved();
        var o = env.observe(new ObservationBudget(1000, 10));
        assertEquals(url("/settings"), o.url());
        // The tab that was current comes first (its page holds the session storage kept), the
        // others after it in their order.
        assertEquals(
            java.util.List.of(url("/settings"), url("/login"), url("/home")),
            o.tabs().stream().map(dev.periscope.api.browser.PageTab::url).toList());
        assertEquals(
            java.util.List.of(true, false, false),
            o.tabs().stream().map(dev.periscope.api.browser.PageTab::active).toList());
        // The reopened tabs are the restored context's: its cookie and local storage are there.
        env.actions().tabs(new BrowserAction.Tabs(BrowserAction.Tabs.Move.SELECT, 3, null));
        String home = env.observe(new ObservationBudget(1000, 10)).text();
        assertTrue(home.contains("cookie back") && home.contains("theme dark"), home);
      }
    } finally {
      provider.dispose();
    }
  }

  @Test
  void indexedDbAndSessionStoragePastTheCapAreLeftOutAndCookiesAndLocalStorageKept()
      throws Exception {
    var config = LocalBrowser.withLoopback(java.util.Map.of("maxCheckpointStorageBytes", 10));
    PlaywrightProvider provider =
        new PlaywrightProvider(
            BrowserSettings.from(config).playwright(), Optional.of(data.resolve("capped")));
    try (BrowserEnvironment env = provider.open(request("session-cap"), Cancellation.none())) {
      env.actions().navigate(new BrowserAction.Navigate(url("/login")));
      env.actions().navigate(new BrowserAction.Navigate(url("/firebase-login")));
      observeUntilTitled(env, "stored");
      CheckpointRef saved = ((CheckpointingEnvironment) env).checkpoint();
      String payload = Files.readString(data.resolve("capped").resolve(saved.ref()));
      assertTrue(payload.contains("\"sid\"") && payload.contains("theme"), payload);
      assertTrue(!payload.contains("tok-123") && !payload.contains("tab-7"), payload);
    } finally {
      provider.dispose();
    }
  }
}
