package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.credentials.CredentialStore;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.SeleniumGrid;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The grid provider against a real Selenium Grid on loopback (a hub and two nodes of one slot each,
 * Debian's Chromium and chromium-driver, shared by the tests): the in-process host opens each
 * agent's browser as a session on the Grid.
 */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class GridProviderTest {
  static SeleniumGrid grid;
  static LoginSite site;
  static Path gridDir;
  @TempDir Path homeDir;
  @TempDir Path projectDir;
  private Host host;

  /** Chromium's and chromedriver's directories in /tmp before the Grid started. */
  static java.util.Set<String> chromiumTmpBefore;

  static java.util.Set<String> chromiumTmp() throws IOException {
    try (var entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return entries
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("org.chromium.Chromium."))
          .collect(java.util.stream.Collectors.toSet());
    }
  }

  @BeforeAll
  static void startGrid() throws Exception {
    chromiumTmpBefore = chromiumTmp();
    gridDir = Files.createTempDirectory("periscope-grid-test-");
    grid = new SeleniumGrid(gridDir, 2, 1);
    site = new LoginSite();
  }

  @AfterAll
  static void stopGrid() throws Exception {
    if (site != null) {
      site.close();
    }
    if (grid != null) {
      grid.close();
    }
    // -DkeepGridLogs=DIR keeps the hub's and nodes' logs there, for a failure to be read.
    if (System.getProperty("keepGridLogs") != null) {
      Files.move(gridDir, Path.of(System.getProperty("keepGridLogs")));
    }
    PluginInstaller.deleteTree(gridDir);
    // The browsers the nodes started, the killed node's among them, left nothing in /tmp.
    java.util.Set<String> left = chromiumTmp();
    left.removeAll(chromiumTmpBefore);
    assertEquals(java.util.Set.of(), left, "left in /tmp by the Grid's browsers");
  }

  @AfterEach
  void stopHost() {
    if (host != null) {
      host.close();
    }
  }

  /**
   * The project's {@code cleanupTimeoutMs} (the bound of each browser's close) for the next start.
   */
  private long cleanupTimeoutMs = 10_000;

  private Host start(String gridUrl, long queueTimeoutMs) throws Exception {
    return start(gridUrl, queueTimeoutMs, "");
  }

  /** A host of a project on the Grid, with {@code more} at the top of its configuration. */
  private Host start(String gridUrl, long queueTimeoutMs, String more) throws Exception {
    return start(gridUrl, queueTimeoutMs, more, home -> {});
  }

  private Host start(
      String gridUrl,
      long queueTimeoutMs,
      String more,
      java.util.function.Consumer<HarnessHome> installed)
      throws Exception {
    return start(gridUrl, queueTimeoutMs, more, installed, "");
  }

  /**
   * The same, with {@code installed} run once the profile has the plugin, and {@code gridMore} in
   * the grid section.
   */
  private Host start(
      String gridUrl,
      long queueTimeoutMs,
      String more,
      java.util.function.Consumer<HarnessHome> installed,
      String gridMore)
      throws Exception {
    HarnessHome home = new HarnessHome(homeDir);
    // A test may start a second host in the same home: the package is installed again.
    InstalledProfiles.install(home, "p");
    installed.accept(home);
    TestProjects.project(
        projectDir,
        more
            + """
            plugins:
              browser:
                provider: grid
                cleanupTimeoutMs: %d
                grid: {url: "%s", queueTimeoutMs: %d%s}
                network:
                  mode: allowlist
                  allowCidrs: ["127.0.0.1/32"]
            """
                .formatted(
                    cleanupTimeoutMs,
                    gridUrl,
                    queueTimeoutMs,
                    gridMore.isEmpty() ? "" : ", " + gridMore));
    host = Host.start(home, "p", projectDir, Host.Options.defaults());
    return host;
  }

  /** The Grid nodes the agent's environments ran on, as its audit trail names them. */
  @SuppressWarnings("unchecked")
  private static List<String> placements(Host h, String agent) {
    Map<String, Object> trails =
        (Map<String, Object>)
            h.operate("browser_transitions", Map.of("session", agent))
                .structured()
                .get("transitions");
    List<String> nodes = new ArrayList<>();
    for (Object rows : trails.values()) {
      for (Map<String, Object> row : (List<Map<String, Object>>) rows) {
        Object placement = row.get("placement");
        if (placement != null) {
          String node = ((String) placement).replaceAll(" session .*", "");
          if (!nodes.contains(node)) {
            nodes.add(node);
          }
        }
      }
    }
    return nodes;
  }

  private static ToolResult call(Host host, String agent, String tool, Map<String, Object> args) {
    return host.call(agent, tool, args, Cancellation.none());
  }

  /** A call that must succeed; its text is the failure message when it does not. */
  private static ToolResult ok(Host host, String agent, String tool, Map<String, Object> args) {
    ToolResult r = call(host, agent, tool, args);
    assertFalse(r.isError(), r.text());
    return r;
  }

  @Test
  void anAgentsPageOnTheGridIsObservedAndActedOnAndResumesLoggedIn() throws Exception {
    Host h = start(grid.url.toString(), 60_000);
    ToolResult login = call(h, "agent", "browser_open", Map.of("url", site.url("/login")));
    assertFalse(login.isError(), login.text());
    assertTrue(login.text().contains("Lighthouse login"), login.text());
    ToolResult in = call(h, "agent", "browser_click", DownloadsTest.target(login, "Log in"));
    assertFalse(in.isError(), in.text());
    assertTrue(in.text().contains("Logged in"), in.text());
    ToolResult shot = call(h, "agent", "browser_screenshot", Map.of());
    assertFalse(shot.isError(), shot.text());
    ToolResult denied =
        call(h, "agent", "browser_open", Map.of("url", "http://169.254.169.254/latest/meta-data"));
    assertTrue(denied.text().contains("code=BROWSER_POLICY_DENIED"), denied.text());

    // The session ends with its checkpoint, and its Grid session with it; the next call resumes
    // on a new Grid session, logged in.
    h.endSession("agent");
    ToolResult home = call(h, "agent", "browser_open", Map.of("url", site.url("/home")));
    assertTrue(home.text().contains("Welcome back, keeper"), home.text());
    assertTrue(home.text().contains("Theme: dark"), home.text());
    // The audit trail says on which node each of its environments ran.
    List<String> nodes = placements(h, "agent");
    assertFalse(nodes.isEmpty(), "no placement in the audit trail");
    assertTrue(
        nodes.stream().allMatch(n -> n.startsWith("grid node http://127.0.0.1:")),
        nodes.toString());
    // doctor's view of the Grid: both nodes up, the slot the agent holds taken.
    Map<?, ?> check =
        (Map<?, ?>) h.operate("browser_grid_check", Map.of()).structured().get("grid");
    assertEquals(true, check.get("ok"), check.toString());
    assertTrue(
        String.valueOf(check.get("detail")).contains("ready, 2 node(s) up, "), check.toString());
  }

  @Test
  void aGridWithNoFreeSlotFailsWithinTheBoundAndSaysSo() throws Exception {
    assertFreeSlots(2, "a test before left a Grid session open");
    Host h = start(grid.url.toString(), 3_000);
    for (String agent : java.util.List.of("a", "b")) {
      ToolResult r = call(h, agent, "browser_open", Map.of("url", site.url("/login")));
      assertFalse(r.isError(), r.text());
    }
    long start = System.nanoTime();
    ToolResult third = call(h, "c", "browser_open", Map.of("url", site.url("/login")));
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(third.isError(), third.text());
    assertTrue(third.text().contains("had no free slot within 3000 ms"), third.text());
    assertTrue(third.text().contains("code=BROWSER_CAPACITY"), third.text());
    assertTrue(third.text().contains("retryable=true"), third.text());
    assertTrue(third.text().contains("2 node(s) up, 0 of 2 Chrome slot(s) free"), third.text());
    assertTrue(ms < 30_000, "the full Grid held the call " + ms + " ms");
    // The refused call left nothing waiting in the Grid's queue: the slot an ending frees is the
    // next call's.
    h.endSession("a");
    ToolResult later = call(h, "c", "browser_open", Map.of("url", site.url("/login")));
    assertFalse(later.isError(), later.text());
  }

  @Test
  void aGridThatDoesNotAnswerIsAClearError() throws Exception {
    Host h = start("http://127.0.0.1:9", 2_000);
    ToolResult r = call(h, "agent", "browser_open", Map.of("url", site.url("/login")));
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains("the Selenium Grid at http://127.0.0.1:9"), r.text());
    assertTrue(r.text().contains("is the Grid running and reachable"), r.text());
    assertEquals(-1, r.text().indexOf("\tat "), "no stack trace");
  }

  /**
   * A stand-in for a Grid whose one node has a free Chrome slot but gives no browser: it refuses
   * the session as a node does when its Chromium cannot start, or never answers.
   */
  private static HttpServer fakeGrid(boolean answers, java.util.concurrent.CountDownLatch done)
      throws IOException {
    HttpServer fake =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    fake.createContext(
        "/status",
        e ->
            CredentialCanaryTest.respond(
                e,
                """
                {"value": {"ready": true, "nodes": [{"availability": "UP", "uri": "http://127.0.0.1:1",
                  "slots": [{"session": null, "stereotype": {"browserName": "chrome"}}]}]}}""",
                null));
    fake.createContext(
        "/session",
        e -> {
          e.getRequestBody().readAllBytes();
          if (!answers) {
            try {
              done.await(120, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
              Thread.currentThread().interrupt();
            }
          }
          byte[] body =
              ("{\"value\": {\"error\": \"session not created\", \"message\": \"Could not start a new"
                      + " session. session not created: Chrome failed to start: exited normally\","
                      + " \"stacktrace\": \"\"}}")
                  .getBytes(StandardCharsets.UTF_8);
          e.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
          e.sendResponseHeaders(500, body.length);
          e.getResponseBody().write(body);
          e.close();
        });
    fake.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    fake.start();
    return fake;
  }

  @Test
  void aNodeThatGivesNoBrowserAndAGridThatNeverStartsOneAreClearErrors() throws Exception {
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    HttpServer refusing = fakeGrid(true, done);
    HttpServer silent = fakeGrid(false, done);
    try {
      String refusingUrl = "http://127.0.0.1:" + refusing.getAddress().getPort();
      Host h = start(refusingUrl, 2_000);
      ToolResult refused = call(h, "agent", "browser_open", Map.of("url", site.url("/login")));
      assertTrue(refused.isError(), refused.text());
      assertTrue(refused.text().contains("the Selenium Grid at " + refusingUrl), refused.text());
      assertTrue(refused.text().contains("Chrome failed to start"), refused.text());
      assertEquals(-1, refused.text().indexOf("\tat "), "no stack trace");
      h.close();
      host = null;

      String silentUrl = "http://127.0.0.1:" + silent.getAddress().getPort();
      Host s = start(silentUrl, 2_000, "", home -> {}, "launchTimeoutMs: 2000");
      ToolResult late = call(s, "agent", "browser_open", Map.of("url", site.url("/login")));
      assertTrue(late.isError(), late.text());
      assertTrue(late.text().contains("did not start a browser within 2000 ms"), late.text());
      assertTrue(late.text().contains("launchTimeoutMs"), late.text());
    } finally {
      done.countDown();
      refusing.stop(0);
      silent.stop(0);
    }
  }

  @Test
  void aCredentialFillOnTheGridReachesTheSiteMaskedAndNeverTheModel() throws Exception {
    String secret =
        "Gr" + java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(8));
    List<String> posted = new CopyOnWriteArrayList<>();
    HttpServer bank =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    bank.createContext(
        "/login", e -> CredentialCanaryTest.respond(e, CredentialCanaryTest.LOGIN, null));
    bank.createContext(
        "/session",
        e -> {
          posted.add(new String(e.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          CredentialCanaryTest.respond(
              e, "<!doctype html><title>Accounts</title><h1>Signed in</h1>", null);
        });
    bank.start();
    try {
      String origin = "http://127.0.0.1:" + bank.getAddress().getPort();
      Host h =
          start(
              grid.url.toString(),
              60_000,
              """
              credentials:
                bank: {store: bank, origins: ["%s"]}
              approval:
                rules: [{tool: browser_fill_credential, credential: bank, decision: allow}]
              """
                  .formatted(origin),
              home ->
                  new CredentialStore(home.profile("p").dir()).put("bank", secret.toCharArray()));
      List<ToolResult> results = new ArrayList<>();
      ToolResult login = call(h, "teller", "browser_open", Map.of("url", origin + "/login"));
      results.add(login);
      for (String field : List.of("Username", "Password")) {
        Map<String, Object> target =
            DownloadsTest.target(call(h, "teller", "browser_observe", Map.of()), field);
        target.put("credential_ref", "bank");
        ToolResult filled = call(h, "teller", "browser_fill_credential", target);
        assertTrue(
            filled.text().contains("Filled " + secret.length() + " characters"), filled.text());
        results.add(filled);
      }
      ToolResult shot = call(h, "teller", "browser_screenshot", Map.of());
      assertFalse(shot.isError(), shot.text());
      results.add(shot);
      ToolResult signedIn =
          call(
              h,
              "teller",
              "browser_click",
              DownloadsTest.target(call(h, "teller", "browser_observe", Map.of()), "Sign in"));
      results.add(signedIn);
      assertTrue(signedIn.text().contains("Signed in"), signedIn.text());
      assertTrue(
          posted.stream().anyMatch(b -> b.contains("pw=" + secret)), "the site got the secret");
      for (ToolResult r : results) {
        assertFalse(r.text().contains(secret), r.text());
        assertFalse(String.valueOf(r.structured()).contains(secret), "structured content");
      }
      // The screenshot, taken of the remote browser, masks the text field that holds the secret.
      List<Path> pngs;
      try (Stream<Path> files = Files.walk(homeDir)) {
        pngs = files.filter(f -> f.toString().endsWith(".png")).toList();
      }
      assertEquals(1, pngs.size(), pngs.toString());
      BufferedImage image = ImageIO.read(pngs.get(0).toFile());
      assertTrue(
          CredentialCanaryTest.fieldPixels(image).stream()
              .allMatch(p -> p == CredentialCanaryTest.MASK),
          "the filled text field is masked");
    } finally {
      bank.stop(0);
    }
  }

  /**
   * Waits up to 30 s for the Grid's {@code /status} to show {@code want} free Chrome slots, and
   * fails with {@code what} when it does not: the message names each session still held, the lane
   * that asked for it, and what the hub's and nodes' logs say of it.
   */
  private static void assertFreeSlots(int want, String what) throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    int free;
    String status;
    do {
      status =
          http.send(
                  java.net.http.HttpRequest.newBuilder(grid.url.resolve("/status")).build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString())
              .body();
      free = status.split("\"session\": null", -1).length - 1;
      if (free == want) {
        return;
      }
      Thread.sleep(250);
    } while (System.nanoTime() < deadline);
    StringBuilder held = new StringBuilder();
    java.util.regex.Matcher session =
        java.util.regex.Pattern.compile("\"sessionId\": \"([0-9a-f]+)\"").matcher(status);
    while (session.find()) {
      String id = session.group(1);
      held.append("\nsession ").append(id);
      String rest = status.substring(session.end());
      int next = rest.indexOf("\"sessionId\"");
      java.util.regex.Matcher lane =
          java.util.regex.Pattern.compile("\"periscope:lane\": \"([^\"]+)\"")
              .matcher(next < 0 ? rest : rest.substring(0, next));
      if (lane.find()) {
        held.append(" of lane ").append(lane.group(1));
      }
      try (var logs = Files.list(gridDir)) {
        for (Path log : logs.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
          Files.readAllLines(log, StandardCharsets.ISO_8859_1).stream()
              .filter(l -> l.contains(id))
              .limit(6)
              .forEach(
                  l ->
                      held.append("\n  ")
                          .append(log.getFileName())
                          .append(": ")
                          .append(l, 0, Math.min(l.length(), 180)));
        }
      }
    }
    assertEquals(want, free, what + "; the Grid holds:" + held);
  }

  @Test
  void theGridSessionsOfAKilledDriverAreEndedAndAStopLeavesNone() throws Exception {
    Host h = start(grid.url.toString(), 60_000);
    ok(h, "orphan", "browser_open", Map.of("url", site.url("/login")));
    assertFreeSlots(1, "the agent's browser holds one slot");
    // The host's Playwright driver, started by this test's JVM (the Grid's processes are java).
    ProcessHandle driver =
        ProcessHandle.current()
            .descendants()
            .filter(p -> p.info().commandLine().orElse("").contains("run-driver"))
            .findFirst()
            .orElseThrow(
                () -> new AssertionError("no Playwright driver among this JVM's processes"));
    driver.destroyForcibly();
    driver.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
    // Its browser on the Grid outlived it; the lane's close ends that session, so the next
    // browser takes one slot, not a second.
    ToolResult next = call(h, "orphan", "browser_open", Map.of("url", site.url("/home")));
    if (next.isError()) {
      assertTrue(next.text().contains("lease=rebuilt"), next.text());
      next = call(h, "orphan", "browser_open", Map.of("url", site.url("/home")));
    }
    assertFalse(next.isError(), next.text());
    assertTrue(next.text().contains("URL: " + site.url("/home")), next.text());
    assertFreeSlots(1, "the killed driver's Grid session is still open");
    h.close();
    host = null;
    assertFreeSlots(2, "a stopped host left a session open on the Grid");
  }

  /**
   * A host stopped with 100 ms for each close (the bound of a browser's close, which a close on the
   * Grid may or may not run out of): both Grid sessions still end.
   */
  @Test
  void aHostWhoseClosesRunOutOfTimeStillLeavesNoGridSession() throws Exception {
    assertFreeSlots(2, "a test before left a Grid session open");
    cleanupTimeoutMs = 100;
    Host h = start(grid.url.toString(), 60_000);
    for (String agent : List.of("left", "right")) {
      ok(h, agent, "browser_open", Map.of("url", site.url("/login")));
    }
    assertFreeSlots(0, "each agent's browser holds a slot");
    host = null;
    try {
      h.close();
    } catch (RuntimeException ranOut) {
      // A close that ran out of its 100 ms says so; what it leaves on the Grid is checked below.
    }
    assertFreeSlots(2, "a host whose closes ran out of time left a session open on the Grid");
  }

  @Test
  void twoAgentsAtOnceGetABrowserEachOnTheGrid() throws Exception {
    assertFreeSlots(2, "a test before left a Grid session open");
    Host h = start(grid.url.toString(), 60_000);
    List<ToolResult> results = new CopyOnWriteArrayList<>();
    List<Thread> agents = new ArrayList<>();
    for (String agent : List.of("left", "right")) {
      Thread t =
          new Thread(
              () -> results.add(call(h, agent, "browser_open", Map.of("url", site.url("/login")))));
      t.start();
      agents.add(t);
    }
    for (Thread t : agents) {
      t.join(120_000);
    }
    assertEquals(2, results.size());
    results.forEach(r -> assertFalse(r.isError(), r.text()));
    List<String> left = placements(h, "left");
    List<String> right = placements(h, "right");
    assertEquals(1, left.size(), left.toString());
    assertEquals(1, right.size(), right.toString());
    // One slot a node: the two browsers are on the two nodes.
    assertFalse(left.equals(right), left + " " + right);
    // Each session is ended once. A driver told to exit ends again each session whose end it has
    // not been answered yet; the node holds one of two such ends until the driver is stopped, and
    // the hub logs the request it held (a second end that finds the session gone is logged too,
    // as "Unable to find session", and is no harm).
    long hubLogBefore = Files.size(gridDir.resolve("hub.log"));
    h.close();
    host = null;
    assertFreeSlots(2, "the stopped host left a session open on the Grid");
    byte[] hubLog = Files.readAllBytes(gridDir.resolve("hub.log"));
    List<String> held =
        new String(
                hubLog,
                (int) hubLogBefore,
                hubLog.length - (int) hubLogBefore,
                StandardCharsets.ISO_8859_1)
            .lines()
            .filter(l -> l.contains("Unable to execute request for an existing session"))
            .filter(l -> !l.contains("Unable to find session"))
            .toList();
    assertEquals(List.of(), held, "requests the hub held failed as the host stopped");
  }

  /**
   * Loopback addresses the corpus names, other than 127.0.0.1 (which the project admits): a browser
   * that bypassed its policy proxy would reach these.
   */
  static final String[][] DECOYS = {
    {"127.127.127.127", "80"},
    {"127.0.1.3", "80"},
    {"127.0.0.2", "80"},
    {"127.0.0.6", "80"},
    {"127.1.1.1", "80"},
    {"127.2.2.2", "80"}
  };

  /**
   * The SSRF corpus entries that name no host a resolver would be asked about (IP literals in any
   * form, other schemes): the test never dials out, and this host resolves names for real.
   */
  static List<String> literalCorpus() throws IOException {
    List<String> kept = new ArrayList<>();
    for (String line :
        Files.readAllLines(
            Path.of("../../browser-plugin/src/test/resources/corpora/ssrf_payloads.txt"))) {
      String entry = line.strip();
      if (entry.isEmpty()) {
        continue;
      }
      try {
        URI uri = new URI(entry);
        String scheme = String.valueOf(uri.getScheme()).toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
          if (uri.getScheme() != null && !entry.contains("://") || scheme.equals("file")) {
            kept.add(entry); // handled by Chromium itself, never a connection
          }
          continue;
        }
        String host = uri.getHost();
        if (host != null && (host.matches("[0-9.]+") || host.matches("\\[[0-9A-Fa-f:.]+\\]"))) {
          kept.add(entry);
        }
      } catch (java.net.URISyntaxException unparsed) {
        // read by Chromium its own way, maybe as a name: left out
      }
    }
    return kept;
  }

  @Test
  void theSsrfCorpusIsRefusedThroughTheGridAndLoopbackDecoysHearNothing() throws Exception {
    AtomicInteger hits = new AtomicInteger();
    List<ServerSocket> decoys = new ArrayList<>();
    try {
      for (String[] d : DECOYS) {
        ServerSocket s;
        try {
          s = new ServerSocket(Integer.parseInt(d[1]), 50, InetAddress.getByName(d[0]));
        } catch (java.net.BindException taken) {
          // Another test process on this machine holds it (its own decoy): left out, as the
          // browser plugin's Decoys leave out a place they cannot bind, and said so.
          System.out.println("decoy " + d[0] + ":" + d[1] + " not bound: " + taken.getMessage());
          continue;
        }
        decoys.add(s);
        Thread t =
            new Thread(
                () -> {
                  try {
                    while (true) {
                      s.accept().close();
                      hits.incrementAndGet();
                    }
                  } catch (IOException closed) {
                    // the test is over
                  }
                });
        t.setDaemon(true);
        t.start();
      }
      AtomicInteger beacons = new AtomicInteger();
      site.handler(
          "/beacon",
          e -> {
            beacons.incrementAndGet();
            CredentialCanaryTest.respond(e, "ok", null);
          });
      Host h = start(grid.url.toString(), 60_000);
      ok(h, "ssrf", "browser_open", Map.of("url", site.url("/login")));
      List<String> corpus = literalCorpus();
      assertTrue(corpus.size() >= 40, corpus.size() + " entries");
      // The entries as frames, images, fetches and WebSockets of an admitted page: what the Grid's
      // browser itself asks for. (browser_open judges a destination before any browser is asked,
      // the same for every provider: NetworkPolicyBrowserTest covers it with the whole corpus.)
      for (int from = 0; from < corpus.size(); from += 25) {
        List<String> targets = corpus.subList(from, Math.min(corpus.size(), from + 25));
        String path = "/hostile-" + from;
        site.page(
            path,
            "<script>const targets = "
                + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(targets)
                + ";\nfor (const t of targets) {"
                + " try { const f = document.createElement('iframe'); f.src = t; document.body.appendChild(f); } catch (e) {}"
                + " try { new Image().src = t; } catch (e) {}"
                + " try { fetch(t).catch(() => {}); } catch (e) {}"
                + " try { new WebSocket(t.replace(/^http/, 'ws')); } catch (e) {} }"
                + " fetch('/beacon');</script>");
        ToolResult hostile = call(h, "ssrf", "browser_open", Map.of("url", site.url(path)));
        // Loaded, or stopped by the guards for a frame that hands a scheme to another program.
        assertTrue(
            !hostile.isError() || hostile.text().contains("to another program"), hostile.text());
        // The page never goes idle (its WebSockets retry); what it asks for, it asked for at once.
        call(h, "ssrf", "browser_wait", Map.of("until", "network-idle", "timeout_ms", 1500));
      }
      Thread.sleep(1000);
      assertEquals(0, hits.get(), "a loopback decoy received a connection from the Grid's browser");
      assertEquals(
          (corpus.size() + 24) / 25, beacons.get(), "every hostile page's script ran to its end");
      System.out.printf(
          "SSRF corpus through the Grid: %d literal entries as page targets;"
              + " %d loopback decoys, 0 connections%n",
          corpus.size(), decoys.size());
    } finally {
      for (ServerSocket s : decoys) {
        s.close();
      }
    }
  }

  @Test
  @org.junit.jupiter.api.Order(Integer.MAX_VALUE - 2) // it drains a node, then starts another
  void whenItsNodeDrainsTheSessionMovesOffItLoggedInAndTheNodeStops() throws Exception {
    assertFreeSlots(2, "a test before left a Grid session open");
    Host h = start(grid.url.toString(), 60_000, "", home -> {}, "drainCheckMs: 1000");
    try {
      ToolResult login = call(h, "drained", "browser_open", Map.of("url", site.url("/login")));
      ok(h, "drained", "browser_click", DownloadsTest.target(login, "Log in"));
      // The next call waits for the checkpoint that followed the login.
      ok(h, "drained", "browser_observe", Map.of());
      List<String> before = placements(h, "drained");
      assertEquals(1, before.size(), before.toString());
      URI node = URI.create(before.get(0).replace("grid node ", ""));
      java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
      // As an operator drains a node (Selenium's own endpoint; no registration secret here).
      var drained =
          http.send(
              java.net.http.HttpRequest.newBuilder(node.resolve("/se/grid/node/drain"))
                  .header("X-REGISTRATION-SECRET", "")
                  .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertEquals(200, drained.statusCode(), drained.body());
      // No call runs: the agent's idle browser is checkpointed and closed, so the node, whose only
      // session it was, finishes draining and stops.
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
      boolean stopped = false;
      while (!stopped && System.nanoTime() < deadline) {
        try {
          http.send(
              java.net.http.HttpRequest.newBuilder(node.resolve("/status"))
                  .timeout(java.time.Duration.ofSeconds(2))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.discarding());
          Thread.sleep(250);
        } catch (java.io.IOException gone) {
          stopped = true;
        }
      }
      assertTrue(stopped, "the drained node still runs: the agent's browser kept it up");
      // The agent's next call goes on, on the other node, still logged in.
      ToolResult next = ok(h, "drained", "browser_open", Map.of("url", site.url("/home")));
      assertTrue(next.text().contains("Welcome back, keeper"), next.text());
      List<String> after = placements(h, "drained");
      assertEquals(2, after.size(), "the audit trail names both nodes: " + after);
      String trail = h.operate("browser_transitions", Map.of("session", "drained")).text();
      assertTrue(trail.contains("retiring"), trail);
    } finally {
      // The node-kill test after this one needs two nodes again.
      grid.addNode();
      grid.awaitNodes(2);
    }
  }

  @Test
  @org.junit.jupiter.api.Order(Integer.MAX_VALUE - 1) // it kills a node: after the others
  void whenItsNodeDiesTheSessionMovesToTheOtherNodeLoggedIn() throws Exception {
    Host h = start(grid.url.toString(), 60_000);
    ToolResult login = call(h, "mover", "browser_open", Map.of("url", site.url("/login")));
    ok(h, "mover", "browser_click", DownloadsTest.target(login, "Log in"));
    // The next call waits for the checkpoint that followed the login.
    ok(h, "mover", "browser_observe", Map.of());
    Process running =
        grid.nodes().stream()
            .filter(
                n -> n.descendants().anyMatch(p -> p.info().command().orElse("").contains("chrom")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no node runs the agent's browser"));
    // The Grid need not have noticed: the dead node's one slot stays taken, so the next browser
    // goes to the other node.
    SeleniumGrid.killTree(running);
    ToolResult first = call(h, "mover", "browser_open", Map.of("url", site.url("/home")));
    String text = first.text();
    if (first.isError()) {
      // The call that finds the browser gone says so; the one after it goes on elsewhere.
      assertTrue(text.contains("lease=rebuilt") || text.contains("BROWSER_CRASHED"), text);
      text = call(h, "mover", "browser_open", Map.of("url", site.url("/home"))).text();
    }
    assertTrue(text.contains("Welcome back, keeper"), text);
    List<String> nodes = placements(h, "mover");
    assertEquals(
        2,
        nodes.size(),
        "the audit trail names both nodes: "
            + h.operate("browser_transitions", Map.of("session", "mover")).text());
  }

  @Test
  @org.junit.jupiter.api.Order(Integer.MAX_VALUE) // it stops the Grid: last
  void whenTheGridGoesDownMidSessionTheNextCallSaysSoClearly() throws Exception {
    // The node the test before killed may still be listed; a session placed there fails and
    // the Grid queues it again, so wait until only the live node is left.
    grid.awaitNodes(1);
    Host h = start(grid.url.toString(), 30_000);
    ok(h, "stranded", "browser_open", Map.of("url", site.url("/login")));
    grid.stopHub();
    long start = System.nanoTime();
    ToolResult first = call(h, "stranded", "browser_observe", Map.of());
    ToolResult second = call(h, "stranded", "browser_open", Map.of("url", site.url("/home")));
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(second.isError(), second.text());
    assertTrue(second.text().contains("the Selenium Grid at " + grid.url), second.text());
    assertTrue(second.text().contains("is the Grid running and reachable"), second.text());
    for (ToolResult r : List.of(first, second)) {
      assertEquals(-1, r.text().indexOf("\tat "), "no stack trace: " + r.text());
    }
    assertTrue(ms < 120_000, "the calls after the Grid went down took " + ms + " ms");
  }
}
