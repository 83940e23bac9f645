package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.options.Proxy;
import com.microsoft.playwright.options.WaitUntilState;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.policy.PolicyProxy;
import dev.periscope.browser.policy.Resolver;
import dev.periscope.browser.policy.Upstream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;

/**
 * Page-load time of a local page with 50 subresources, through the policy proxy and without it,
 * side by side in one Chromium and one process (rounds alternate, every round with fresh URLs so
 * nothing comes from the cache). Run with {@code ./bench}. Prints medians and the ratio; asserts
 * nothing.
 */
public final class ProxyBenchmark {
  private static final int ROUNDS = 15;
  private static final byte[] GIF =
      Base64.getDecoder().decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7");

  public static void main(String[] args) throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          byte[] body;
          if (path.startsWith("/r/")) {
            body = GIF;
            exchange.getResponseHeaders().set("Content-Type", "image/gif");
          } else {
            String round = String.valueOf(exchange.getRequestURI().getQuery());
            StringBuilder html = new StringBuilder("<!doctype html><html><head><title>50</title>");
            for (int i = 0; i < 10; i++) {
              html.append("<link rel=\"stylesheet\" href=\"/r/")
                  .append(i)
                  .append(".css?")
                  .append(round)
                  .append("\">");
            }
            html.append("</head><body>");
            for (int i = 10; i < 50; i++) {
              html.append("<img src=\"/r/").append(i).append(".gif?").append(round).append("\">");
            }
            body = html.append("</body></html>").toString().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          }
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/page?";
    DestinationPolicy policy = DestinationPolicy.from(LocalBrowser.LOOPBACK);
    try (PolicyProxy proxy = new PolicyProxy(policy, Resolver.system(), Upstream.direct());
        Playwright playwright =
            Playwright.create(
                new Playwright.CreateOptions()
                    .setEnv(
                        Map.of(
                            "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD",
                            "1",
                            "PLAYWRIGHT_NODEJS_PATH",
                            Executables.node(Optional.empty()).path().orElseThrow().toString())))) {
      List<String> launchArgs =
          new ArrayList<>(
              List.of("--disable-background-networking", "--no-first-run", "--disable-quic"));
      if ("root".equals(System.getProperty("user.name"))) {
        launchArgs.add("--no-sandbox");
      }
      Browser browser =
          playwright
              .chromium()
              .launch(
                  new BrowserType.LaunchOptions()
                      .setExecutablePath(
                          Executables.chromium(Optional.empty(), true).path().orElseThrow())
                      .setArgs(launchArgs));
      BrowserContext direct = browser.newContext();
      // As the provider does it: the proxy without Playwright credentials, taught to the context by
      // the bootstrap.
      BrowserContext proxied =
          browser.newContext(new Browser.NewContextOptions().setProxy(new Proxy(proxy.server())));
      Page withoutProxy = direct.newPage();
      Page withProxy = proxied.newPage();
      ProxyBootstrap.prime(withProxy, proxy);
      List<Long> plain = new ArrayList<>();
      List<Long> guarded = new ArrayList<>();
      for (int round = -2; round < ROUNDS; round++) {
        long a = load(withoutProxy, base + "d" + round);
        long b = load(withProxy, base + "p" + round);
        if (round >= 0) {
          plain.add(a);
          guarded.add(b);
        }
      }
      long p = median(plain);
      long g = median(guarded);
      System.out.printf(
          "page with 50 subresources, median of %d loads: without proxy %d ms, through the policy"
              + " proxy %d ms, ratio %.2f (goal: at most 1.30)%n",
          ROUNDS, p, g, (double) g / p);
      browser.close();
    } finally {
      server.stop(0);
      ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
  }

  private static long load(Page page, String url) {
    long start = System.nanoTime();
    page.navigate(url, new Page.NavigateOptions().setWaitUntil(WaitUntilState.LOAD));
    return (System.nanoTime() - start) / 1_000_000;
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
