package dev.periscope.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.Response;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.host.Host;
import dev.periscope.harness.profile.HarnessHome;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code harness watch}: a host in this JVM runs an agent's session, and {@code harness watch}, a
 * process of its own, prints the link to a read-only live view of it (the two meet in the plugin's
 * store). A second Chromium opens the link and sees the agent's clicks; what it sends is refused
 * and reaches nothing; the link works once, only at its own Host, from its own Origin, and not
 * after it expired; a session that does not exist or runs no browser is a clear message.
 */
@Timeout(240)
class WatchCommandTest {
  static HttpServer site;

  /** Each click of the agent paints the page the next colour; every key the page hears counts. */
  static final String PAGE =
      """
      <!doctype html><html><head><title>Colours</title></head>
      <body style="margin:0; background:#ffffff">
      <button id="next" style="position:absolute; left:0; top:0; width:100%; height:100%;
        border:0; background:transparent; font-size:40px">Next colour</button>
      <p id="count" style="position:absolute; left:10px; top:10px; margin:0">clicks: 0 keys: 0</p>
      <script>
      const colours = ['#ffffff', '#ff0000', '#00ff00', '#0000ff'];
      let clicks = 0, keys = 0;
      const show = () => document.getElementById('count').textContent =
        'clicks: ' + clicks + ' keys: ' + keys;
      document.getElementById('next').addEventListener('click', () => {
        clicks++; document.body.style.background = colours[clicks % 4]; show(); });
      document.addEventListener('keydown', () => { keys++; show(); });
      if (location.search === '?later') setTimeout(() => document.body.style.background = '#0000ff', 1500);
      </script></body></html>""";

  private static final Pattern LINK =
      Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/watch/[0-9a-f]{32}\\?token=[A-Za-z0-9_-]+");

  @TempDir Path homeDir;
  @TempDir Path projectDir;
  @TempDir Path tmp;
  private HarnessHome home;

  @BeforeAll
  static void serve() throws Exception {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext(
        "/",
        e -> {
          byte[] bytes = PAGE.getBytes(StandardCharsets.UTF_8);
          e.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          e.sendResponseHeaders(200, bytes.length);
          try (OutputStream out = e.getResponseBody()) {
            out.write(bytes);
          }
        });
    site.start();
  }

  @AfterAll
  static void stopSite() {
    site.stop(0);
  }

  @BeforeEach
  void install() throws Exception {
    home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
  }

  private Host host() {
    return Host.start(home, "p", projectDir, Host.Options.defaults());
  }

  private HarnessProcess.Result harness(String... args) throws Exception {
    return HarnessProcess.run(homeDir, tmp, args);
  }

