package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.policy.Resolver;
import dev.periscope.browser.policy.Upstream;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.tools.ToolsForTests;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How a navigation ends, through the tools on real Chromium: a site that cannot be reached (nothing
 * listens, the name does not resolve, a certificate Chromium does not trust, no answer in time) is
 * {@code BROWSER_NAVIGATION_FAILED} naming the host and the cause; a site's own error status is a
 * page whose observation shows the status. Every server is on 127.0.0.1; {@code site.test} resolves
 * to it through the injected resolver, and any other name does not resolve.
 */
class NavigationResultsTest {
  static final long NAVIGATION_TIMEOUT_MS = 4000;
  static final long ACTION_TIMEOUT_MS = 4000;

  static HttpServer site;
  static HttpsServer tls;
  static ServerSocket silent;
  static final List<Socket> held = new CopyOnWriteArrayList<>();
  static final List<InetSocketAddress> offLoopback = new CopyOnWriteArrayList<>();
  static DefaultBrowserRuntime runtime;
  static PlaywrightProvider provider;
  static List<Tool> tools;
  static Path keys;

  static final Resolver RESOLVER =
      host -> {
        if (host.equals("site.test")) {
          return List.of(InetAddress.getByName("127.0.0.1"));
        }
        throw new UnknownHostException(host);
      };

  /** Loopback as itself; anything else refused and recorded, so nothing leaves the machine. */
  static final Upstream UPSTREAM =
      checked -> {
        if (!checked.getAddress().isLoopbackAddress()) {
          offLoopback.add(checked);
          throw new ConnectException("the test upstream refuses " + checked);
        }
        return checked;
      };

  @BeforeAll
  static void start() throws Exception {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext("/", e -> LocalBrowser.respond(e, page("Fine", "all is well")));
    site.createContext("/missing", e -> answer(e, 404, page("Not here", "no such page")));
    site.createContext("/broken", e -> answer(e, 500, page("Broken", "the server failed")));
    // A site that answers 502 and 403 itself, dressed up with the proxy's own marks.
    site.createContext(
        "/forged",
        e -> {
          e.getResponseHeaders().set("X-Periscope-Transport", "connection refused");
          answer(e, 502, page("Gateway", "the site's own bad gateway"));
        });
    site.createContext(
        "/forged-denial",
        e -> {
          e.getResponseHeaders().set("X-Periscope-Policy", "denied");
          answer(e, 403, page("Forbidden", "the site's own refusal"));
        });
    site.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    site.start();
    tls = selfSignedServer();
    silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread holder =
        new Thread(
            () -> {
              while (!silent.isClosed()) {
                try {
                  held.add(silent.accept());
                } catch (IOException e) {
                  return;
                }
              }
            },
            "silent-server");
    holder.setDaemon(true);
    holder.start();
    BrowserSettings settings =
        BrowserSettings.from(
            new PluginConfiguration(
                Map.of(
                    "persistence",
                    "ephemeral",
                    "navigationTimeoutMs",
                    NAVIGATION_TIMEOUT_MS,
                    "actionTimeoutMs",
                    ACTION_TIMEOUT_MS,
                    "network",
                    Map.of("mode", "allowlist", "allowCidrs", List.of("127.0.0.1/32")))));
    runtime = DefaultBrowserRuntime.builder(settings.runtime()).build();
    provider = new PlaywrightProvider(settings.playwright(), Optional.empty(), RESOLVER, UPSTREAM);
    runtime.registerProvider(provider);
    tools = ToolsForTests.tools(runtime, settings);
  }

  @AfterAll
  static void stop() throws IOException {
    ToolsForTests.close();
    if (runtime != null) {
      runtime.close();
      provider.dispose();
    }
    site.stop(0);
    tls.stop(0);
    silent.close();
    for (Socket s : held) {
      s.close();
    }
    if (keys != null) {
      PlaywrightProvider.deleteTree(keys);
    }
    assertEquals(List.of(), offLoopback, "a test dialled off loopback");
  }

  static String page(String title, String text) {
    return "<!doctype html><html><head><title>"
        + title
        + "</title></head><body><p>"
        + text
        + "</p></body></html>";
  }

  static void answer(com.sun.net.httpserver.HttpExchange e, int status, String html)
      throws IOException {
    byte[] body = html.getBytes(StandardCharsets.UTF_8);
    e.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    e.sendResponseHeaders(status, body.length);
    try (OutputStream out = e.getResponseBody()) {
      out.write(body);
    }
  }

