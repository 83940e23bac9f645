package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.options.AriaSnapshotMode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * Plain Playwright on the system Chromium, the baseline benchmarks and corpus tests measure
 * against, and the loopback server of static pages they both load. It runs the Chromium the
 * provider runs headless ({@link Executables#chromium}: the headless shell when it is installed, as
 * Playwright itself does), so that both sides of a comparison drive the same browser.
 */
final class RawPlaywright {
  private RawPlaywright() {}

  /** The environment a driver of the tests runs with: no browser download, the system Node.js. */
  static final Map<String, String> DRIVER_ENV =
      Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1", "PLAYWRIGHT_NODEJS_PATH", "/usr/bin/node");

  static Playwright create() {
    return Playwright.create(new Playwright.CreateOptions().setEnv(DRIVER_ENV));
  }

  /** The Chromium the provider runs headless. */
  static Path chromium() {
    Executables.Lookup found = Executables.chromium(java.util.Optional.empty(), true);
    return found.path().orElseThrow(() -> new IllegalStateException(found.reason()));
  }

  static BrowserType.LaunchOptions launchOptions() {
    return new BrowserType.LaunchOptions()
        .setExecutablePath(chromium())
        .setArgs(
            List.of(
                "--no-sandbox",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run"));
  }

  static Browser launch(Playwright playwright) {
    return playwright.chromium().launch(launchOptions());
  }

  /** Playwright's AI aria snapshot of the page, as Playwright MCP shows a page. */
  static String aiSnapshot(Page page) {
    return page.ariaSnapshot(new Page.AriaSnapshotOptions().setMode(AriaSnapshotMode.AI));
  }

  /** Serves {@code pages} (path to HTML) on 127.0.0.1 from daemon threads; started. */
  static HttpServer serve(Map<String, String> pages) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(
        Executors.newFixedThreadPool(
            8,
            r -> {
              Thread t = new Thread(r, "static-pages");
              t.setDaemon(true);
              return t;
            }));
    server.createContext(
        "/",
        exchange -> {
          byte[] body =
              pages
                  .getOrDefault(exchange.getRequestURI().getPath(), "<title>x</title>")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    return server;
  }
}