  /** The link {@code harness watch} prints for {@code session}. */
  private String watchLink(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("watch", "--profile", "p"));
    all.addAll(List.of(args));
    HarnessProcess.Result r = harness(all.toArray(String[]::new));
    assertEquals(0, r.exitCode(), r.out() + r.err());
    Matcher m = LINK.matcher(r.out());
    assertTrue(m.find(), "no watch link: " + r.out() + r.err());
    assertTrue(r.out().contains("read-only"), r.out());
    assertFalse(LINK.matcher(r.err()).find(), "the link reached a log: " + r.err());
    return m.group();
  }

  private static ToolResult call(Host host, String tool, Map<String, Object> args) {
    ToolResult r = host.call("agent", tool, args, Cancellation.none());
    assertFalse(r.isError(), r.text());
    return r;
  }

  @SuppressWarnings("unchecked")
  private static String observationId(ToolResult r) {
    return String.valueOf(((Map<String, Object>) r.structured().get("observation")).get("id"));
  }

  /** The agent clicks the page's one button; the time the call took, in ms. */
  private static long click(Host host, String[] observation) {
    long start = System.nanoTime();
    ToolResult r =
        call(host, "browser_click", Map.of("observation_id", observation[0], "element_ref", "e1"));
    observation[0] = observationId(r);
    return (System.nanoTime() - start) / 1_000_000;
  }

  private static final String CENTRE_COLOUR =
      """
      () => {
        const img = document.getElementById('view');
        if (!img.complete || img.naturalWidth === 0) return null;
        const c = document.createElement('canvas');
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        const d = g.getImageData(Math.floor(c.width / 2), Math.floor(c.height * 3 / 4), 1, 1).data;
        return d[0] > 200 && d[1] < 80 && d[2] < 80 ? 'red'
          : d[0] < 80 && d[1] > 200 && d[2] < 80 ? 'green'
          : d[0] < 80 && d[1] < 80 && d[2] > 200 ? 'blue'
          : d[0] > 200 && d[1] > 200 && d[2] > 200 ? 'white' : 'other';
      }""";

  private static void awaitColour(Page watcher, String colour) {
    watcher.waitForFunction(
        "want => (" + CENTRE_COLOUR + ")() === want",
        colour,
        new Page.WaitForFunctionOptions().setTimeout(20_000));
  }

  private static int post(Page watcher, String part, String body) {
    return ((Number)
            watcher.evaluate(
                "([part, body]) => fetch(part, {method: 'POST', body}).then(r => r.status)",
                List.of(part, body)))
        .intValue();
  }

  private static String raw(int port, String request) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Playwright watchersPlaywright() {
    return Playwright.create(
        new Playwright.CreateOptions()
            .setEnv(
                Map.of(
                    "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD",
                    "1",
                    "PLAYWRIGHT_NODEJS_PATH",
                    "/usr/bin/node")));
  }

  private static Browser watchersBrowser(Playwright playwright) {
    return playwright
        .chromium()
        .launch(
            new BrowserType.LaunchOptions()
                .setExecutablePath(Path.of("/usr/bin/chromium"))
                .setArgs(List.of("--no-sandbox", "--disable-background-networking")));
  }

  @Test
  void aWatcherSeesTheAgentsClicksAndNothingItSendsReachesThePage() throws Exception {
    String url = "http://127.0.0.1:" + site.getAddress().getPort() + "/";
    try (Playwright playwright = watchersPlaywright();
        Browser browser = watchersBrowser(playwright)) {
      Page watcher;
      String link;
      String[] observation = new String[1];
      List<Long> alone = new ArrayList<>();
      List<Long> watched = new ArrayList<>();
      try (Host host = host()) {
        observation[0] = observationId(call(host, "browser_open", Map.of("url", url)));
        for (int i = 0; i < 12; i++) {
          alone.add(click(host, observation));
        }
        // Twelve clicks: white again.
        link = watchLink("agent");
        URI at = URI.create(link);
        int port = at.getPort();
        String hostHeader = "127.0.0.1:" + port;

        // A wrong Host (DNS rebinding) is refused, and does not use the token up.
        String rebound =
            raw(
                port,
                "GET "
                    + at.getRawPath()
                    + "?"
                    + at.getRawQuery()
                    + " HTTP/1.1\r\nHost: evil.test:"
                    + port
                    + "\r\nConnection: close\r\n\r\n");
        assertTrue(rebound.startsWith("HTTP/1.1 421"), rebound);

        watcher = browser.newPage();
        Response opened = watcher.navigate(link);
        assertEquals(200, opened.status());
        assertFalse(watcher.url().contains("token"), "the token stays in no address bar");
        awaitColour(watcher, "white");
        assertEquals(0, watcher.locator("#done").count(), "a watch has no Done");
        assertEquals(0, watcher.locator("#give-up").count(), "a watch has no Give up");
        watcher.waitForFunction(
            "() => document.getElementById('status').textContent.includes('watching')");

        // Frames keep coming while the agent acts, and show each change.
        for (String colour : List.of("red", "green", "blue", "white")) {
          click(host, observation);
          awaitColour(watcher, colour);
        }
        // The agent's clicks while watched, as fast as it makes them (the frames' cost on them).
        for (int i = 0; i < 12; i++) {
          watched.add(click(host, observation));
        }
        awaitColour(watcher, "white");

        // What the handoff's view sends, sent from the watch page itself: each refused.
        String centre = "\"x\": 640, \"y\": 500";
        for (String event :
            List.of(
                "{\"kind\": \"move\", " + centre + "}",
                "{\"kind\": \"down\", \"button\": \"left\", " + centre + "}",
                "{\"kind\": \"up\", \"button\": \"left\", " + centre + "}",
                "{\"kind\": \"key\", \"key\": \"Enter\"}",
                "{\"kind\": \"text\", \"text\": \"a\"}")) {
          assertEquals(403, post(watcher, "input", event), event);
        }
        assertEquals(403, post(watcher, "end", "done"));
        assertEquals(403, post(watcher, "end", "give-up"));
        // The watcher's own clicks and keys on the image go nowhere either.
        watcher.click("#view");
        watcher.keyboard().press("a");

        // The link works once: another browser context is refused.
        try (BrowserContext other = browser.newContext()) {
          Response again = other.newPage().navigate(link);
          assertEquals(403, again.status());
          assertTrue(again.text().contains("used already"), again.text());
        }
        // A request from another Origin is refused, even with the watcher's cookie.
        String cookie =
            watcher.context().cookies().stream()
                .filter(c -> c.name.equals("watch"))
                .findFirst()
                .orElseThrow()
                .value;
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> foreign =
            client.send(
                HttpRequest.newBuilder(URI.create(watcher.url() + "frame?after=0"))
                    .header("Cookie", "watch=" + cookie)
                    .header("Origin", "http://evil.test")
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(403, foreign.statusCode(), foreign.body());
        HttpResponse<String> foreignInput =
            client.send(
                HttpRequest.newBuilder(URI.create(watcher.url() + "input"))
                    .header("Cookie", "watch=" + cookie)
                    .header("Origin", "http://evil.test")
                    .POST(
                        HttpRequest.BodyPublishers.ofString("{\"kind\": \"key\", \"key\": \"a\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(403, foreignInput.statusCode(), foreignInput.body());
        // Its own Origin with the cookie still reads frames: the refusals were for what they were.
        HttpResponse<byte[]> own =
            client.send(
                HttpRequest.newBuilder(URI.create(watcher.url() + "frame?after=0"))
                    .header("Cookie", "watch=" + cookie)
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, own.statusCode());
        assertEquals("image/jpeg", own.headers().firstValue("Content-Type").orElse(""));
        assertTrue(
            hostHeader.equals(URI.create(watcher.url()).getAuthority()), "served at its own host");

        // Nothing reached the page, and the agent's session goes on as before.
        ToolResult seen = call(host, "browser_observe", Map.of());
        assertTrue(seen.text().contains("clicks: 28 keys: 0"), seen.text());
        observation[0] = observationId(seen);
        click(host, observation);
        awaitColour(watcher, "red");
        // Frames come while the agent's own call holds its browser: a five-second wait, during
        // which the page turns blue by itself.
        call(host, "browser_open", Map.of("url", url + "?later"));
        java.util.concurrent.CompletableFuture<ToolResult> waiting =
            java.util.concurrent.CompletableFuture.supplyAsync(
                () -> call(host, "browser_wait", Map.of("until", "delay", "timeout_ms", 5_000)));
        awaitColour(watcher, "blue");
        assertFalse(waiting.isDone(), "the frame came only after the agent's call");
        waiting.get(30, java.util.concurrent.TimeUnit.SECONDS);
        System.out.printf(
            "agent's click + observation: median %d ms alone, %d ms watched (%s / %s)%n",
            median(alone), median(watched), alone, watched);
      }
      // The session ended with its host: so did the watch.
      watcher.waitForFunction(
          "() => document.getElementById('status').textContent.includes('watch has ended')",
          null,
          new Page.WaitForFunctionOptions().setTimeout(20_000));
      assertNull(watcher.evaluate("() => document.getElementById('done')"));
    }
  }

  private static long median(List<Long> ms) {
    List<Long> sorted = new ArrayList<>(ms);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  @Test
  void aWatchWhoseLiveViewCannotListenIsRefusedAtOnceSayingWhy() throws Exception {
    String url = "http://127.0.0.1:" + site.getAddress().getPort() + "/";
    try (java.net.ServerSocket taken =
            new java.net.ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
        Host host =
            Host.start(
                home,
                "p",
                projectDir,
                Host.Options.defaults()
                    .withSetting("browser", "handoff.port", taken.getLocalPort()))) {
      call(host, "browser_open", Map.of("url", url));
      HarnessProcess.Result r = harness("watch", "--profile", "p", "agent");
      assertEquals(1, r.exitCode(), r.out() + r.err());
      assertTrue(
          r.err()
              .contains(
                  "could not be watched: the live view could not listen on 127.0.0.1:"
                      + taken.getLocalPort()),
          r.err());
      assertFalse(r.err().contains("no browser running"), r.err());
    }
  }

  @Test
  void anUnknownSessionAnExpiredLinkAStoppedWatchAndASessionWithoutABrowserAreSaidClearly()
      throws Exception {
    HarnessProcess.Result unknown = harness("watch", "--profile", "p", "no-such-session");
    assertEquals(1, unknown.exitCode(), unknown.out() + unknown.err());
    assertTrue(
        unknown.err().contains("no agent or browser session \"no-such-session\" in profile p"),
        unknown.err());
    assertFalse(unknown.err().contains("Exception"), unknown.err());

    String url = "http://127.0.0.1:" + site.getAddress().getPort() + "/";
    HttpClient client = HttpClient.newHttpClient();
    try (Host host = host()) {
      call(host, "browser_open", Map.of("url", url));
      // A link not used in time is refused.
      String expiring = watchLink("agent", "--expires", "1");
      Thread.sleep(1_500);
      HttpResponse<String> late =
          client.send(
              HttpRequest.newBuilder(URI.create(expiring)).build(),
              HttpResponse.BodyHandlers.ofString());
      assertTrue(
          late.statusCode() == 403 || late.statusCode() == 404,
          late.statusCode() + " " + late.body());
      assertTrue(
          late.body().contains("expired") || late.body().contains("no such watch"), late.body());

      // A watch stopped by the operator ends.
      String stopped = watchLink("agent");
      HarnessProcess.Result stop = harness("watch", "--profile", "p", "--stop", "agent");
      assertEquals(0, stop.exitCode(), stop.out() + stop.err());
      assertTrue(stop.out().contains("Stopped 1 watch of session agent"), stop.out());
      long deadline = System.nanoTime() + 10_000_000_000L;
      int status;
      do {
        Thread.sleep(100);
        status =
            client
                .send(
                    HttpRequest.newBuilder(URI.create(stopped)).build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode();
      } while (status != 404 && System.nanoTime() < deadline);
      assertEquals(404, status, "the stopped watch's link still answers");
      HarnessProcess.Result none = harness("watch", "--profile", "p", "--stop", "agent");
      assertEquals(1, none.exitCode(), none.out() + none.err());
      assertTrue(none.err().contains("no watch of session \"agent\" is open"), none.err());
    }
    // The session is known, but nothing runs its browser now.
    HarnessProcess.Result idle = harness("watch", "--profile", "p", "agent");
    assertEquals(1, idle.exitCode(), idle.out() + idle.err());
    assertTrue(idle.err().contains("session \"agent\" has no browser running now"), idle.err());
  }
}
