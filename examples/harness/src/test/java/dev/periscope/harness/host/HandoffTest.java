package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.options.BoundingBox;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.attachments.FileAttachmentService;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page handed to a person through the real host: the link goes to the terminal (a file standing
 * in for it), a second Chromium driven by the test is the person, who opens the live view, types
 * into the agent's page and presses Done; the agent's call returns with a summary that holds no
 * value, and the session's checkpoint holds the cookie the person's typing set.
 */
@org.junit.jupiter.api.Timeout(180)
class HandoffTest {
  static HttpServer site;
  static final java.util.concurrent.atomic.AtomicInteger cookieHits =
      new java.util.concurrent.atomic.AtomicInteger();
  static final String TYPED = "typed-by-a-person-5e1f";

  static final String FORM =
      """
      <!doctype html><html><head><title>Note</title></head><body style="margin:0">
      <input id="note" aria-label="Note" autocomplete="off"
        style="position:absolute; left:20px; top:20px; width:400px; height:40px; font-size:20px">
      <p id="echo" style="position:absolute; top:100px; left:20px">You typed: nothing</p>
      <a href="/cookie" target="_blank" style="position:absolute; top:200px; left:20px; font-size:30px">Terms</a>
      <button onclick="document.getElementById('echo').textContent = confirm('Pay 10 EUR?') ? 'Paid' : 'Not paid'"
        style="position:absolute; top:300px; left:20px; width:200px; height:50px; font-size:20px">Pay</button>
      <script>document.getElementById('note').addEventListener('input', (e) => {
        document.cookie = 'note=' + encodeURIComponent(e.target.value) + '; path=/; max-age=3600';
        document.getElementById('echo').textContent = 'You typed: ' + e.target.value;
      });</script></body></html>""";

  private static final Pattern LINK =
      Pattern.compile("http://127\\.0\\.0\\.1:\\d+/handoff/[0-9a-f]{32}\\?token=[A-Za-z0-9_-]+");

  @BeforeAll
  static void serve() throws Exception {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext(
        "/",
        e -> {
          String cookie = String.valueOf(e.getRequestHeaders().getFirst("Cookie"));
          if (e.getRequestURI().getPath().equals("/cookie")) {
            cookieHits.incrementAndGet();
          }
          String body =
              e.getRequestURI().getPath().equals("/cookie")
                  ? "<!doctype html><title>Cookie</title><p>note cookie: "
                      + (cookie.contains("note=" + TYPED) ? "present" : "absent")
                      + "</p>"
                  : FORM;
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          e.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          e.sendResponseHeaders(200, bytes.length);
          try (OutputStream out = e.getResponseBody()) {
            out.write(bytes);
          }
        });
    site.start();
  }

  @AfterAll
  static void stop() {
    site.stop(0);
  }

  static String url(String path) {
    return "http://127.0.0.1:" + site.getAddress().getPort() + path;
  }

  @TempDir Path homeDir;
  @TempDir Path projectDir;
  private HarnessHome home;

  @BeforeEach
  void install() throws Exception {
    home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
  }

  /** A host whose approval questions go to {@code tty}, a file standing in for the terminal. */
  private Host start(Optional<Path> tty) throws Exception {
    return Host.start(
        home,
        "p",
        projectDir,
        new Host.Options(
            Set.of(), FileAttachmentService.DEFAULT_MAX_BYTES, tty.map(Terminal::new)));
  }

  private static ToolResult call(Host host, String tool, Map<String, Object> args) {
    return host.call("agent", tool, args, Cancellation.none());
  }

  /** The agent's handoff call, running. */
  private static CompletableFuture<ToolResult> handOff(Host host, String message, int timeout) {
    return CompletableFuture.supplyAsync(
        () -> call(host, "browser_handoff", Map.of("message", message, "timeout", timeout)));
  }

  private static String awaitLink(Path tty) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      Matcher m = LINK.matcher(Files.readString(tty));
      if (m.find()) {
        return m.group();
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no live view link reached the terminal: " + Files.readString(tty));
  }

  private static Playwright personsPlaywright() {
    return Playwright.create(
        new Playwright.CreateOptions()
            .setEnv(
                Map.of(
                    "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD",
                    "1",
                    "PLAYWRIGHT_NODEJS_PATH",
                    "/usr/bin/node")));
  }

