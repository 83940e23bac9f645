package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.policy.Resolver;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.tools.ToolsForTests;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The cdp provider against a Chromium the test starts as a user would, with {@code
 * --remote-debugging-port} on loopback and a tab of the user's open: the agent works in a tab of
 * its own, the user's tabs stay as they were, closing only detaches, and the network policy holds
 * by request-level enforcement where the project accepts it (refused without). The user's Chromium
 * sends what it does not go direct to through a proxy where nothing listens, so nothing it is asked
 * for leaves this machine; the site is served on 127.0.0.9, the only address the policy admits.
 */
class CdpProviderTest {
  static final Path CORPUS = Path.of("src/test/resources/corpora/ssrf_payloads.txt");
  static final HttpClient HTTP =
      HttpClient.newBuilder().proxy(java.net.ProxySelector.of(null)).build();

  static HttpServer site;
  static final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
  static final Map<String, String> pages = new ConcurrentHashMap<>();
  static Process userChromium;
  static Path userProfile;
  static URI devtools;

  DefaultBrowserRuntime runtime;
  PlaywrightProvider provider;
  List<Tool> tools;

  @BeforeAll
  static void startTheUsersChromium() throws Exception {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.9"), 0), 0);
    pages.put(
        "/user",
        "<!doctype html><title>User's mail</title><body><p id=draft>half-written draft</p></body>");
    pages.put(
        "/agent",
        "<!doctype html><title>Counter</title><body><button onclick=\"this.textContent="
            + "'Clicked ' + (++window.n || (window.n = 1))\">Count</button></body>");
    site.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          requests.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
          if (path.equals("/file.bin")) {
            byte[] body = "a file".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
            exchange
                .getResponseHeaders()
                .set("Content-Disposition", "attachment; filename=file.bin");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
            return;
          }
          if (path.startsWith("/redirect")) {
            // An admitted site that sends the browser on to an internal address.
            exchange.getResponseHeaders().set("Location", "http://127.0.0.1:80" + path);
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
            return;
          }
          LocalBrowser.respond(
              exchange, pages.getOrDefault(path, "<!doctype html><title>Site</title>site page"));
        });
    site.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    site.start();
    userProfile = Files.createTempDirectory("cdp-user-profile-");
    List<String> command =
        new ArrayList<>(
            List.of(
                Executables.chromium(java.util.Optional.empty(), false)
                    .path()
                    .orElseThrow()
                    .toString(),
                "--headless",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--user-data-dir=" + userProfile,
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--no-default-browser-check",
                // Loopback goes direct; anything else to a proxy where nothing listens.
                "--proxy-server=http://127.0.0.1:9"));
    if ("root".equals(System.getProperty("user.name"))) {
      command.add("--no-sandbox");
    }
    command.add(siteUrl("/user"));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(userProfile.resolve("chromium.log").toFile());
    // What it keeps in the temp directory goes with its profile, however it ends.
    builder
        .environment()
        .put("TMPDIR", Files.createDirectory(userProfile.resolve("tmp")).toString());
    // Its downloads go under the profile too (HOME/Downloads), where the tests look for them.
    builder.environment().put("HOME", userProfile.toString());
    userChromium = builder.start();
    Path portFile = userProfile.resolve("DevToolsActivePort");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!Files.exists(portFile) || Files.readAllLines(portFile).isEmpty()) {
      assertTrue(userChromium.isAlive(), "the user's Chromium exited");
      assertTrue(System.nanoTime() < until, "the user's Chromium opened no DevTools port");
      Thread.sleep(50);
    }
    devtools = URI.create("http://127.0.0.1:" + Files.readAllLines(portFile).get(0).strip());
    until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!requests.containsKey("/user")) {
      assertTrue(System.nanoTime() < until, "the user's tab did not open: " + userTabs());
      Thread.sleep(50);
    }
  }

  @AfterAll
  static void stopTheUsersChromium() throws Exception {
    if (userChromium != null) {
      userChromium.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      userChromium.destroyForcibly();
      userChromium.waitFor(10, TimeUnit.SECONDS);
    }
    if (site != null) {
      site.stop(0);
    }
    PlaywrightProvider.deleteTree(userProfile);
  }

  static String siteUrl(String path) {
    return "http://127.0.0.9:" + site.getAddress().getPort() + path;
  }

  /** The URLs of the pages the user's Chromium has open, from its own DevTools listing. */
  static List<String> userTabs() throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(devtools.resolve("/json/list")).build(),
            HttpResponse.BodyHandlers.ofString());
    List<String> urls = new ArrayList<>();
    for (JsonElement e : JsonParser.parseString(r.body()).getAsJsonArray()) {
      if ("page".equals(e.getAsJsonObject().get("type").getAsString())) {
        urls.add(e.getAsJsonObject().get("url").getAsString());
      }
    }
    return urls;
  }

  /**
   * Names that resolve as DNS would answer them for the corpus (to loopback, private and metadata
   * addresses); every other name does not resolve, so no request to it is let through.
   */
  static Resolver corpusDns() {
    return host ->
        switch (host) {
          case "localtest.me",
              "localh.st",
              "spoofed.burpcollaborator.net",
              "spoofed.redacted.oastify.com" ->
              List.of(InetAddress.getByName("127.0.0.1"));
          case "bugbounty.dod.network" -> List.of(InetAddress.getByName("127.0.0.2"));
          case "ip6-localhost", "ip6-loopback" -> List.of(InetAddress.getByName("::1"));
          case "metadata.google.internal", "metadata" ->
              List.of(InetAddress.getByName("169.254.169.254"));
          default -> throw new UnknownHostException(host);
        };
  }

  void attach(Map<String, Object> network, boolean requestLevelPolicy) {
    Map<String, Object> config = new HashMap<>();
    config.put("persistence", "ephemeral");
    config.put("provider", "cdp");
    config.put("network", network);
    config.put("cdp", Map.of("url", devtools.toString(), "requestLevelPolicy", requestLevelPolicy));
    BrowserSettings settings = BrowserSettings.from(new PluginConfiguration(config));
    runtime = DefaultBrowserRuntime.builder(settings.runtime()).build();
    provider =
        PlaywrightProvider.cdp(
            settings.playwright(),
            corpusDns(),
            // Nothing of the cdp provider dials through the policy proxy: the browser is the
            // user's.
            checked -> {
              throw new java.net.ConnectException("the cdp provider's proxy is never used");
            });
    runtime.registerProvider(provider);
    tools = ToolsForTests.tools(runtime, settings);
  }

  /** The names of the policy proxies' server threads now running. */
  static java.util.Set<String> proxyThreads() {
    java.util.Set<String> names = new java.util.HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("periscope-proxy-")) {
        names.add(t.getName());
      }
    }
    return names;
  }

  static Map<String, Object> allowlist() {
    return Map.of("mode", "allowlist", "allowCidrs", List.of("127.0.0.9/32"));
  }

  @AfterEach
  void detach() {
    ToolsForTests.close();
    if (runtime != null) {
      runtime.close();
      provider.dispose();
    }
  }

  ToolResult call(String tool, Map<String, Object> args) {
    return tools.stream()
        .filter(t -> t.descriptor().name().equals(tool))
        .findFirst()
        .orElseThrow()
        .call(new ToolCall(args, "agent", Cancellation.none()));
  }

  @Test
  void theAgentWorksInATabOfItsOwnAndClosingOnlyDetaches() throws Exception {
    attach(allowlist(), true);
    int userPageLoads = requests.get("/user").get();
    java.util.Set<String> proxiesBefore = proxyThreads();
    ToolResult opened = call("browser_open", Map.of("url", siteUrl("/agent")));
    assertFalse(opened.isError(), opened.text());
    java.util.Set<String> proxiesAfter = proxyThreads();
    proxiesAfter.removeAll(proxiesBefore);
    assertEquals(
        java.util.Set.of(),
        proxiesAfter,
        "a policy proxy started for a browser whose requests it never sees");
    assertTrue(opened.text().contains("Counter"), opened.text());
    ToolResult clicked = call("browser_click", LocalBrowser.target(opened, "Count"));
    assertFalse(clicked.isError(), clicked.text());
    assertTrue(clicked.text().contains("Clicked 1"), clicked.text());
    assertTrue(userTabs().contains(siteUrl("/agent")), userTabs().toString());
    assertTrue(userTabs().contains(siteUrl("/user")), userTabs().toString());

    // The user opens a tab of their own while the agent works: it is none of the agent's.
    HttpResponse<String> mine =
        HTTP.send(
            HttpRequest.newBuilder(devtools.resolve("/json/new?" + siteUrl("/mine")))
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, mine.statusCode(), mine.body());
    ToolResult again = call("browser_observe", Map.of());
    assertFalse(again.isError(), again.text());
    assertTrue(again.text().contains("Tab: 1 of 1"), again.text());
    ToolResult tabs = call("browser_tabs", Map.of("action", "list"));
    assertFalse(tabs.text().contains("/mine"), tabs.text());

    // A download the agent's tab starts does not land in the user's downloads.
    call("browser_open", Map.of("url", siteUrl("/file.bin")));
    Thread.sleep(1000);
    assertEquals(1, requests.get("/file.bin").get(), "the file was asked for");
    try (var downloaded = Files.walk(userProfile)) {
      assertEquals(
          List.of(),
          downloaded
              .filter(p -> p.getFileName().toString().startsWith("file"))
              .map(Path::toString)
              .toList(),
          "the agent's download landed in the user's browser");
    }
    ToolsForTests.endSession("agent");
    List<String> journal =
        runtime.transitions().stream()
            .filter(t -> t.action().containsKey("cause"))
            .map(t -> t.action().get("kind") + " " + t.action().get("cause"))
            .toList();
    assertEquals(2, journal.size(), journal.toString());
    assertTrue(
        journal.get(0).matches("attach attached to \\S+ at " + devtools), journal.toString());
    assertTrue(
        journal.get(1).matches("detach attached to \\S+ at " + devtools), journal.toString());
    runtime.close();
    provider.dispose();
    runtime = null;
    List<String> left = userTabs();
    assertFalse(left.contains(siteUrl("/agent")), "the agent's tab closed: " + left);
    assertTrue(left.contains(siteUrl("/user")), "the user's tab stays: " + left);
    assertTrue(left.contains(siteUrl("/mine")), "the tab the user opened stays: " + left);
    assertEquals(userPageLoads, requests.get("/user").get(), "the user's page was not reloaded");
    assertTrue(userChromium.isAlive(), "the user's Chromium runs on");
    assertEquals(
        List.of(),
        ProcessHandle.current()
            .descendants()
            .filter(p -> p.pid() != userChromium.pid())
            .filter(p -> userChromium.toHandle().descendants().noneMatch(c -> c.pid() == p.pid()))
            .filter(ProcessHandle::isAlive)
            .map(p -> p.info().command().orElse("?"))
            .toList(),
        "no driver is left running");
  }

  @Test
  void aBlankTabOfTheUsersThatAppearsAsTheAgentsOpensStaysTheUsers() throws Exception {
    String[] users = new String[1];
    try (com.microsoft.playwright.Playwright playwright = RawPlaywright.create();
        dev.periscope.browser.policy.PolicyProxy judge =
            new dev.periscope.browser.policy.PolicyProxy(
                dev.periscope.browser.policy.DestinationPolicy.strict(),
                corpusDns(),
                dev.periscope.browser.policy.Upstream.direct())) {
      com.microsoft.playwright.Browser browser =
          playwright.chromium().connectOverCDP(devtools.toString());
      try {
        UserTabs tabs =
            new UserTabs(
                browser,
                devtools,
                "__periscope_test",
                judge,
                false,
                new dev.periscope.api.browser.spi.EnvironmentPolicy.Viewport(800, 600));
        // The user's own blank tab opens just before the agent's is asked for: its page comes
        // first.
        com.microsoft.playwright.Page agents =
            tabs.newTab(
                () -> {
                  try {
                    HttpResponse<String> r =
                        HTTP.send(
                            HttpRequest.newBuilder(devtools.resolve("/json/new?about:blank"))
                                .PUT(HttpRequest.BodyPublishers.noBody())
                                .build(),
                            HttpResponse.BodyHandlers.ofString());
                    users[0] =
                        JsonParser.parseString(r.body()).getAsJsonObject().get("id").getAsString();
                  } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                });
        String agentsTarget =
            tabs.context()
                .newCDPSession(agents)
                .send("Target.getTargetInfo")
                .getAsJsonObject("targetInfo")
                .get("targetId")
                .getAsString();
        assertNotEquals(users[0], agentsTarget, "the user's blank tab was taken for the agent's");

        tabs.closeOpened();
        // Chromium's target list drops a closed tab a moment after the close answered (seen on a
        // loaded machine): looked at until it has, for a few seconds.
        List<String> left = new ArrayList<>();
        long until = System.nanoTime() + 5_000_000_000L;
        do {
          left.clear();
          for (JsonElement e :
              JsonParser.parseString(
                      HTTP.send(
                              HttpRequest.newBuilder(devtools.resolve("/json/list")).build(),
                              HttpResponse.BodyHandlers.ofString())
                          .body())
                  .getAsJsonArray()) {
            left.add(e.getAsJsonObject().get("id").getAsString());
          }
          if (!left.contains(agentsTarget)) {
            break;
          }
          Thread.sleep(100);
        } while (System.nanoTime() < until);
        assertTrue(left.contains(users[0]), "the user's blank tab was closed with the agent's");
        assertFalse(left.contains(agentsTarget), "the agent's tab stayed open");
      } finally {
        // Detaches only: the user's Chromium runs on.
        browser.close();
      }
    } finally {
      if (users[0] != null) {
        HTTP.send(
            HttpRequest.newBuilder(devtools.resolve("/json/close/" + users[0])).build(),
            HttpResponse.BodyHandlers.discarding());
      }
    }
  }

  @Test
  void theAgentsTabsCloseWhenItsDriverIsKilled() throws Exception {
    attach(allowlist(), true);
    assertFalse(call("browser_open", Map.of("url", siteUrl("/agent?killed"))).isError());
    assertTrue(userTabs().contains(siteUrl("/agent?killed")), userTabs().toString());
    List<ProcessHandle> drivers =
        ProcessHandle.current()
            .descendants()
            .filter(p -> p.pid() != userChromium.pid())
            .filter(p -> userChromium.toHandle().descendants().noneMatch(c -> c.pid() == p.pid()))
            .toList();
    assertFalse(drivers.isEmpty(), "the provider's driver runs");
    drivers.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle p : drivers) {
      p.onExit().get(10, TimeUnit.SECONDS);
    }
    // The next call finds the browser gone; the session's end closes its tab all the same.
    call("browser_observe", Map.of());
    ToolsForTests.endSession("agent");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (userTabs().contains(siteUrl("/agent?killed"))) {
      assertTrue(System.nanoTime() < until, "the agent's tab stayed open: " + userTabs());
      Thread.sleep(100);
    }
    assertTrue(userTabs().contains(siteUrl("/user")), userTabs().toString());
  }

  @Test
  void anAllowlistProjectRefusesItWithoutTheOptIn() throws Exception {
    attach(allowlist(), false);
    List<String> before = userTabs();
    ToolResult r = call("browser_open", Map.of("url", siteUrl("/agent")));
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains("code=BROWSER_POLICY_DENIED"), r.text());
    assertTrue(r.text().contains("plugins.browser.cdp.requestLevelPolicy: true"), r.text());
    assertEquals(before, userTabs(), "no tab was opened");
  }

  @Test
  void anUnrestrictedProjectNeedsNoOptIn() throws Exception {
    attach(Map.of("mode", "unrestricted"), false);
    ToolResult r = call("browser_open", Map.of("url", siteUrl("/agent")));
    assertFalse(r.isError(), r.text());
  }

  @Test
  void requestLevelEnforcementRefusesTheSsrfCorpus() throws Exception {
    try (Decoys decoys = new Decoys()) {
      attach(allowlist(), true);
      assertFalse(call("browser_open", Map.of("url", siteUrl("/agent"))).isError());
      List<String> corpus =
          Files.readAllLines(CORPUS, StandardCharsets.UTF_8).stream()
              .filter(l -> !l.isBlank())
              .toList();
      Map<String, Integer> codes = new TreeMap<>();
      List<String> admitted = new ArrayList<>();
      for (String entry : corpus) {
        ToolResult r = call("browser_open", Map.of("url", entry));
        String code = NetworkPolicyBrowserTest.code(r);
        codes.merge(code, 1, Integer::sum);
        if (code.equals("ADMITTED")) {
          admitted.add(entry + " -> " + r.text().lines().findFirst().orElse(""));
        }
      }
      assertEquals(List.of(), admitted, "every entry is refused");
      // An admitted site redirecting to an internal address: each hop is judged.
      ToolResult redirected = call("browser_open", Map.of("url", siteUrl("/redirect-open")));
      assertEquals(
          "BROWSER_POLICY_DENIED", NetworkPolicyBrowserTest.code(redirected), redirected.text());
      pages.put(
          "/redirects",
          "<!doctype html><title>Redirects</title><body><img src=\"/redirect-image\">"
              + "<iframe src=\"/redirect-frame\"></iframe><script>fetch('/redirect-fetch')"
              + ".catch(() => {});</script></body>");
      ToolResult withRedirects = call("browser_open", Map.of("url", siteUrl("/redirects")));
      // A frame's refused hop may fail the open itself (as a policy denial): never a request.
      assertTrue(
          !withRedirects.isError()
              || NetworkPolicyBrowserTest.code(withRedirects).equals("BROWSER_POLICY_DENIED"),
          withRedirects.text());
      call("browser_wait", Map.of("until", "network-idle", "timeout_ms", 5000));
      assertTrue(decoys.size() >= 10, "the decoys listen: " + decoys.size());
      assertEquals(List.of(), decoys.requests(), "a redirect reached a decoy");
      // A new window's first request would leave before its checks are in place: none opens.
      pages.put(
          "/windows",
          "<!doctype html><title>Windows</title><body><a href=\"/by-link\""
              + " target=\"_blank\">Link</a><button onclick=\"window.open("
              + "'http://127.0.0.1:80/by-script')\">Script</button></body>");
      for (String control : List.of("Link", "Script")) {
        call("browser_open", Map.of("url", siteUrl("/windows")));
        ToolResult page = call("browser_observe", Map.of("mode", "interactive"));
        ToolResult opened = call("browser_click", LocalBrowser.target(page, control));
        assertEquals("BROWSER_POLICY_DENIED", NetworkPolicyBrowserTest.code(opened), opened.text());
        assertTrue(opened.text().contains("browser_tabs open"), opened.text());
        ToolResult tabs = call("browser_tabs", Map.of("action", "list"));
        assertTrue(tabs.text().contains("1 open"), tabs.text());
      }
      // As frames, images, fetches and WebSockets of an admitted page: judged as they leave.
      int share = 25;
      for (int from = 0; from < corpus.size(); from += share) {
        List<String> targets = corpus.subList(from, Math.min(corpus.size(), from + share));
        String path = "/hostile-" + from;
        pages.put(path, NetworkPolicyBrowserTest.hostilePage(targets));
        ToolResult hostile = call("browser_open", Map.of("url", siteUrl(path)));
        assertTrue(
            !hostile.isError()
                || NetworkPolicyBrowserTest.code(hostile).equals("BROWSER_POLICY_DENIED"),
            targets + ": " + hostile.text());
        call("browser_wait", Map.of("until", "network-idle", "timeout_ms", 5000));
      }
      Thread.sleep(1000);
      // Chromium may open a connection to a frame's destination as the frame starts to load,
      // before its request is judged (a preconnect): nothing is sent on it. No request is.
      assertEquals(List.of(), decoys.requests(), "a decoy on loopback received a request");
      System.out.printf(
          "cdp provider, request-level enforcement: SSRF corpus, %d entries, browser_open: %s;"
              + " as frame, image, fetch and WebSocket targets: %d decoys on loopback, 0"
              + " requests, %d connections opened ahead of a frame's request and left unused%n",
          corpus.size(), codes, decoys.size(), decoys.hits());
    }
  }

  @Test
  void aWebSocketAddressIsRefusedWithTheAddressToGive() {
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ConfigurationException.class,
            () ->
                CdpSettings.read(
                    new PluginConfiguration(
                        Map.of(
                            "cdp", Map.of("url", "ws://127.0.0.1:9222/devtools/browser/0d1e")))));
    assertTrue(e.getMessage().contains("http://HOST:PORT"), e.getMessage());
  }

  @Test
  void nothingListeningAndAnotherBrowserAreClearErrors() throws Exception {
    int free;
    try (var s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      free = s.getLocalPort();
    }
    CdpCheck none =
        CdpCheck.of(new CdpSettings(URI.create("http://127.0.0.1:" + free), false), 3_000);
    assertFalse(none.ok());
    assertTrue(
        none.detail().startsWith("nothing listens at http://127.0.0.1:" + free), none.detail());
    assertTrue(none.remedy().contains("--remote-debugging-port=" + free), none.remedy());

    HttpServer impostor =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    Map<String, String> answer = new ConcurrentHashMap<>();
    impostor.createContext(
        "/json/version",
        exchange -> {
          byte[] body = answer.get("body").getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    impostor.start();
    try {
      CdpSettings at =
          new CdpSettings(URI.create("http://127.0.0.1:" + impostor.getAddress().getPort()), false);
      answer.put("body", "{\"Browser\":\"Firefox/140.0\",\"Protocol-Version\":\"1.3\"}");
      CdpCheck firefox = CdpCheck.of(at, 3_000);
      assertFalse(firefox.ok());
      assertTrue(firefox.detail().contains("Firefox/140.0, not a Chromium"), firefox.detail());
      answer.put("body", "{\"Browser\":\"Chrome/90.0.4430.93\",\"Protocol-Version\":\"1.3\"}");
      CdpCheck old = CdpCheck.of(at, 3_000);
      assertFalse(old.ok());
      assertTrue(old.detail().contains("a version mismatch"), old.detail());
      answer.put("body", "<html>a web server</html>");
      CdpCheck page = CdpCheck.of(at, 3_000);
      assertFalse(page.ok());
      assertTrue(page.detail().contains("without a browser's version"), page.detail());
    } finally {
      impostor.stop(0);
    }

    CdpCheck real = CdpCheck.of(new CdpSettings(devtools, true), 5_000);
    assertTrue(real.ok(), real.detail());
    assertTrue(real.detail().contains("request-level"), real.detail());
  }
}
