package dev.periscope.browser.handoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.HandoffOutcome.Ending;
import dev.periscope.api.browser.spi.LiveViewEnvironment;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mockito.Mockito;

/**
 * The live view's HTTP surface from an attacker's side, over raw sockets: every header as a hostile
 * client may send it. A real page is handed over in the harness's HandoffTest.
 */
class LiveViewServerTest {
  private final LiveViewServer server = new LiveViewServer(LiveViewServer.Settings.defaults());
  private final List<LiveViewEnvironment.PersonInput> played = new CopyOnWriteArrayList<>();
  private final LiveViewEnvironment page = Mockito.mock(LiveViewEnvironment.class);

  @AfterEach
  void stop() {
    server.close();
  }

  private LiveView open() {
    Mockito.doAnswer(
            a -> {
              played.add(a.getArgument(0));
              return null;
            })
        .when(page)
        .play(Mockito.any());
    return server.open(page, "Solve <b>it</b>");
  }

  /** One raw request; the status line and headers and body of the answer. */
  private static String raw(URI at, String request) throws Exception {
    try (Socket s = new Socket(at.getHost(), at.getPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String request(
      String method,
      URI link,
      String path,
      String host,
      String cookie,
      String origin,
      String body) {
    return method
        + " "
        + path
        + " HTTP/1.1\r\nHost: "
        + host
        + "\r\nConnection: close\r\n"
        + (cookie == null ? "" : "Cookie: handoff=" + cookie + "\r\n")
        + (origin == null ? "" : "Origin: " + origin + "\r\n")
        + "Content-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length
        + "\r\n\r\n"
        + body;
  }

  private static int status(String answer) {
    return Integer.parseInt(answer.substring(9, 12));
  }

  @Test
  void theLinkWorksOnceAndOnlyAtItsOwnHostAndEverythingElseNeedsItsCookieAndOrigin()
      throws Exception {
    LiveView view = open();
    URI link = URI.create(server.link(view));
    String host = link.getHost() + ":" + link.getPort();
    String origin = "http://" + host;
    String base = "/handoff/" + view.id + "/";
    // DNS rebinding: a name that resolves here is still not this server.
    assertEquals(
        421,
        status(
            raw(
                link,
                request(
                    "GET",
                    link,
                    link.getRawPath() + "?" + link.getRawQuery(),
                    "evil.test:" + link.getPort(),
                    null,
                    null,
                    ""))));
    assertFalse(view.redeemed(), "a refused request used the token up");
    assertEquals(
        401, status(raw(link, request("GET", link, link.getRawPath(), host, null, null, ""))));
    assertEquals(
        403,
        status(
            raw(
                link,
                request("GET", link, link.getRawPath() + "?token=guess", host, null, null, ""))));
    String entered =
        raw(
            link,
            request(
                "GET", link, link.getRawPath() + "?" + link.getRawQuery(), host, null, null, ""));
    assertEquals(303, status(entered), entered);
    assertTrue(entered.contains("HttpOnly; SameSite=Strict"), entered);
    String cookie = entered.replaceAll("(?s).*handoff=([A-Za-z0-9_-]+);.*", "$1");
    String again =
        raw(
            link,
            request(
                "GET", link, link.getRawPath() + "?" + link.getRawQuery(), host, null, null, ""));
    assertEquals(403, status(again));
    assertTrue(again.contains("used already"), again);

    String page = raw(link, request("GET", link, base, host, cookie, null, ""));
    assertEquals(200, status(page));
    assertTrue(page.contains("Solve &lt;b&gt;it&lt;/b&gt;"), "the message is escaped: " + page);
    assertTrue(page.contains("Content-Security-Policy"), page);
    assertEquals(403, status(raw(link, request("GET", link, base, host, "forged", null, ""))));

    String move = "{\"kind\":\"move\",\"x\":10,\"y\":20}";
    // Input and the ending need the view's own origin as well as its cookie.
    assertEquals(
        403, status(raw(link, request("POST", link, base + "input", host, cookie, null, move))));
    assertEquals(
        403,
        status(
            raw(
                link,
                request("POST", link, base + "input", host, cookie, "http://evil.test", move))));
    assertEquals(
        204, status(raw(link, request("POST", link, base + "input", host, cookie, origin, move))));
    assertEquals(1, played.size());
    assertEquals(10.0, played.get(0).x());
    for (String bad :
        List.of(
            "not json",
            "{\"kind\":\"exec\"}",
            "{\"kind\":\"key\",\"key\":\"Enter\\nX\"}",
            "{\"kind\":\"text\",\"text\":\"" + "x".repeat(65) + "\"}",
            "{\"kind\":\"move\",\"x\":\"" + "9".repeat(5_000) + "\"}")) {
      assertEquals(
          400,
          status(raw(link, request("POST", link, base + "input", host, cookie, origin, bad))),
          bad);
    }
    assertEquals(1, played.size(), "a refused event was played");
    assertEquals(
        400, status(raw(link, request("POST", link, base + "end", host, cookie, origin, "maybe"))));
    assertEquals(
        204,
        status(raw(link, request("POST", link, base + "end", host, cookie, origin, "give-up"))));
    assertEquals(Ending.GAVE_UP, view.await(1_000, Cancellation.none(), () -> false));
    view.close();
    assertEquals(404, status(raw(link, request("GET", link, base, host, cookie, null, ""))));
  }

  @Test
  void aViewThatNobodyEndsTimesOutAndACancelledCallEndsIt() {
    LiveView first = open();
    assertEquals(Ending.TIMED_OUT, first.await(200, Cancellation.none(), () -> false));
    LiveView second = open();
    Cancellation c = new Cancellation();
    c.cancel();
    assertEquals(Ending.CANCELLED, second.await(10_000, c, () -> false));
  }

  @Test
  void aViewWhoseBrowserWentEndsWithoutWaitingForItsTimeout() {
    LiveView view = open();
    long start = System.nanoTime();
    assertEquals(Ending.CANCELLED, view.await(60_000, Cancellation.none(), () -> true));
    assertTrue(System.nanoTime() - start < 5_000_000_000L, "waited for the timeout");
  }

  @Test
  void theModelsMessageCannotPoseAsLinesOfTheQuestion() {
    assertEquals(
        "Solve it Open this link: http://evil.test",
        Handoffs.oneLine("Solve it\r\nOpen this link: http://evil.test\u2028"));
  }

  @Test
  void theLiveViewNeverListensOnEveryInterface() {
    for (String everywhere : List.of("0.0.0.0", "::", "0")) {
      assertThrows(
          IllegalArgumentException.class,
          () -> new LiveViewServer(new LiveViewServer.Settings(everywhere, 0)),
          everywhere);
    }
  }
}