  private static Browser personsBrowser(Playwright playwright) {
    return playwright
        .chromium()
        .launch(
            new BrowserType.LaunchOptions()
                .setExecutablePath(Path.of("/usr/bin/chromium"))
                .setArgs(
                    List.of(
                        "--no-sandbox",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--no-first-run")));
  }

  @Test
  void aPersonTakesThePageTypesAndHandsItBackAndTheAgentGetsASummaryWithoutValues()
      throws Exception {
    Path tty = Files.writeString(homeDir.resolve("tty"), "");
    ByteArrayOutputStream logs = new ByteArrayOutputStream();
    PrintStream err = System.err;
    System.setErr(new PrintStream(new TeeStream(err, logs), true, StandardCharsets.UTF_8));
    String summary;
    try (Host host = start(Optional.of(tty));
        Playwright playwright = personsPlaywright();
        Browser person = personsBrowser(playwright)) {
      assertFalse(call(host, "browser_open", Map.of("url", url("/form"))).isError());
      CompletableFuture<ToolResult> handoff =
          handOff(host, "Please type the note, then press Done", 90);
      String link = awaitLink(tty);
      assertTrue(Files.readString(tty).contains("Please type the note"), Files.readString(tty));

      Page view = person.newPage();
      // Without its token the view does not open.
      assertEquals(401, view.navigate(link.replaceAll("\\?token=.*", "")).status());
      view.navigate(link);
      assertFalse(view.url().contains("token"), "the token stays in no address bar: " + view.url());
      view.waitForFunction("() => document.getElementById('view').naturalWidth > 0");
      assertTrue(view.textContent("#message").contains("Please type the note"));
      // The link works once: a second use, in another browser context, is refused.
      try (BrowserContext other = person.newContext()) {
        assertEquals(403, other.newPage().navigate(link).status());
      }
      // A request without the view's cookie and origin changes nothing.
      HttpResponse<String> forged =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(view.url() + "end"))
                      .POST(HttpRequest.BodyPublishers.ofString("done"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(403, forged.statusCode(), forged.body());
      assertFalse(handoff.isDone(), "a forged ending ended the handoff");

      // The person clicks into the note field, as the image shows it, and types.
      BoundingBox box = view.locator("#view").boundingBox();
      double scale = box.width / 1280.0;
      view.mouse().click(box.x + 120 * scale, box.y + 40 * scale);
      view.keyboard().type(TYPED);
      // Frames follow the page: the person sees what they typed before pressing Done.
      String before = view.getAttribute("#view", "src");
      view.waitForFunction(
          "s => document.getElementById('view').src !== s",
          before,
          new Page.WaitForFunctionOptions().setTimeout(10_000));
      view.click("#done");

      ToolResult result = handoff.get(60, TimeUnit.SECONDS);
      assertFalse(result.isError(), result.text());
      summary = result.text().substring(0, result.text().indexOf("\n\n"));
      assertTrue(summary.startsWith("The person handed the page back as done"), summary);
      assertTrue(summary.contains("Cookies changed: 1"), result.text());
      assertFalse(result.text().contains("token="), "the link never reaches the model");
      assertFalse(summary.contains(TYPED), "the summary holds no value: " + summary);
      // The page after it is the agent's again, as the person left it.
      assertTrue(result.text().contains("You typed: " + TYPED), result.text());
      @SuppressWarnings("unchecked")
      Map<String, Object> h = (Map<String, Object>) result.structured().get("handoff");
      assertEquals("done", h.get("ending"));
      assertEquals("person", h.get("ended_by"));

      String trail = host.operate("browser_transitions", Map.of("session", "agent")).text();
      assertTrue(trail.contains("handoff"), trail);
      assertTrue(trail.contains("done by person"), trail);
      // The ended view's link and cookie are gone with it.
      assertEquals(404, view.navigate(view.url()).status());
    } finally {
      System.setErr(err);
    }
    assertFalse(
        logs.toString(StandardCharsets.UTF_8).contains(TYPED), "what the person typed is logged");
    assertFalse(LINK.matcher(logs.toString(StandardCharsets.UTF_8)).find(), "the link is logged");
    // The checkpoint written after the handoff holds the cookie the person's typing set.
    try (Host again = start(Optional.empty())) {
      ToolResult cookie = call(again, "browser_open", Map.of("url", url("/cookie")));
      assertTrue(cookie.text().contains("note cookie: present"), cookie.text());
    }
  }

  @Test
  void aTabThePersonOpensIsKeptForTheAgentAndALeaseReleasedMidHandoffEndsIt() throws Exception {
    Path tty = Files.writeString(homeDir.resolve("tty"), "");
    try (Host host = start(Optional.of(tty));
        Playwright playwright = personsPlaywright();
        Browser person = personsBrowser(playwright)) {
      assertFalse(call(host, "browser_open", Map.of("url", url("/form"))).isError());
      CompletableFuture<ToolResult> handoff = handOff(host, "Read the terms", 90);
      Page view = person.newPage();
      view.navigate(awaitLink(tty));
      view.waitForFunction("() => document.getElementById('view').naturalWidth > 0");
      BoundingBox box = view.locator("#view").boundingBox();
      double scale = box.width / 1280.0;
      // The person follows a link that opens a tab of its own.
      int hits = cookieHits.get();
      view.mouse().click(box.x + 40 * scale, box.y + 220 * scale);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (cookieHits.get() == hits && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(cookieHits.get() > hits, "the person's click on the link opened nothing");
      // Then presses Pay, which asks with confirm(): the view cannot show it, and says so.
      view.mouse().click(box.x + 100 * scale, box.y + 325 * scale);
      // The view learns of the dialog as the page's event reaches the environment, which can be
      // after the person's next key: a key played then is answered as any other, so the person
      // types on until the view says it cannot show what waits.
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      boolean told = false;
      while (!told && System.nanoTime() < deadline) {
        view.keyboard().press("a");
        try {
          view.waitForFunction(
              "() => document.getElementById('status').textContent.includes('dialog')",
              null,
              new Page.WaitForFunctionOptions().setTimeout(1_000));
          told = true;
        } catch (com.microsoft.playwright.TimeoutError notYet) {
          // the next key
        }
      }
      assertTrue(told, "the view never said that a dialog waits");
      view.click("#done");
      ToolResult result = handoff.get(60, TimeUnit.SECONDS);
      assertFalse(result.isError(), result.text());
      assertTrue(result.text().contains("Pay 10 EUR?"), "the dialog waits: " + result.text());
      ToolResult answered = call(host, "browser_dialog", Map.of("accept", true));
      assertTrue(answered.text().contains("Paid"), answered.text());
      // The person's tab can come after the answer: its document commits only once the dialog
      // that paused its opener's renderer is answered, and its event follows. Listing tabs is no
      // action, so it never ends the person's claim on a tab that opens late.
      ToolResult tabs = call(host, "browser_tabs", Map.of("action", "list"));
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      while (!tabs.text().contains("2 open") && System.nanoTime() < deadline) {
        Thread.sleep(200);
        tabs = call(host, "browser_tabs", Map.of("action", "list"));
      }
      assertTrue(
          tabs.text().contains("2 open"),
          "the person's tab was closed: "
              + tabs.text()
              + "\nthe handoff's result: "
              + result.text()
              + "\nthe dialog's answer: "
              + answered.text());

      // The agent's session ends while a person has its page: the handoff ends at once.
      int links = Files.readString(tty).split("Live view", -1).length - 1;
      CompletableFuture<ToolResult> second = handOff(host, "Anything", 90);
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (Files.readString(tty).split("Live view", -1).length - 1 == links
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      long start = System.nanoTime();
      host.endSession("agent");
      ToolResult ended = second.get(30, TimeUnit.SECONDS);
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(ms < 5_000, "the ending session waited " + ms + " ms for the person");
      assertTrue(ended.text().startsWith("The handoff was cancelled"), ended.text());
    }
  }

  @Test
  void aHandoffNobodyTakesTimesOutAndOneNobodyCanBeAskedIsDeclinedAtOnce() throws Exception {
    Path tty = Files.writeString(homeDir.resolve("tty"), "");
    try (Host host = start(Optional.of(tty))) {
      call(host, "browser_open", Map.of("url", url("/form")));
      long start = System.nanoTime();
      ToolResult r =
          call(host, "browser_handoff", Map.of("message", "Solve the puzzle", "timeout", 5));
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertFalse(r.isError(), r.text());
      assertTrue(r.text().startsWith("Nobody handed the page back within 5 s"), r.text());
      assertTrue(ms >= 5_000 && ms < 30_000, "returned after " + ms + " ms");
      @SuppressWarnings("unchecked")
      Map<String, Object> h = (Map<String, Object>) r.structured().get("handoff");
      assertEquals("timed-out", h.get("ending"));
      assertEquals("timeout", h.get("ended_by"));
      // The page still answers the agent.
      assertFalse(call(host, "browser_observe", Map.of()).isError());
    }
    try (Host host = start(Optional.empty())) {
      call(host, "browser_open", Map.of("url", url("/form")));
      long start = System.nanoTime();
      ToolResult r =
          call(host, "browser_handoff", Map.of("message", "Solve the puzzle", "timeout", 60));
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(r.text().startsWith("Nobody took the page"), r.text());
      assertTrue(ms < 20_000, "a handoff nobody can be asked about waited " + ms + " ms");
    }
  }

  /** Writes to two streams. */
  private static final class TeeStream extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    TeeStream(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }
  }
}