  /** An HTTPS server on 127.0.0.1 with a certificate keytool made just now, trusted by nobody. */
  static HttpsServer selfSignedServer() throws Exception {
    keys = Files.createTempDirectory("navigation-results-keys-");
    Path store = keys.resolve("site.p12");
    Process keytool =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "site",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=127.0.0.1",
                "-ext",
                "san=ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    String out = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, out);
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, "changeit".toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "changeit".toCharArray());
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), null, null);
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(context));
    server.createContext("/", e -> LocalBrowser.respond(e, page("Secret", "over TLS")));
    server.start();
    return server;
  }

  static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  ToolResult call(String tool, Map<String, Object> args) {
    return tools.stream()
        .filter(t -> t.descriptor().name().equals(tool))
        .findFirst()
        .orElseThrow()
        .call(new ToolCall(args, "agent", Cancellation.none()));
  }

  /** Opens {@code path} of the test site. */
  ToolResult openOnSite(String path) {
    return call("browser_open", Map.of("url", "http://site.test:" + sitePort() + path));
  }

  /** {@code path} on the server that accepts connections and never answers. */
  static String silentUrl(String path) {
    return "http://127.0.0.1:" + silent.getLocalPort() + path;
  }

  static String code(ToolResult r) {
    Matcher m = Pattern.compile("code=([A-Z_]+)").matcher(r.text());
    return r.isError() && m.find() ? m.group(1) : "SUCCESS";
  }

  /** A navigation failure: the line, the structured error, and what the model should do next. */
  static void assertNavigationFailed(ToolResult r, String words) {
    List<String> lines = r.text().lines().toList();
    System.out.println("failure: " + lines.get(0) + " ... " + lines.get(lines.size() - 1));
    assertEquals("BROWSER_NAVIGATION_FAILED", code(r), r.text());
    assertTrue(r.text().contains(words), r.text());
    @SuppressWarnings("unchecked")
    Map<String, Object> error = (Map<String, Object>) r.structured().get("error");
    assertEquals("BROWSER_NAVIGATION_FAILED", error.get("code"));
    assertTrue(String.valueOf(error.get("message")).contains(words), error.toString());
    assertEquals("browser_open", error.get("recommended_action"));
    assertEquals(true, error.get("retryable"));
  }

  @Test
  void aPortWhereNothingListensFailsSayingConnectionRefused() throws IOException {
    int port = closedPort();
    assertNavigationFailed(
        call("browser_open", Map.of("url", "http://127.0.0.1:" + port + "/")),
        "127.0.0.1 could not be reached: connection refused");
    assertNavigationFailed(
        call("browser_open", Map.of("url", "https://127.0.0.1:" + port + "/")),
        "127.0.0.1 could not be reached: connection refused");
    // The browser is fine: the next open works.
    ToolResult fine = openOnSite("/");
    assertFalse(fine.isError(), fine.text());
  }

  @Test
  void aNameThatDoesNotResolveFailsSayingSo() {
    assertNavigationFailed(
        call("browser_open", Map.of("url", "http://nowhere.test/")),
        "nowhere.test could not be reached: the name does not resolve");
    assertNavigationFailed(
        call("browser_open", Map.of("url", "https://nowhere.test/")),
        "nowhere.test could not be reached: the name does not resolve");
  }

  @Test
  void aCertificateChromiumDoesNotTrustFailsNamingTheTlsError() {
    ToolResult r =
        call(
            "browser_open", Map.of("url", "https://127.0.0.1:" + tls.getAddress().getPort() + "/"));
    assertNavigationFailed(
        r, "127.0.0.1 could not be reached: TLS certificate error: net::ERR_CERT_");
  }

  @Test
  void aServerThatNeverAnswersFailsWithinTheNavigationTimeout() {
    long start = System.nanoTime();
    ToolResult r = call("browser_open", Map.of("url", silentUrl("/")));
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertNavigationFailed(r, "sent no response headers within " + NAVIGATION_TIMEOUT_MS + " ms");
    assertTrue(ms < NAVIGATION_TIMEOUT_MS + 4000, "took " + ms + " ms");
    ToolResult fine = openOnSite("/");
    assertFalse(fine.isError(), fine.text());
  }

  /**
   * A page whose image never arrives never fires its load event. The open stops waiting for it a
   * fifth of the navigation timeout early, so that what follows in the same call (the guards'
   * check, the observation) fits before the call's deadline, and the page is observed as it stands.
   */
  @Test
  void aPageThatNeverFinishesLoadingIsObservedBeforeTheNavigationTimeoutRunsOut() {
    String stalled =
        "<!doctype html><title>Stalled</title><p>the picture never comes</p>"
            + "<img src=\""
            + silentUrl("/never.png")
            + "\">";
    site.createContext("/stalled", e -> LocalBrowser.respond(e, stalled));

    ToolResult r = openOnSite("/stalled");

    assertFalse(r.isError(), r.text());
    assertTrue(r.text().contains("the picture never comes"), r.text());
    Matcher action = Pattern.compile("(\\d+)ms action").matcher(r.text());
    assertTrue(action.find(), r.text());
    long actionMs = Long.parseLong(action.group(1));
    assertTrue(
        actionMs < NAVIGATION_TIMEOUT_MS,
        "the open waited " + actionMs + " ms, its whole navigation timeout: " + r.text());
  }

  /**
   * A page titled {@code title}, with {@code more} in it, that never finishes loading and sends
   * itself, a quarter of the navigation timeout after it came, to the server that never answers.
   */
  private static String leaving(String title, String more) {
    return "<!doctype html><title>"
        + title
        + "</title><p>on its way</p>"
        + more
        + "<img src=\""
        + silentUrl("/never.png")
        + "\"><script>setTimeout(() => { location.href = '"
        + silentUrl("/nowhere")
        + "'; }, "
        + NAVIGATION_TIMEOUT_MS / 4
        + ");</script>";
  }

  /**
   * A page that never finishes loading and sends itself, as it waits, to a server that never
   * answers: the wait for that navigation's headers gets what is left of the open's navigation
   * timeout, not a timeout of its own on top, so the open fails as a navigation within its deadline
   * and the browser is kept. Waiting a whole navigation timeout more overran the open's deadline,
   * and the runtime discarded the browser as unresponsive.
   */
  @Test
  void aPageThatSendsItselfNowhereAsItLoadsFailsTheOpenWithinItsTimeoutAndKeepsTheBrowser() {
    String leaving = leaving("Leaving", "");
    site.createContext("/leaving", e -> LocalBrowser.respond(e, leaving));

    ToolResult r = openOnSite("/leaving");

    assertNavigationFailed(
        r,
        "the page started a navigation to 127.0.0.1, which had sent no response headers when the"
            + " action's time ran out; the page was closed");
    assertFalse(r.text().contains("lease=rebuilt"), r.text());
    ToolResult fine = openOnSite("/");
    assertFalse(fine.isError(), fine.text());
    assertFalse(fine.text().contains("a fresh"), fine.text());
  }

  /**
   * The same in the second of two tabs: the page given up is replaced in its own tab, which keeps
   * its number and stays current, instead of closing as if the page had closed itself (and the
   * agent's next open landing in tab 1, over the page it kept there); what it complained of is
   * still told.
   */
  @Test
  void aPageGivenUpForNoHeadersKeepsItsTabAndTheOtherTabsPage() {
    String leaving =
        leaving("Leaving too", "<script>console.error('leaving for nowhere')</script>");
    site.createContext("/leaving-too", e -> LocalBrowser.respond(e, leaving));
    assertFalse(openOnSite("/").isError());
    ToolResult second =
        call(
            "browser_tabs",
            Map.of("action", "open", "url", "http://site.test:" + sitePort() + "/"));
    assertTrue(second.text().startsWith("Opened tab 2 (2 open: 1, 2)"), second.text());

    ToolResult r = openOnSite("/leaving-too");

    assertNavigationFailed(r, "the page was closed and its tab given a fresh one");
    ToolResult after = call("browser_observe", Map.of());
    assertFalse(after.text().contains("closed itself"), after.text());
    // What the page given up complained of is told all the same.
    assertTrue(after.text().contains("console error: leaving for nowhere"), after.text());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> tabs =
        (List<Map<String, Object>>) LocalBrowser.observation(after).get("tabs");
    assertEquals(2, tabs.size(), after.text());
    assertEquals(Boolean.TRUE, tabs.get(1).get("active"), after.text());
    assertEquals(2, ((Number) tabs.get(1).get("id")).intValue(), after.text());
  }

  /**
   * A page that sends itself, between calls, to a server that never answers: Chromium runs no
   * script in it until that document comes, so the liveness checks let it be and the observation
   * says where it is going, instead of the browser being discarded as unresponsive.
   */
  @Test
  void aPageOnItsWayToAServerThatNeverAnswersIsObservedAsSuchAndKeepsItsBrowser() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean go = new java.util.concurrent.atomic.AtomicBoolean();
    site.createContext("/go", e -> answer(e, 200, go.get() ? "go" : "wait"));
    String waiting =
        "<!doctype html><title>Waiting</title><p>waiting for the word</p>"
            + "<button>Stay</button><script>"
            + "const poll = setInterval(async () => { if ((await (await fetch('/go')).text()) === 'go')"
            + " { clearInterval(poll); location.href = '"
            + silentUrl("/elsewhere")
            + "'; } }, 50);</script>";
    site.createContext("/waiting", e -> LocalBrowser.respond(e, waiting));
    ToolResult opened = openOnSite("/waiting");
    assertFalse(opened.isError(), opened.text());
    int heldBefore = held.size();

    go.set(true);
    long until = System.nanoTime() + 10_000_000_000L;
    while (held.size() == heldBefore && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    assertTrue(held.size() > heldBefore, "the page did not set off for the silent server");
    // Long enough for the idle liveness checks, which run every 2 s, to have looked at it.
    Thread.sleep(3_000);
    ToolResult stay = call("browser_click", LocalBrowser.target(opened, "Stay"));
    ToolResult shot = call("browser_screenshot", Map.of());
    ToolResult seen = call("browser_observe", Map.of());

    // Its elements cannot be reached, nor a picture taken, until the document comes: each says so
    // once the wait for it ends, instead of waiting out the call's whole bound.
    assertEquals("BROWSER_STALE_REFERENCE", code(stay), stay.text());
    assertTrue(
        stay.text().contains("the page is on its way to " + silentUrl("/elsewhere")), stay.text());
    assertEquals("BROWSER_ACTION_FAILED", code(shot), shot.text());
    assertTrue(shot.text().contains("the screenshot waits for that document"), shot.text());

    assertFalse(seen.isError(), seen.text());
    assertTrue(
        seen.text()
            .contains(
                "The page is on its way to "
                    + silentUrl("/elsewhere")
                    + ", which has not arrived yet"),
        seen.text());
    ToolResult fine = openOnSite("/");
    assertFalse(fine.isError(), fine.text());
    assertFalse(fine.text().contains("a fresh"), fine.text());
  }

  @Test
  void aSiteCannotPassItsOwnAnswerOffAsTheProxysFailureOrDenial() {
    ToolResult forged = openOnSite("/forged");
    assertFalse(forged.isError(), forged.text());
    assertTrue(forged.text().contains("HTTP status: 502"), forged.text());
    assertTrue(forged.text().contains("the site's own bad gateway"), forged.text());
    ToolResult denial = openOnSite("/forged-denial");
    assertFalse(denial.isError(), denial.text());
    assertTrue(denial.text().contains("HTTP status: 403"), denial.text());
  }

  @Test
  void aSitesOwnErrorStatusIsAPageThatShowsTheStatus() {
    ToolResult missing = openOnSite("/missing");
    assertFalse(missing.isError(), missing.text());
    assertTrue(missing.text().contains("HTTP status: 404"), missing.text());
    assertEquals(404, LocalBrowser.observation(missing).get("status"));
    assertTrue(missing.text().contains("no such page"), missing.text());
    ToolResult broken = openOnSite("/broken");
    assertFalse(broken.isError(), broken.text());
    assertTrue(broken.text().contains("HTTP status: 500"), broken.text());
    assertEquals(500, LocalBrowser.observation(broken).get("status"));
    ToolResult fine = openOnSite("/");
    assertFalse(fine.isError(), fine.text());
    assertFalse(fine.text().contains("HTTP status"), fine.text());
    System.out.println(
        "404: " + missing.text().lines().filter(l -> l.startsWith("HTTP status")).toList());
    assertEquals(200, LocalBrowser.observation(fine).getOrDefault("status", 200));
  }

  @Test
  void aClickWhoseNavigationFailsIsANavigationFailureAndOneToA404ShowsTheStatus()
      throws IOException {
    int port = closedPort();
    site.createContext(
        "/links",
        e ->
            LocalBrowser.respond(
                e,
                "<!doctype html><html><head><title>Links</title></head><body>"
                    + "<a href=\"http://127.0.0.1:"
                    + port
                    + "/\">Nowhere</a> <a href=\"/missing\">Missing</a></body></html>"));
    String links = "http://site.test:" + sitePort() + "/links";
    ToolResult page = call("browser_open", Map.of("url", links, "mode", "interactive"));
    assertFalse(page.isError(), page.text());
    assertNavigationFailed(
        call("browser_click", LocalBrowser.target(page, "Nowhere")),
        "127.0.0.1 could not be reached: connection refused");
    page = call("browser_open", Map.of("url", links, "mode", "interactive"));
    ToolResult missing = call("browser_click", LocalBrowser.target(page, "Missing"));
    assertFalse(missing.isError(), missing.text());
    assertTrue(missing.text().contains("HTTP status: 404"), missing.text());
    assertEquals(404, LocalBrowser.observation(missing).get("status"));
    ToolResult back = call("browser_back", Map.of());
    assertFalse(back.isError(), back.text());
    assertFalse(back.text().contains("HTTP status"), back.text());
  }

  static int sitePort() {
    return site.getAddress().getPort();
  }
}
