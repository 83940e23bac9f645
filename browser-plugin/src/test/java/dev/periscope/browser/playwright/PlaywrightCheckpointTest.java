package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserSessionId;
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
          String body =
              exchange.getRequestURI().getPath().equals("/settings")
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
      assertEquals(
          Optional.empty(),
          checkpointing.checkpointIfChanged(Optional.of(first)),
          "another page of the same origin changed nothing");
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
}
