package dev.periscope.browser.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy's own cases, over raw sockets on loopback: credentials, denials, tunnels, close and
 * rebinding.
 */
class PolicyProxyTest {
  /** Stands for a public server; the upstream maps it to the loopback test server. */
  static final InetAddress PUBLIC = DestinationPolicyTest.address("93.184.216.34");

  HttpServer site;
  final List<InetSocketAddress> dialled = new CopyOnWriteArrayList<>();
  final List<String> hostHeaders = new CopyOnWriteArrayList<>();
  final List<java.util.Map<String, List<String>>> headersSeen = new CopyOnWriteArrayList<>();
  PolicyProxy proxy;

  @BeforeEach
  void startSite() throws IOException {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext(
        "/",
        exchange -> {
          hostHeaders.add(exchange.getRequestHeaders().getFirst("Host"));
          headersSeen.add(new java.util.TreeMap<>(exchange.getRequestHeaders()));
          byte[] body = "hello from the site".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    site.start();
  }

  @AfterEach
  void stop() {
    if (proxy != null) {
      proxy.close();
    }
    site.stop(0);
  }

  /**
   * Maps the public test address to the site; records every dial; refuses any other non-loopback
   * destination.
   */
  Upstream upstream() {
    return checked -> {
      dialled.add(checked);
      if (checked.getAddress().equals(PUBLIC)) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), site.getAddress().getPort());
      }
      if (!checked.getAddress().isLoopbackAddress()) {
        throw new ConnectException("test upstream refuses " + checked);
      }
      return checked;
    };
  }

  PolicyProxy start(DestinationPolicy policy, Resolver resolver) {
    proxy = new PolicyProxy(policy, resolver, upstream());
    return proxy;
  }

  String auth() {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString(
                (proxy.username() + ":" + proxy.password()).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Sends a raw request to the proxy and returns the whole response (or the head, for a tunnel).
   */
  String send(String request) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      return readHead(s.getInputStream());
    }
  }

  static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != -1) {
      b.write(c);
      if (b.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
        break;
      }
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  String get(String url, String ignored) throws IOException {
    String host = java.net.URI.create(url).getRawAuthority();
    return send(
        "GET "
            + url
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nProxy-Authorization: "
            + auth()
            + "\r\nConnection: close\r\n\r\n");
  }

  String connect(String authority) throws IOException {
    return send(
        "CONNECT "
            + authority
            + " HTTP/1.1\r\nHost: "
            + authority
            + "\r\nProxy-Authorization: "
            + auth()
            + "\r\n\r\n");
  }

  static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static Resolver answering(String name, InetAddress address) {
    return host -> {
      if (host.equals(name)) {
        return List.of(address);
      }
      throw new java.net.UnknownHostException(host);
    };
  }

  @Test
  void withoutCredentialsTheAnswerIs407() throws IOException {
    start(DestinationPolicy.strict(), answering("site.test", PUBLIC));
    String r =
        send("GET http://site.test/ HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n");
    assertTrue(r.startsWith("HTTP/1.1 407"), r);
    assertTrue(r.contains("Proxy-Authenticate: Basic"), r);
    String wrong =
        send(
            "CONNECT site.test:443 HTTP/1.1\r\nHost: site.test:443\r\nProxy-Authorization: Basic "
                + Base64.getEncoder()
                    .encodeToString("periscope:guess".getBytes(StandardCharsets.UTF_8))
                + "\r\n\r\n");
    assertTrue(wrong.startsWith("HTTP/1.1 407"), wrong);
    assertEquals(List.of(), dialled);
  }

  @Test
  void anAdmittedRequestGoesToTheCheckedAddressWithItsOwnHost() throws IOException {
    start(DestinationPolicy.strict(), answering("site.test", PUBLIC));
    String r = get("http://site.test/page", "site.test");
    assertTrue(r.startsWith("HTTP/1.1 200"), r);
    assertEquals(List.of(new InetSocketAddress(PUBLIC, 80)), dialled);
    assertEquals(List.of("site.test"), hostHeaders);
  }

  /**
   * The site sees the browser's request as the browser wrote it: one Host, the browser's own
   * User-Agent, and nothing that tells of the proxy, its credentials or this machine's name.
   */
  @Test
  void aForwardedRequestCarriesTheBrowsersHeadersOnlyAndOneHost() throws IOException {
    start(DestinationPolicy.strict(), answering("site.test", PUBLIC));
    String r =
        send(
            "GET http://site.test/page HTTP/1.1\r\nHost: site.test\r\nUser-Agent: TheBrowser/1.0"
                + "\r\nAccept: text/html\r\nProxy-Authorization: "
                + auth()
                + "\r\nConnection: close\r\n\r\n");
    assertTrue(r.startsWith("HTTP/1.1 200"), r);
    assertEquals(1, headersSeen.size(), headersSeen.toString());
    java.util.Map<String, List<String>> seen = headersSeen.get(0);
    assertEquals(List.of("site.test"), seen.get("Host"), seen.toString());
    assertEquals(List.of("TheBrowser/1.0"), seen.get("User-agent"), seen.toString());
    for (String leak : List.of("Via", "Forwarded", "X-forwarded-for", "Proxy-authorization")) {
      assertFalse(seen.containsKey(leak), leak + " reached the site: " + seen);
    }
  }

  @Test
  void aRefusedTargetIs403BeforeAnyUpstreamConnection() throws IOException {
    start(
        DestinationPolicy.strict(),
        answering("inside.test", DestinationPolicyTest.address("127.0.0.1")));
    long mark = proxy.denialMark();
    for (String target :
        List.of(
            "http://inside.test/",
            "http://127.0.0.1:" + site.getAddress().getPort() + "/",
            "http://169.254.169.254/latest/meta-data/")) {
      String r = get(target, "x");
      assertTrue(r.startsWith("HTTP/1.1 403"), target + ": " + r);
      assertTrue(r.contains(PolicyProxy.DENIAL_HEADER + ": denied"), r);
    }
    String tunnel = connect("inside.test:443");
    assertTrue(tunnel.startsWith("HTTP/1.1 403"), tunnel);
    assertEquals(List.of(), dialled, "nothing was dialled");
    assertEquals(List.of(), hostHeaders, "the site saw nothing");
    assertEquals(4, proxy.deniedSince(mark).size());
    assertEquals("inside.test", proxy.deniedSince(mark).get(0).host());
  }

  /**
   * A name that carries a filled secret is refused before it is resolved (a preconnect's CONNECT,
   * which the browser's own checks do not see), and neither the answer nor the record names it.
   */
  @Test
  void aNameCarryingASecretIsRefusedUnresolvedAndUnnamed() throws IOException {
    java.util.concurrent.atomic.AtomicInteger resolved =
        new java.util.concurrent.atomic.AtomicInteger();
    start(
        DestinationPolicy.strict(),
        host -> {
          resolved.incrementAndGet();
          return List.of(PUBLIC);
        });
    proxy.refuseNamesCarrying((host, port) -> host.contains("c4n4ry"));
    long mark = proxy.denialMark();
    String tunnel = connect("x-c4n4ry-x.site.test:443");
    assertTrue(tunnel.startsWith("HTTP/1.1 403"), tunnel);
    assertFalse(tunnel.contains("c4n4ry"), tunnel);
    String forwarded = get("http://c4n4ry.site.test/", "c4n4ry.site.test");
    assertTrue(forwarded.startsWith("HTTP/1.1 403"), forwarded);
    assertEquals(0, resolved.get(), "nothing was resolved");
    assertEquals(List.of(), dialled, "nothing was dialled");
    assertEquals(2, proxy.deniedSince(mark).size());
    assertTrue(proxy.deniedSince(mark).stream().noneMatch(d -> d.host().contains("c4n4ry")));
    String other = get("http://site.test/page", "site.test");
    assertTrue(other.startsWith("HTTP/1.1 200"), "other names pass: " + other);
  }

  @Test
  void connectIsAdmittedOnlyForAdmittedTargetsAndTunnels() throws IOException {
    start(DestinationPolicy.strict(), answering("site.test", PUBLIC));
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      s.setSoTimeout(10_000);
      s.getOutputStream()
          .write(
              ("CONNECT site.test:8443 HTTP/1.1\r\nHost: site.test:8443\r\nProxy-Authorization: "
                      + auth()
                      + "\r\n\r\n")
                  .getBytes(StandardCharsets.ISO_8859_1));
      String head = readHead(s.getInputStream());
      assertTrue(head.startsWith("HTTP/1.1 200"), head);
      // Through the tunnel: plain HTTP to the site behind the checked address.
      s.getOutputStream()
          .write(
              "GET / HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.ISO_8859_1));
      String inner = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      assertTrue(inner.contains("hello from the site"), inner);
    }
    assertEquals(List.of(new InetSocketAddress(PUBLIC, 8443)), dialled);
    assertTrue(
        connect("elsewhere.test:443").startsWith("HTTP/1.1 502"),
        "unresolved is a transport failure");
  }

  @Test
  void closeWinsOverAPendingResolution() throws Exception {
    CountDownLatch resolving = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    start(
        DestinationPolicy.strict(),
        host -> {
          resolving.countDown();
          awaitQuietly(release);
          return List.of(PUBLIC);
        });
    Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    client
        .getOutputStream()
        .write(
            ("CONNECT site.test:443 HTTP/1.1\r\nHost: site.test:443\r\nProxy-Authorization: "
                    + auth()
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
    assertTrue(resolving.await(10, TimeUnit.SECONDS));
    Thread closer = new Thread(proxy::close);
    closer.start();
    Thread.sleep(200);
    release.countDown();
    closer.join(10_000);
    client.close();
    assertEquals(
        List.of(), dialled, "a connection still resolving when the proxy closed was never opened");
  }

  @Test
  void aClientThatLeavesDuringResolutionCausesNoUpstreamConnection() throws Exception {
    CountDownLatch resolving = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger resolutions = new AtomicInteger();
    start(
        DestinationPolicy.strict(),
        host -> {
          resolutions.incrementAndGet();
          resolving.countDown();
          awaitQuietly(release);
          return List.of(PUBLIC);
        });
    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      client
          .getOutputStream()
          .write(
              ("CONNECT site.test:443 HTTP/1.1\r\nHost: site.test:443\r\nProxy-Authorization: "
                      + auth()
                      + "\r\n\r\n")
                  .getBytes(StandardCharsets.ISO_8859_1));
      assertTrue(resolving.await(10, TimeUnit.SECONDS));
    }
    Thread.sleep(300);
    release.countDown();
    Thread.sleep(500);
    assertEquals(1, resolutions.get());
    assertEquals(List.of(), dialled, "nobody was left to tunnel for");
  }

  @Test
  void aRebindingResolverNeverReachesLoopback() throws Exception {
    AtomicInteger answers = new AtomicInteger();
    // First an admitted public address, then 127.0.0.1, where a decoy listens.
    try (ServerSocket decoy = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      AtomicInteger decoyHits = new AtomicInteger();
      Thread t =
          new Thread(
              () -> {
                try {
                  while (true) {
                    decoy.accept().close();
                    decoyHits.incrementAndGet();
                  }
                } catch (IOException closed) {
                  // done
                }
              });
      t.setDaemon(true);
      t.start();
      start(
          DestinationPolicy.strict(),
          host ->
              answers.getAndIncrement() == 0
                  ? List.of(PUBLIC)
                  : List.of(DestinationPolicyTest.address("127.0.0.1")));
      assertTrue(
          get("http://rebind.test:" + decoy.getLocalPort() + "/", "rebind.test")
              .startsWith("HTTP/1.1 200"));
      assertTrue(
          get("http://rebind.test:" + decoy.getLocalPort() + "/", "rebind.test")
              .startsWith("HTTP/1.1 403"));
      assertTrue(connect("rebind.test:" + decoy.getLocalPort()).startsWith("HTTP/1.1 403"));
      assertEquals(0, decoyHits.get());
      assertFalse(
          dialled.stream().anyMatch(a -> a.getAddress().isLoopbackAddress()), dialled.toString());
    }
  }

  @Test
  void theBootstrapHostIsAnsweredByTheProxyItself() throws IOException {
    start(DestinationPolicy.strict(), answering("site.test", PUBLIC));
    assertTrue(
        get("http://" + PolicyProxy.BOOTSTRAP_HOST + "/", PolicyProxy.BOOTSTRAP_HOST)
            .startsWith("HTTP/1.1 200"));
    assertEquals(List.of(), dialled);
  }

  /** Admits 127.0.0.1 only, as a project that lists it would. */
  static DestinationPolicy loopbackAllowed() {
    return new DestinationPolicy(
        dev.periscope.api.browser.spi.NetworkPolicy.Mode.ALLOWLIST,
        List.of(),
        List.of(Cidr.parse("127.0.0.1/32")),
        List.of());
  }

  /** Sends a raw request and reads the whole response, to the end of the connection. */
  String sendAll(String request) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  String getAll(String url) throws IOException {
    return sendAll(
        "GET "
            + url
            + " HTTP/1.1\r\nHost: "
            + java.net.URI.create(url).getRawAuthority()
            + "\r\nProxy-Authorization: "
            + auth()
            + "\r\nConnection: close\r\n\r\n");
  }

  static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The proxy's own answer: marked, with the cause, never Jetty's page nor the credentials. */
  void assertUnreachable(String response, String host, String cause) {
    System.out.println("the proxy's answer: " + response.replace("\r\n", " | "));
    assertTrue(response.startsWith("HTTP/1.1 502"), response);
    assertTrue(response.contains(PolicyProxy.TRANSPORT_HEADER + ": " + cause), response);
    assertTrue(response.contains(host + " could not be reached: " + cause), response);
    assertFalse(response.toLowerCase(java.util.Locale.ROOT).contains("<html"), response);
    assertFalse(response.contains(proxy.password()), "the proxy's password leaked: " + response);
    assertFalse(response.contains(auth()), "the credentials leaked: " + response);
  }

  @Test
  void aClosedPortIsTheProxysOwnMarked502SayingConnectionRefused() throws IOException {
    start(loopbackAllowed(), answering("site.test", PUBLIC));
    int port = closedPort();
    long mark = proxy.denialMark();
    assertUnreachable(
        getAll("http://127.0.0.1:" + port + "/page"), "127.0.0.1", "connection refused");
    String tunnel =
        sendAll(
            "CONNECT 127.0.0.1:"
                + port
                + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + port
                + "\r\nProxy-Authorization: "
                + auth()
                + "\r\n\r\n");
    assertUnreachable(tunnel, "127.0.0.1", "connection refused");
    var unreachable = proxy.unreachableSince(mark);
    assertEquals(2, unreachable.size(), unreachable.toString());
    assertEquals(
        new PolicyProxy.Unreachable(
            unreachable.get(1).sequence(), "127.0.0.1", port, "connection refused"),
        unreachable.get(1));
    assertEquals(List.of(), proxy.deniedSince(mark), "a refused connection is no denial");
  }

  @Test
  void aNameThatDoesNotResolveIsTheProxysOwnMarked502() throws IOException {
    start(DestinationPolicy.strict(), answering("site.test", PUBLIC));
    assertUnreachable(getAll("http://nowhere.test/"), "nowhere.test", "the name does not resolve");
    assertUnreachable(
        sendAll(
            "CONNECT nowhere.test:443 HTTP/1.1\r\nHost: nowhere.test:443\r\n"
                + "Proxy-Authorization: "
                + auth()
                + "\r\n\r\n"),
        "nowhere.test",
        "the name does not resolve");
    assertEquals(List.of(), dialled);
  }

  @Test
  void aServerThatClosesWithoutAnAnswerIsTheProxysOwnMarked502() throws Exception {
    start(loopbackAllowed(), answering("site.test", PUBLIC));
    try (ServerSocket mute = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread closer =
          new Thread(
              () -> {
                while (!mute.isClosed()) {
                  try (Socket accepted = mute.accept()) {
                    accepted.getInputStream().read();
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      closer.setDaemon(true);
      closer.start();
      assertUnreachable(
          getAll("http://127.0.0.1:" + mute.getLocalPort() + "/"),
          "127.0.0.1",
          "the server closed the connection without an answer");
    }
  }

  @Test
  void aSitesOwnErrorStatusPassesUnmarked() throws IOException {
    site.createContext(
        "/missing",
        exchange -> {
          exchange.sendResponseHeaders(404, -1);
          exchange.close();
        });
    start(DestinationPolicy.strict(), answering("site.test", PUBLIC));
    String r = getAll("http://site.test/missing");
    assertTrue(r.startsWith("HTTP/1.1 404"), r);
    assertFalse(r.contains(PolicyProxy.TRANSPORT_HEADER), r);
    assertFalse(r.contains(PolicyProxy.DENIAL_HEADER), r);
  }
}
