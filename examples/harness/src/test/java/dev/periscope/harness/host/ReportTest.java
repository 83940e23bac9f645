package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code harness report}: a session with a credential fill, a download, a fault and its recovery,
 * and a page that writes markup into its title and text, recorded ({@code recording.mode: always}),
 * then reported. The file opens in Chromium with every request but the file's own aborted: its
 * timeline entries are there, its images load from the file itself, no script runs, and the
 * credential canary is nowhere in it. Bad input: a session that does not exist, a recording over
 * its budget, a session with no recording: each a clear message, and no report lost.
 */
class ReportTest {
  static HttpServer site;

  static final String EVIL =
      """
      <!doctype html><html><head><title><script>alert('title')</script></title></head><body>
      <h1>Evil &lt;img src=x onerror=alert(1)&gt;</h1>
      <p>&lt;script&gt;document.title='pwned'&lt;/script&gt;</p>
      <script>console.error('<img src=http://127.0.0.1:9/leak onerror=alert(2)>')</script>
      </body></html>""";

  static final String WEDGE = "<button onclick=\"while (true) {}\">Wedge now</button>";

  @BeforeAll
  static void startSite() throws Exception {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext(
        "/",
        e -> {
          switch (e.getRequestURI().getPath()) {
            case "/login" -> CredentialCanaryTest.respond(e, CredentialCanaryTest.LOGIN, null);
            case "/session" -> {
              e.getRequestBody().readAllBytes();
              CredentialCanaryTest.respond(
                  e, "<!doctype html><title>Accounts</title><h1>Signed in</h1>", null);
            }
            case "/files" ->
                DownloadsTest.send(
                    e,
                    "text/html; charset=utf-8",
                    null,
                    DownloadsTest.FILES.getBytes(StandardCharsets.UTF_8));
            case "/report.pdf" ->
                DownloadsTest.send(e, "application/octet-stream", null, DownloadsTest.PDF);
            case "/evil" -> CredentialCanaryTest.respond(e, EVIL, null);
            case "/wedge" -> CredentialCanaryTest.respond(e, WEDGE, null);
            default -> CredentialCanaryTest.respond(e, "<!doctype html><p>other</p>", null);
          }
        });
    site.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    site.start();
  }

  @AfterAll
  static void stopSite() {
    site.stop(0);
  }

  static String url(String path) {
    return "http://127.0.0.1:" + site.getAddress().getPort() + path;
  }

  @TempDir Path homeDir;
  @TempDir Path project;
  @TempDir Path other;

  private static final String PLUGIN =
      """
      plugins:
        browser:
          actionTimeoutMs: 3000
          navigationTimeoutMs: 5000
          timeoutMarginMs: 1000
          livenessTimeoutMs: 1500
          pool: {spare: false}
          network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
      """;

  private static ToolResult call(Host host, String agent, String tool, Map<String, Object> args) {
    return host.call(agent, tool, args, Cancellation.none());
  }

  private static ToolResult ok(ToolResult r) {
    assertFalse(r.isError(), r.text());
    return r;
  }

  private HarnessProcess.Result harness(String... args) throws Exception {
    Path tmp = Files.createDirectories(homeDir.resolve("tmp"));
    return HarnessProcess.run(homeDir, tmp, args);
  }

