package dev.periscope.harness.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code harness mcp --http} as its clients see it: a real server process, the SDK's own Streamable
 * HTTP client, raw HTTP for what a well-behaved client never sends, and a real browser per session
 * against a site on 127.0.0.1.
 */
class McpHttpServerTest {
  static LoginSite site;
  @TempDir Path home;
  @TempDir Path project;
  @TempDir Path tmp;

  @BeforeAll
  static void startSite() throws Exception {
    site = new LoginSite();
  }

  @AfterAll
  static void stopSite() {
    site.close();
  }

  private McpHttpProcess serve(String... args) throws Exception {
    InstalledProfiles.install(home, "p");
    TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
    return new McpHttpProcess(home, tmp, project, Map.of(), args);
  }

  private static String open(McpSyncClient client, String path) {
    CallToolResult r = McpHttpProcess.call(client, "browser_open", Map.of("url", site.url(path)));
    assertFalse(r.isError(), McpConnection.text(r));
    return McpConnection.text(r);
  }

  @Test
  void twoClientsAtOnceSeeSeparatePagesAndCannotUseEachOthersRefs() throws Exception {
    try (McpHttpProcess server = serve()) {
      McpSyncClient a = server.client(null);
      McpSyncClient b = server.client(null);
      CompletableFuture<CallToolResult> atA =
          CompletableFuture.supplyAsync(
              () -> McpHttpProcess.call(a, "browser_open", Map.of("url", site.url("/login"))));
      CompletableFuture<CallToolResult> atB =
          CompletableFuture.supplyAsync(
              () -> McpHttpProcess.call(b, "browser_open", Map.of("url", site.url("/workbench"))));
      String pageA = McpConnection.text(atA.get());
      String pageB = McpConnection.text(atB.get());
      assertTrue(pageA.contains("Lighthouse login") && !pageA.contains("Options"), pageA);
      assertTrue(pageB.contains("Options") && !pageB.contains("Lighthouse login"), pageB);

      // B acts on A's ref: refused, and B's page is as it was.
      CallToolResult foreign =
          McpHttpProcess.call(b, "browser_click", McpConnection.target(atA.get(), "Log in"));
      assertTrue(foreign.isError(), McpConnection.text(foreign));
      assertTrue(
          McpConnection.text(foreign).toLowerCase(java.util.Locale.ROOT).contains("stale"),
          McpConnection.text(foreign));
      String stillB = McpConnection.text(McpHttpProcess.call(b, "browser_observe", Map.of()));
      assertTrue(stillB.contains("Options"), stillB);
      String stillA = McpConnection.text(McpHttpProcess.call(a, "browser_observe", Map.of()));
      assertTrue(stillA.contains("Lighthouse login"), stillA);
      assertTrue(server.err().contains("MCP session opened for agent session mcp-"), server.err());
    }
  }

  @Test
  void aClientThatReconnectsWithItsSessionNameIsStillLoggedIn() throws Exception {
    try (McpHttpProcess server = serve()) {
      McpSyncClient first = server.client("keeper");
      CallToolResult login =
          McpHttpProcess.call(first, "browser_open", Map.of("url", site.url("/login")));
      CallToolResult in =
          McpHttpProcess.call(first, "browser_click", McpConnection.target(login, "Log in"));
      assertTrue(McpConnection.text(in).contains("Logged in"), McpConnection.text(in));
      first.closeGracefully(); // the SDK's client ends its session with DELETE
      assertTrue(
          server.said("MCP session of agent session keeper ended: its client ended it"),
          server.err());

      McpSyncClient again = server.clientNamedInUrl("keeper");
      String home = open(again, "/home");
      assertTrue(home.contains("Welcome back, keeper") && home.contains("Theme: dark"), home);
      String stranger = open(server.client(null), "/home");
      assertTrue(stranger.contains("Not logged in"), stranger);

      // A client that comes back under its name while its old session lives on (its process
      // died, say) takes the agent session over; the old session is gone.
      McpSyncClient takeover = server.client("keeper");
      assertTrue(open(takeover, "/home").contains("Welcome back, keeper"));
      assertTrue(server.said("its client started a new session under the same name"), server.err());
      boolean refused;
      try {
        refused = McpHttpProcess.call(again, "browser_observe", Map.of()).isError();
      } catch (RuntimeException ended) {
        refused = true;
      }
      assertTrue(refused, "the old session still answered");
    }
  }

