package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two agents on real Chromium through the in-process host: separate pages, truly parallel, and
 * cancellation.
 */
class ConcurrentAgentsTest {
  @TempDir Path homeDir;
  @TempDir Path projectDir;
  private HttpServer server;
  private Host host;
  private final CyclicBarrier meeting = new CyclicBarrier(2);
  private final CountDownLatch stallArrived = new CountDownLatch(1);
  private final CountDownLatch stallRelease = new CountDownLatch(1);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/meet",
        exchange -> {
          // Each of the two requests waits for the other: answered "met" only if both were in
          // flight at once.
          String outcome;
          try {
            meeting.await(20, TimeUnit.SECONDS);
            outcome = "met";
          } catch (Exception e) {
            outcome = "alone";
          }
          respond(
              exchange,
              "<html><head><title>"
                  + outcome
                  + "</title></head><body><p>"
                  + outcome
                  + "</p><button>Go</button></body></html>");
        });
    server.createContext(
        "/plain", exchange -> respond(exchange, "<html><body>plain</body></html>"));
    server.createContext(
        "/stall",
        exchange -> {
          stallArrived.countDown();
          try {
            stallRelease.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          respond(exchange, "<html><body>late</body></html>");
        });
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
    HarnessHome home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
    host = Host.start(home, "p", projectDir, Host.Options.defaults());
  }

  @AfterEach
  void stop() {
    stallRelease.countDown();
    host.close();
    server.stop(0);
  }

  private static void respond(com.sun.net.httpserver.HttpExchange exchange, String html)
      throws java.io.IOException {
    byte[] body = html.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/html");
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> part(ToolResult r, String name) {
    return (Map<String, Object>) r.structured().get(name);
  }

  @SuppressWarnings("unchecked")
  private static long durationMs(Map<String, Object> transition) {
    return ((Number) ((Map<String, Object>) transition.get("metrics")).get("duration_ms"))
        .longValue();
  }

  @Test
  void twoAgentsGetTheirOwnEnvironmentsWorkAtTheSameTimeAndCannotUseEachOthersRefs()
      throws Exception {
    ExecutorService agents = Executors.newFixedThreadPool(2);
    try {
      Future<ToolResult> a =
          agents.submit(
              () ->
                  host.call(
                      "agent-a", "browser_open", Map.of("url", url("/meet")), Cancellation.none()));
      Future<ToolResult> b =
          agents.submit(
              () ->
                  host.call(
                      "agent-b", "browser_open", Map.of("url", url("/meet")), Cancellation.none()));
      ToolResult ra = a.get(60, TimeUnit.SECONDS);
      ToolResult rb = b.get(60, TimeUnit.SECONDS);
      assertFalse(ra.isError(), ra.text());
      assertFalse(rb.isError(), rb.text());
      // Each page load waited for the other's: the two navigations were in flight together.
      assertEquals("met", part(ra, "observation").get("title"));
      assertEquals("met", part(rb, "observation").get("title"));
      Instant aStart = Instant.parse((String) part(ra, "transition").get("started_at"));
      Instant aEnd = aStart.plusMillis(durationMs(part(ra, "transition")));
      Instant bStart = Instant.parse((String) part(rb, "transition").get("started_at"));
      Instant bEnd = bStart.plusMillis(durationMs(part(rb, "transition")));
      assertTrue(
          aStart.isBefore(bEnd) && bStart.isBefore(aEnd),
          "the actions did not overlap: a " + aStart + ".." + aEnd + ", b " + bStart + ".." + bEnd);
      assertNotEquals(
          part(ra, "observation").get("environment_id"),
          part(rb, "observation").get("environment_id"));

      ToolResult crossed =
          host.call(
              "agent-b",
              "browser_click",
              Map.of("observation_id", part(ra, "observation").get("id"), "element_ref", "e1"),
              Cancellation.none());
      assertTrue(crossed.isError());
      assertTrue(crossed.text().contains("code=BROWSER_STALE_REFERENCE"), crossed.text());
    } finally {
      agents.shutdownNow();
    }
  }

  @Test
  void cancellingACallMidActionRebuildsTheLeaseAndTheNextCallWorks() throws Exception {
    ToolResult first =
        host.call("agent", "browser_open", Map.of("url", url("/plain")), Cancellation.none());
    String firstEnvironment = (String) part(first, "observation").get("environment_id");
    Cancellation cancel = Cancellation.none();
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<ToolResult> stalled =
          caller.submit(
              () -> host.call("agent", "browser_open", Map.of("url", url("/stall")), cancel));
      assertTrue(stallArrived.await(30, TimeUnit.SECONDS), "the page was never requested");
      cancel.cancel();
      ToolResult r = stalled.get(30, TimeUnit.SECONDS);
      // The server still holds its answer: the call ended because it was cancelled.
      assertEquals(1, stallRelease.getCount());
      assertTrue(r.isError());
      assertTrue(r.text().contains("code=BROWSER_ACTION_CANCELLED"), r.text());
      assertTrue(r.text().contains("observation=invalid lease=rebuilt"), r.text());
    } finally {
      caller.shutdownNow();
    }
    ToolResult next = host.call("agent", "browser_observe", Map.of(), Cancellation.none());
    assertFalse(next.isError(), next.text());
    // The fresh browser reopened the tab of the last checkpoint: the page before the cancelled
    // open.
    assertEquals(url("/plain"), part(next, "observation").get("url"));
    assertNotEquals(firstEnvironment, part(next, "observation").get("environment_id"));
  }
}