  @Test
  void aSessionsReportOpensWithoutNetworkShowsItsTimelineAndImagesAndHoldsNoSecret()
      throws Exception {
    HarnessHome home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
    Path tmp = Files.createDirectories(homeDir.resolve("tmp"));
    var set =
        HarnessProcess.run(
            homeDir,
            tmp,
            (CredentialCanaryTest.SECRET + "\n").getBytes(StandardCharsets.UTF_8),
            "credentials",
            "set",
            "--profile",
            "p",
            "canary");
    assertEquals(0, set.exitCode(), set.err());
    TestProjects.project(
        project,
        """
        credentials:
          canary: {store: canary, origins: ["%s"]}
        approval:
          rules:
            - {tool: browser_fill_credential, credential: canary, decision: allow}
        """
                .formatted(url(""))
            + PLUGIN
            + "    recording: {mode: always}\n");
    try (Host host = Host.start(home, "p", project, Host.Options.defaults())) {
      ToolResult page = ok(call(host, "agent", "browser_open", Map.of("url", url("/login"))));
      for (String field : List.of("Username", "Password")) {
        Map<String, Object> args = DownloadsTest.target(page, field);
        args.put("credential_ref", "canary");
        page = ok(call(host, "agent", "browser_fill_credential", args));
      }
      ok(call(host, "agent", "browser_click", DownloadsTest.target(page, "Sign in")));
      page = ok(call(host, "agent", "browser_open", Map.of("url", url("/files"))));
      ToolResult download =
          ok(call(host, "agent", "browser_click", DownloadsTest.target(page, "Report")));
      assertTrue(download.text().contains("report.pdf"), download.text());
      ok(call(host, "agent", "browser_open", Map.of("url", url("/evil"))));
      page = ok(call(host, "agent", "browser_open", Map.of("url", url("/wedge"))));
      ToolResult wedged =
          call(host, "agent", "browser_click", DownloadsTest.target(page, "Wedge now"));
      assertTrue(wedged.isError(), wedged.text());
      ok(call(host, "agent", "browser_open", Map.of("url", url("/login"))));
    }

    Path report = other.resolve("report.html");
    var written = harness("report", "--profile", "p", "agent", "--out", report.toString());
    assertEquals(0, written.exitCode(), written.out() + written.err());
    assertTrue(written.out().contains("Wrote " + report), written.out());
    byte[] bytes = Files.readAllBytes(report);
    assertEquals(List.of(), CredentialCanaryTest.search("the report", bytes), "the secret leaked");
    String html = new String(bytes, StandardCharsets.UTF_8);
    assertFalse(html.contains("<script"), "no script, and the page's markup escaped");
    assertFalse(html.contains("<img src=http://127.0.0.1:9/leak"), "the page's markup is escaped");

    // A session that does not exist: a clear message, and the report written before stays as it
    // was.
    var missing = harness("report", "--profile", "p", "nobody", "--out", report.toString());
    assertEquals(1, missing.exitCode(), missing.out() + missing.err());
    assertTrue(
        missing.err().contains("no agent or browser session \"nobody\" in profile p"),
        missing.err());
    assertTrue(java.util.Arrays.equals(bytes, Files.readAllBytes(report)), "nothing lost");

    List<String> requests = new CopyOnWriteArrayList<>();
    try (Playwright playwright =
            Playwright.create(
                new Playwright.CreateOptions()
                    .setEnv(
                        Map.of(
                            "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD",
                            "1",
                            "PLAYWRIGHT_NODEJS_PATH",
                            "/usr/bin/node")));
        Browser browser =
            playwright
                .chromium()
                .launch(
                    new BrowserType.LaunchOptions()
                        .setExecutablePath(Path.of("/usr/bin/chromium"))
                        .setArgs(List.of("--no-sandbox", "--disable-background-networking")));
        BrowserContext context = browser.newContext()) {
      context.route(
          "**/*",
          route -> {
            String u = route.request().url();
            if (u.startsWith("file:")) {
              route.resume();
            } else {
              requests.add(u);
              route.abort();
            }
          });
      Page page = context.newPage();
      List<String> dialogs = new CopyOnWriteArrayList<>();
      page.onDialog(
          d -> {
            dialogs.add(d.message());
            d.dismiss();
          });
      page.navigate(report.toUri().toString());
      page.waitForLoadState();
      String text = page.innerText("body");
      for (String seen :
          List.of(
              "fill_credential",
              "navigate",
              "click",
              "fault",
              "recover",
              "BROWSER_UNRESPONSIVE",
              "Downloaded report.pdf",
              "1 download(s)",
              "code=BROWSER_UNRESPONSIVE",
              "console error",
              "<img src=http://127.0.0.1:9/leak onerror=alert(2)>")) {
        assertTrue(text.contains(seen), "the report shows " + seen + ":\n" + text);
      }
      int images = ((Number) page.evaluate("document.images.length")).intValue();
      assertTrue(images >= 8, "a frame after each action: " + images);
      assertEquals(
          Boolean.TRUE,
          page.evaluate(
              "[...document.images].every(i => i.complete && i.naturalWidth > 0"
                  + " && i.src.startsWith('data:image/jpeg;base64,'))"),
          "every image loads from the file itself");
      assertEquals(0, ((Number) page.evaluate("document.scripts.length")).intValue());
      assertEquals(List.of(), dialogs, "no script of the page's ran");
      assertEquals(List.of(), requests, "opening the report needs no network");
      System.out.printf(
          "harness report: %d bytes, %d images, opened with no request%n", bytes.length, images);
    }
  }

  @Test
  void aRecordingOverItsBudgetAndASessionWithNoRecordingEachSaySo() throws Exception {
    HarnessHome home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
    TestProjects.project(
        project, PLUGIN + "    recording: {mode: on-failure, budgetBytes: 65536}\n");
    try (Host host = Host.start(home, "p", project, Host.Options.defaults())) {
      ok(call(host, "fine", "browser_open", Map.of("url", url("/login"))));
      ok(call(host, "long", "browser_open", Map.of("url", url("/login"))));
      for (int i = 0; i < 15; i++) {
        ok(call(host, "long", "browser_reload", Map.of()));
      }
      // A refused navigation fails: on-failure keeps this session's recording.
      assertTrue(
          call(host, "long", "browser_open", Map.of("url", "http://127.0.0.3:8080/")).isError());
    }
    Path long_ = other.resolve("long.html");
    var over = harness("report", "--profile", "p", "long", "--out", long_.toString());
    assertEquals(0, over.exitCode(), over.out() + over.err());
    assertTrue(over.err().contains("went over its budget"), over.err());
    String html = Files.readString(long_);
    assertTrue(html.contains("were dropped over the recording's budget"), html.length() + "");
    assertTrue(html.contains("code=BROWSER_POLICY_DENIED"), "the failure line is kept");

    Path fine = other.resolve("fine.html");
    var none = harness("report", "--profile", "p", "fine", "--out", fine.toString());
    assertEquals(0, none.exitCode(), none.out() + none.err());
    assertTrue(none.err().contains("has no recording"), none.err());
    assertTrue(Files.readString(fine).contains("This session has no recording"));
    assertTrue(Files.readString(fine).contains("navigate"), "its transitions are still shown");
  }
}