  @Test
  void requestsWithoutTheTokenFromAForeignOriginOrOversizedAreRefusedAndTheServerKeepsServing()
      throws Exception {
    try (McpHttpProcess server = serve("--read-timeout", "2s", "--max-sessions", "3")) {
      McpHttpRaw raw = new McpHttpRaw(server);
      String init = McpHttpRaw.INITIALIZE;

      HttpResponse<String> none = raw.post(init, Map.of("Authorization", ""));
      assertEquals(401, none.statusCode(), none.body());
      assertEquals(-32600, McpHttpRaw.code(none));
      assertEquals(
          401, raw.post(init, Map.of("Authorization", "Bearer " + "x".repeat(43))).statusCode());
      assertEquals(
          401,
          raw.post(init, Map.of("Authorization", "Basic " + server.token)).statusCode(),
          "the token only as a bearer token");
      HttpResponse<String> page = raw.post(init, Map.of("Origin", "http://attacker.example"));
      assertEquals(403, page.statusCode(), page.body());
      assertEquals(
          403,
          raw.post(init, Map.of("Origin", "http://127.0.0.1:" + server.endpoint.getPort()))
              .statusCode(),
          "no web page at all, not even one served from the server's own address");
      // DNS rebinding: the attacker's name resolves to 127.0.0.1, and the browser says so in Host.
      assertTrue(
          raw.socket("POST /mcp HTTP/1.1\r\nHost: attacker.example:80\r\n", init)
              .startsWith("HTTP/1.1 421"));

      // Header lines are bounded too.
      assertTrue(
          raw.socket(
                  "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + "a".repeat(20_000) + "\r\n",
                  init)
              .startsWith("HTTP/1.1 431"));

      // A length past the bound is refused before any of the body is read (the test sends none).
      String oversized =
          raw.exchange(
              raw.head("Content-Length: " + (MessageRules.MAX_MESSAGE + 1) + "\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      assertTrue(oversized.startsWith("HTTP/1.1 413"), oversized);
      assertTrue(oversized.contains("at most 4194304 bytes"), oversized);
      // The same without a length given: counted as it comes, and refused once past the bound.
      java.io.ByteArrayOutputStream chunked = new java.io.ByteArrayOutputStream();
      chunked.write(
          (raw.head("Transfer-Encoding: chunked\r\n")
                  + Integer.toHexString(MessageRules.MAX_MESSAGE + 1)
                  + "\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      byte[] huge = new byte[MessageRules.MAX_MESSAGE + 1];
      java.util.Arrays.fill(huge, (byte) ' ');
      chunked.write(huge);
      String streamed = raw.exchange(chunked.toByteArray());
      assertTrue(streamed.startsWith("HTTP/1.1 413"), streamed);
      for (String method : List.of("HEAD", "PUT", "OPTIONS")) {
        assertTrue(
            raw.socket(method + " /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n", "")
                .startsWith("HTTP/1.1 405"),
            method);
      }
      HttpResponse<String> reserved = raw.post(init, Map.of("Periscope-Session", "mcp-1234"));
      assertEquals(400, reserved.statusCode(), reserved.body());
      assertEquals(-32602, McpHttpRaw.code(reserved));
      // A session name in the query that is not URL-encoded: the client's mistake, named.
      String badEscape =
          raw.socket(
              "POST "
                  + server.endpoint.getPath()
                  + "?session=%zz% HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + "Accept: application/json, text/event-stream\r\n",
              init);
      assertTrue(badEscape.startsWith("HTTP/1.1 400"), badEscape);
      assertTrue(
          badEscape.contains("-32602")
              && badEscape.contains("the session query parameter is not URL-encoded"),
          badEscape);

      // Bad JSON and bad JSON-RPC: the codes standard input and output give.
      assertEquals(-32700, McpHttpRaw.code(raw.post("{\"jsonrpc\": ", Map.of())));
      assertEquals(-32600, McpHttpRaw.code(raw.post("[1, 2]", Map.of())));
      assertEquals(-32600, McpHttpRaw.code(raw.post("{\"jsonrpc\":\"1.0\",\"id\":1}", Map.of())));
      String session = raw.initialize();
      HttpResponse<String> badCall =
          raw.post(
              "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":1}}",
              Map.of("Mcp-Session-Id", session));
      assertEquals(-32602, McpHttpRaw.code(badCall), badCall.body());
      HttpResponse<String> stranger =
          raw.post(
              "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\"}",
              Map.of("Mcp-Session-Id", "not-a-session"));
      assertEquals(404, stranger.statusCode());

      // A client that sends half a request and stalls is dropped, and holds nothing meanwhile.
      try (Socket stalled = new Socket(server.endpoint.getHost(), server.endpoint.getPort())) {
        OutputStream out = stalled.getOutputStream();
        out.write(
            ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + server.token
                    + "\r\nContent-Type: application/json\r\nAccept: application/json,"
                    + " text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        McpSyncClient meanwhile = server.client(null);
        assertFalse(meanwhile.listTools().tools().isEmpty());
        stalled.setSoTimeout(20_000);
        long start = System.nanoTime();
        String answer =
            new String(stalled.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
        assertTrue(answer.contains("did not arrive within 2s"), answer);
        assertTrue(ms < 15_000, "the stalled connection was held " + ms + " ms");
      }

      // A call longer than the read timeout is no stall: it is answered.
      McpSyncClient patient = server.client(null);
      CallToolResult login =
          McpHttpProcess.call(patient, "browser_open", Map.of("url", site.url("/login")));
      Map<String, Object> wait = new HashMap<>(McpConnection.target(login, "Log in"));
      wait.put("until", "element-hidden");
      wait.put("timeout_ms", 4000);
      long waitStart = System.nanoTime();
      CallToolResult waited = McpHttpProcess.call(patient, "browser_wait", wait);
      long waitedMs = (System.nanoTime() - waitStart) / 1_000_000;
      assertTrue(waitedMs >= 3_500, "waited " + waitedMs + " ms: " + McpConnection.text(waited));
      assertTrue(McpConnection.text(waited).contains("code="), McpConnection.text(waited));

      // Three sessions hold the three browsers, none with a call running: a fourth parks the one
      // used least recently instead of being refused. A DELETE ends a session.
      HttpResponse<String> fourth = raw.post(init, Map.of());
      assertEquals(200, fourth.statusCode(), fourth.body());
      assertTrue(server.said("parked (its browser released with a checkpoint)"), server.err());
      assertEquals(200, raw.delete(session).statusCode());
      assertEquals(404, raw.delete(session).statusCode(), "a deleted session is gone");
      assertEquals(
          404,
          raw.post(
                  "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}",
                  Map.of("Mcp-Session-Id", session))
              .statusCode());
      raw.initialize();
      assertFalse(server.err().contains(server.token), "the token is never logged");
    }
  }

  @Test
  void clientsThatLeaveWithoutDeleteLockNobodyOutAndTheParkedSessionResumesLoggedIn()
      throws Exception {
    try (McpHttpProcess server = serve("--max-sessions", "2")) {
      McpSyncClient keeper = server.client("keeper");
      CallToolResult login =
          McpHttpProcess.call(keeper, "browser_open", Map.of("url", site.url("/login")));
      McpHttpProcess.call(keeper, "browser_click", McpConnection.target(login, "Log in"));
      // Ten clients that each open a page and go away without DELETE (as LangChain4j's does).
      for (int i = 0; i < 10; i++) {
        McpSyncClient leaver = server.client(null);
        open(leaver, "/workbench");
      }
      McpSyncClient late = server.client(null);
      assertTrue(open(late, "/workbench").contains("keys: 0"), "a client still gets a page");
      // The keeper's browser was released meanwhile; its next call says so once and is logged in.
      CallToolResult home =
          McpHttpProcess.call(keeper, "browser_open", Map.of("url", site.url("/home")));
      String text = McpConnection.text(home);
      assertFalse(home.isError(), text);
      assertTrue(text.startsWith("While this session was idle its browser was released"), text);
      assertTrue(text.contains("Welcome back, keeper"), "restored logged in: " + text);
      assertTrue(
          String.valueOf(home.structuredContent()).contains("While this session was idle"),
          "frameworks that show only the structured content see it too");
      String again = open(keeper, "/home");
      assertFalse(again.contains("While this session was idle"), "said once: " + again);
    }
  }

  @Test
  void onlyWhenEveryBrowserHasACallRunningIsANewSessionRefused() throws Exception {
    try (McpHttpProcess server = serve("--max-sessions", "1")) {
      McpSyncClient busy = server.client("busy");
      CallToolResult login =
          McpHttpProcess.call(busy, "browser_open", Map.of("url", site.url("/login")));
      Map<String, Object> wait = new HashMap<>(McpConnection.target(login, "Log in"));
      wait.put("until", "element-hidden");
      wait.put("timeout_ms", 4000);
      CompletableFuture<CallToolResult> waiting =
          CompletableFuture.supplyAsync(() -> McpHttpProcess.call(busy, "browser_wait", wait));
      Thread.sleep(1_000);
      McpHttpRaw raw = new McpHttpRaw(server);
      HttpResponse<String> refused = raw.post(McpHttpRaw.INITIALIZE, Map.of());
      assertEquals(503, refused.statusCode(), refused.body());
      assertTrue(
          refused
              .body()
              .contains(
                  "at most 1 browsers at once (--max-sessions 1), and every one"
                      + " has a call running"),
          refused.body());
      waiting.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertEquals(200, raw.post(McpHttpRaw.INITIALIZE, Map.of()).statusCode());
    }
  }

  @Test
  void anIdleSessionEndsWithACheckpointThoughItsClientAnswersPings() throws Exception {
    try (McpHttpProcess server = serve("--idle-timeout", "3s", "--keep-alive", "1s")) {
      // The SDK's client listens on its session and answers the server's pings meanwhile.
      McpSyncClient idler = server.client("idler");
      CallToolResult login =
          McpHttpProcess.call(idler, "browser_open", Map.of("url", site.url("/login")));
      McpHttpProcess.call(idler, "browser_click", McpConnection.target(login, "Log in"));
      long calm = System.nanoTime();
      assertTrue(server.said("agent session idler ended: idle for 3s"), server.err());
      long ms = (System.nanoTime() - calm) / 1_000_000;
      assertTrue(ms >= 2_500, "ended after " + ms + " ms");
      McpSyncClient back = server.client("idler");
      String home = open(back, "/home");
      assertTrue(home.contains("Welcome back, keeper"), "the idle end kept a checkpoint: " + home);
    }
  }

  @Test
  void aCancelledCallOverHttpStops() throws Exception {
    try (McpHttpProcess server = serve()) {
      McpHttpRaw raw = new McpHttpRaw(server);
      String session = raw.initialize();
      CompletableFuture<HttpResponse<String>> slow =
          CompletableFuture.supplyAsync(
              () ->
                  raw.post(
                      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
                          + "\"browser_open\",\"arguments\":{\"url\":\""
                          + site.url("/slow")
                          + "\"}}}",
                      Map.of("Mcp-Session-Id", session)));
      assertTrue(site.awaitSlow(), "the browser is waiting on /slow");
      long start = System.nanoTime();
      HttpResponse<String> cancelled =
          raw.post(
              "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5}}",
              Map.of("Mcp-Session-Id", session));
      assertEquals(202, cancelled.statusCode());
      String answer = slow.get().body();
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(ms < 30_000, "the cancelled call ran on for " + ms + " ms");
      assertTrue(answer.contains("cancel"), answer);
    }
  }

  @Test
  void sigtermWithFiveSessionsOpenEndsThemAllAndLeavesNothingRunning() throws Exception {
    McpHttpProcess server = serve();
    try (server) {
      List<CompletableFuture<String>> opened = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        McpSyncClient c = server.client("agent-" + i);
        opened.add(CompletableFuture.supplyAsync(() -> open(c, "/login")));
      }
      for (CompletableFuture<String> o : opened) {
        assertTrue(o.get().contains("Lighthouse login"));
      }
      McpSyncClient first = server.client("agent-0");
      CallToolResult login =
          McpHttpProcess.call(first, "browser_open", Map.of("url", site.url("/login")));
      McpHttpProcess.call(first, "browser_click", McpConnection.target(login, "Log in"));
      long start = System.nanoTime();
      assertEquals(0, server.terminate(Duration.ofSeconds(30)), "a clean stop exits 0");
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertEquals(
          List.of(),
          server.survivors(Duration.ofSeconds(10)).stream()
              .map(p -> p.pid() + " " + p.info().command().orElse("?"))
              .toList(),
          "processes left running");
      assertTrue(
          server.descendants.size() >= 3,
          "the watch saw the drivers and browsers: " + server.descendants.size());
      for (int i = 0; i < 5; i++) {
        assertTrue(
            server.err().contains("agent session agent-" + i + " ended: the server is stopping"),
            server.err());
      }
      try (var left = Files.list(tmp)) {
        assertEquals(
            List.of(),
            left.filter(p -> p.getFileName().toString().startsWith("periscope-")).toList(),
            "temp roots left");
      }
      assertFalse(server.err().contains("ending its agent session failed"), server.err());
      System.out.printf("MCP over HTTP: SIGTERM with 5 sessions open: stopped in %d ms%n", ms);
    }
    // The stop's checkpoint: a new server resumes agent-0 logged in.
    try (McpHttpProcess again = new McpHttpProcess(home, tmp, project, Map.of())) {
      String home = open(again.client("agent-0"), "/home");
      assertTrue(home.contains("Welcome back, keeper"), home);
    }
  }
}
