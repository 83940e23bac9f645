package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
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
import java.net.ConnectException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The network policy through real Chromium. The admitted site is reached in strict mode as {@code
 * site.test}: the injected resolver answers a public test address and the upstream maps that
 * address to a loopback server, while refusing and recording any other non-loopback destination.
 * Decoy servers listen where the SSRF corpus points.
 */
class NetworkPolicyBrowserTest {
  static final InetAddress PUBLIC = address("93.184.216.34");
  static final Path CORPUS = Path.of("src/test/resources/corpora/ssrf_payloads.txt");

  HttpServer site;
  final List<InetSocketAddress> refused = new CopyOnWriteArrayList<>();
  final List<InetSocketAddress> dialled = new CopyOnWriteArrayList<>();
  final Map<String, AtomicInteger> resolutions = new ConcurrentHashMap<>();
  Decoys decoys;
  DefaultBrowserRuntime runtime;
  PlaywrightProvider provider;
  List<Tool> tools;

  static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * As public DNS (or, for metadata names, a cloud's DNS) would answer; anything else does not
   * resolve.
   */
  Resolver publicDns() {
    Pattern nip = Pattern.compile("(?:.*\\.)?(\\d+\\.\\d+\\.\\d+\\.\\d+)\\.nip\\.io");
    return host -> {
      int n = resolutions.computeIfAbsent(host, h -> new AtomicInteger()).getAndIncrement();
      Matcher m = nip.matcher(host);
      if (m.matches()) {
        return List.of(address(m.group(1)));
      }
      return switch (host) {
        case "site.test",
            "example.com",
            "307.r3dir.me",
            "62epax5fhvj3zzmzigyoe5ipkbn7fysllvges3a.302.r3dir.me" ->
            List.of(PUBLIC);
        // Public for the open's two judgements (before the browser goes, and as it connects), then
        // loopback.
        case "rebind.test" -> List.of(n <= 1 ? PUBLIC : address("127.0.0.1"));
        case "make-1.2.3.4-rebind-169.254-169.254-rr.1u.ms" ->
            List.of(n % 2 == 0 ? address("1.2.3.4") : address("169.254.169.254"));
        case "localtest.me",
            "localh.st",
            "spoofed.burpcollaborator.net",
            "spoofed.redacted.oastify.com" ->
            List.of(address("127.0.0.1"));
        case "bugbounty.dod.network" -> List.of(address("127.0.0.2"));
        case "mail.ebc.apple.com" -> List.of(address("127.0.0.6"));
        case "ip6-localhost", "ip6-loopback" -> List.of(address("::1"));
        case "metadata.google.internal",
            "metadata",
            "instance-data",
            "rancher-metadata",
            "metadata.packet.net" ->
            List.of(address("169.254.169.254"));
        default -> throw new UnknownHostException(host);
      };
    };
  }

  /**
   * Dials the public test address as the loopback site; refuses and records everything else off
   * loopback.
   */
  Upstream upstream() {
    return checked -> {
      dialled.add(checked);
      if (checked.getAddress().equals(PUBLIC) && checked.getPort() == 80) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), site.getAddress().getPort());
      }
      if (checked.getAddress().equals(PUBLIC)) {
        throw new ConnectException("the test site speaks plain HTTP on port 80 only");
      }
      if (!checked.getAddress().isLoopbackAddress()) {
        refused.add(checked);
        throw new ConnectException("the test upstream refuses " + checked);
      }
      return checked;
    };
  }

  @BeforeEach
  void start() throws IOException {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext(
        "/",
        exchange -> {
          String host = String.valueOf(exchange.getRequestHeaders().getFirst("Host"));
          if (host.endsWith("r3dir.me")) {
            // What the redirect service does: send the browser on to an internal address.
            exchange.getResponseHeaders().set("Location", "http://localhost/");
            exchange.sendResponseHeaders(307, -1);
            exchange.close();
            return;
          }
          LocalBrowser.respond(
              exchange,
              pages.getOrDefault(
                  exchange.getRequestURI().getPath(),
                  "<!doctype html><html><head><title>Site</title></head><body>site page</body></html>"));
        });
    site.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    site.start();
  }

  final Map<String, String> pages = new ConcurrentHashMap<>();

  void browser(Map<String, Object> network) throws IOException {
    BrowserSettings settings =
        BrowserSettings.from(
            new PluginConfiguration(Map.of("persistence", "ephemeral", "network", network)));
    runtime = DefaultBrowserRuntime.builder(settings.runtime()).build();
    provider =
        new PlaywrightProvider(settings.playwright(), Optional.empty(), publicDns(), upstream());
    runtime.registerProvider(provider);
    tools = ToolsForTests.tools(runtime, settings);
  }

  @AfterEach
  void stop() throws IOException {
    ToolsForTests.close();
    if (runtime != null) {
      runtime.close();
      provider.dispose();
    }
    site.stop(0);
    if (decoys != null) {
      decoys.close();
    }
  }

  ToolResult call(String tool, Map<String, Object> args) {
    return tools.stream()
        .filter(t -> t.descriptor().name().equals(tool))
        .findFirst()
        .orElseThrow()
        .call(new ToolCall(args, "agent", Cancellation.none()));
  }

  static String code(ToolResult r) {
    Matcher m = Pattern.compile("code=([A-Z_]+)").matcher(r.text());
    return r.isError() && m.find() ? m.group(1) : "ADMITTED";
  }

  /** Listens where the corpus points on loopback. */
  void decoys() {
    decoys = new Decoys();
  }

  @Test
  void everyEntryOfTheSsrfCorpusIsRefusedOrBlocked() throws Exception {
    decoys();
    browser(Map.of("mode", "strict"));
    assertFalse(
        call("browser_open", Map.of("url", "http://site.test/")).isError(),
        "the admitted site loads");
    List<String> corpus =
        Files.readAllLines(CORPUS, StandardCharsets.UTF_8).stream()
            .filter(l -> !l.isBlank())
            .toList();
    Map<String, Integer> codes = new TreeMap<>();
    List<String> admitted = new ArrayList<>();
    List<String> transport = new ArrayList<>();
    for (String entry : corpus) {
      ToolResult r = call("browser_open", Map.of("url", entry));
      String code = code(r);
      codes.merge(code, 1, Integer::sum);
      if (code.equals("ADMITTED")) {
        admitted.add(
            entry
                + " -> "
                + r.text().lines().filter(l -> l.startsWith("URL")).findFirst().orElse(""));
      }
      if (code.equals("BROWSER_NAVIGATION_FAILED")) {
        transport.add(entry);
        assertTrue(r.text().contains("could not be reached: "), entry + ": " + r.text());
      }
    }
    assertEquals(List.of(), admitted, "every entry is refused");

    // The same entries as iframe, image, fetch and WebSocket targets of admitted pages, a share of
    // the corpus to a page: every cross-site frame is a renderer process of its own, and the whole
    // corpus in one page keeps two cores busy for most of an open's timeout.
    int share = 25;
    for (int from = 0; from < corpus.size(); from += share) {
      List<String> targets = corpus.subList(from, Math.min(corpus.size(), from + share));
      String path = "/hostile-" + from;
      pages.put(path, hostilePage(targets));
      ToolResult hostile = call("browser_open", Map.of("url", "http://site.test" + path));
      // Frames for schemes of other programs (dict:, gopher:, ...) are stopped by the page guards,
      // which fails the open itself; everything else is only blocked.
      assertTrue(
          !hostile.isError()
              || (code(hostile).equals("BROWSER_POLICY_DENIED")
                  && hostile.text().contains("to another program")),
          targets + ": " + hostile.text());
      call("browser_wait", Map.of("until", "network-idle", "timeout_ms", 5000));
    }
    Thread.sleep(1000);

    assertEquals(0, decoys.hits(), "a decoy on loopback received a connection");
    assertEquals(List.of(), refused, "the upstream was asked for a non-loopback destination");
    assertTrue(dialled.stream().allMatch(a -> a.getAddress().equals(PUBLIC)), dialled.toString());
    System.out.printf(
        "SSRF corpus, %d entries, browser_open: %s; as iframe, image, fetch and WebSocket targets: "
            + "%d dials, all to the admitted test address; %d decoys on loopback, 0 connections; 0 non-loopback dials%n",
        corpus.size(), codes, dialled.size(), decoys.size());
    System.out.println(
        "transport failures (names that do not resolve, a TLS site the test does not serve): "
            + transport);
  }

  /**
   * A page that asks for every one of {@code targets} as an iframe, an image, a fetch and a
   * WebSocket as it loads.
   */
  static String hostilePage(List<String> targets) {
    return "<!doctype html><html><head><title>Hostile</title></head><body><script>"
        + "const targets = "
        + json(targets)
        + ";\n"
        + "for (const t of targets) {\n"
        + "  try { const f = document.createElement('iframe'); f.src = t; document.body.appendChild(f); } catch (e) {}\n"
        + "  try { const i = new Image(); i.src = t; } catch (e) {}\n"
        + "  try { fetch(t).catch(() => {}); } catch (e) {}\n"
        + "  try { new WebSocket(t.replace(/^http/, 'ws')); } catch (e) {}\n"
        + "}\n</script></body></html>";
  }

  static String json(List<String> values) {
    StringBuilder b = new StringBuilder("[");
    for (String v : values) {
      if (b.length() > 1) {
        b.append(',');
      }
      b.append('"');
      for (char c : v.toCharArray()) {
        if (c == '"' || c == '\\') {
          b.append('\\').append(c);
        } else if (c < 0x20 || c > 0x7e) {
          b.append(String.format("\\u%04x", (int) c));
        } else {
          b.append(c);
        }
      }
      b.append('"');
    }
    return b.append(']').toString();
  }

  @Test
  void aDeniedNavigationNamesTheHostAndATransportFailureIsNotADenial() throws Exception {
    decoys();
    browser(Map.of("mode", "strict"));
    int port = site.getAddress().getPort();
    ToolResult plain = call("browser_open", Map.of("url", "http://127.0.0.1:" + port + "/"));
    assertEquals("BROWSER_POLICY_DENIED", code(plain), plain.text());
    assertTrue(plain.text().contains("network policy denies 127.0.0.1"), plain.text());
    ToolResult tls = call("browser_open", Map.of("url", "https://127.0.0.1:" + port + "/"));
    assertEquals("BROWSER_POLICY_DENIED", code(tls), tls.text());
    ToolResult nowhere = call("browser_open", Map.of("url", "http://nowhere.test/"));
    assertEquals("BROWSER_NAVIGATION_FAILED", code(nowhere), nowhere.text());
    assertTrue(dialled.isEmpty(), "refused before anything was dialled: " + dialled);
    assertTrue(
        nowhere.text().contains("nowhere.test could not be reached: the name does not resolve"),
        nowhere.text());
    ToolResult nowhereTls = call("browser_open", Map.of("url", "https://nowhere.test/"));
    assertEquals("BROWSER_NAVIGATION_FAILED", code(nowhereTls), nowhereTls.text());
    assertTrue(
        nowhereTls.text().contains("nowhere.test could not be reached: the name does not resolve"),
        nowhereTls.text());
    // A click that navigates to a denied address fails the same way; a denied image only goes
    // missing.
    pages.put(
        "/links",
        "<!doctype html><html><body><img src=\"http://127.0.0.1:"
            + port
            + "/x.png\">"
            + "<a href=\"http://127.0.0.1:"
            + port
            + "/\">Inside</a></body></html>");
    ToolResult links =
        call("browser_open", Map.of("url", "http://site.test/links", "mode", "interactive"));
    assertFalse(links.isError(), links.text());
    // Refused before Chromium is asked: the page stays where it was.
    ToolResult metadata =
        call("browser_open", Map.of("url", "http://169.254.169.254/latest/meta-data/"));
    assertEquals("BROWSER_POLICY_DENIED", code(metadata), metadata.text());
    ToolResult still = call("browser_observe", Map.of("mode", "interactive"));
    assertTrue(still.text().contains("URL: http://site.test/links"), still.text());
    links = still;
    ToolResult click = call("browser_click", LocalBrowser.target(links, "Inside"));
    assertEquals("BROWSER_POLICY_DENIED", code(click), click.text());
    assertEquals(0, decoys.hits());
  }

  @Test
  void aRebindingNameNeverReachesLoopbackThroughTheBrowser() throws Exception {
    decoys();
    browser(Map.of("mode", "strict"));
    pages.put(
        "/rebind",
        "<!doctype html><html><head><title>Rebind</title></head><body><p id=\"r\">waiting</p><script>"
            + "fetch('/second').then(r => r.text()).then(t => r.textContent = 'second: ' + t,"
            + " () => r.textContent = 'second: blocked');</script></body></html>");
    ToolResult first = call("browser_open", Map.of("url", "http://rebind.test/rebind"));
    assertFalse(first.isError(), first.text());
    call("browser_wait", Map.of("until", "network-idle", "timeout_ms", 5000));
    ToolResult after = call("browser_observe", Map.of("mode", "document"));
    assertTrue(
        after.text().contains("second: blocked") || after.text().contains("second: Blocked"),
        after.text());
    assertEquals(0, decoys.hits(), "127.0.0.1:80 was reached");
    assertTrue(
        resolutions.get("rebind.test").get() >= 3, "the name was resolved again and judged again");
  }

  @Test
  void denyCidrsWinsEvenWhenUnrestricted() throws Exception {
    HttpServer second = HttpServer.create(new InetSocketAddress(address("127.0.0.2"), 0), 0);
    second.createContext(
        "/", exchange -> LocalBrowser.respond(exchange, "<html><body>second host</body></html>"));
    second.start();
    try {
      browser(Map.of("mode", "unrestricted", "denyCidrs", List.of("127.0.0.1/32")));
      ToolResult denied =
          call(
              "browser_open",
              Map.of("url", "http://127.0.0.1:" + site.getAddress().getPort() + "/"));
      assertEquals("BROWSER_POLICY_DENIED", code(denied), denied.text());
      assertTrue(denied.text().contains("denyCidrs 127.0.0.1/32"), denied.text());
      ToolResult open =
          call(
              "browser_open",
              Map.of("url", "http://127.0.0.2:" + second.getAddress().getPort() + "/"));
      assertFalse(open.isError(), open.text());
      assertTrue(open.text().contains("second host"), open.text());
      ToolResult metadata =
          call("browser_open", Map.of("url", "http://169.254.169.254/latest/meta-data/"));
      assertEquals("BROWSER_POLICY_DENIED", code(metadata), metadata.text());
      assertEquals(List.of(), refused);
    } finally {
      second.stop(0);
    }
  }

  @Test
  void webRtcSendsNoUdpToAStunServerOnLoopbackInAllowlistMode() throws Exception {
    browser(Map.of("mode", "allowlist", "allowCidrs", List.of("127.0.0.1/32")));
    assertNoUdp("http://127.0.0.1:" + site.getAddress().getPort() + "/rtc");
  }

  @Test
  void webRtcSendsNoUdpToAStunServerOnLoopbackInStrictMode() throws Exception {
    browser(Map.of("mode", "strict"));
    assertNoUdp("http://site.test/rtc");
  }

  /**
   * A page that gathers ICE candidates with a STUN and a TURN server on a loopback UDP port:
   * nothing arrives.
   */
  void assertNoUdp(String pageUrl) throws Exception {
    try (DatagramSocket stun = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
      stun.setSoTimeout(4000);
      pages.put(
          "/rtc",
          "<!doctype html><html><body><p id=\"s\">starting</p><script>"
              + "const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:"
              + stun.getLocalPort()
              + "'},"
              + " {urls: 'turn:127.0.0.1:"
              + stun.getLocalPort()
              + "?transport=udp', username: 'u', credential: 'c'}]});"
              + "pc.createDataChannel('x');"
              + "pc.onicegatheringstatechange = () => s.textContent = 'gathering ' + pc.iceGatheringState;"
              + "pc.createOffer().then(o => pc.setLocalDescription(o));</script></body></html>");
      ToolResult page = call("browser_open", Map.of("url", pageUrl));
      assertFalse(page.isError(), page.text());
      byte[] buffer = new byte[1500];
      boolean received;
      try {
        stun.receive(new DatagramPacket(buffer, buffer.length));
        received = true;
      } catch (SocketTimeoutException quiet) {
        received = false;
      }
      assertFalse(received, "the STUN/TURN listener on loopback received a UDP packet");
    }
  }

  @Test
  void anAdmittedWebSocketWorksThroughTheProxyAndADeniedOneNeverConnects() throws Exception {
    try (MiniWebSocketServer ws = new MiniWebSocketServer()) {
      pages.put(
          "/ws",
          "<!doctype html><html><head><title>waiting</title></head><body><script>"
              + "const ws = new WebSocket('ws://127.0.0.1:"
              + ws.port()
              + "/chat');"
              + "ws.onmessage = e => document.title = 'ws:' + e.data;"
              + "ws.onerror = () => document.title = 'ws:error';</script></body></html>");
      browser(Map.of("mode", "allowlist", "allowCidrs", List.of("127.0.0.1/32")));
      call(
          "browser_open", Map.of("url", "http://127.0.0.1:" + site.getAddress().getPort() + "/ws"));
      ToolResult admitted =
          call("browser_wait", Map.of("until", "network-idle", "timeout_ms", 5000));
      String title = waitForTitle();
      assertEquals("ws:hello through the tunnel", title, admitted.text());
      assertEquals(1, ws.connections());

      ToolsForTests.close();
      runtime.close();
      provider.dispose();
      browser(Map.of("mode", "strict"));
      call("browser_open", Map.of("url", "http://site.test/ws"));
      assertEquals("ws:error", waitForTitle());
      assertEquals(1, ws.connections(), "the denied WebSocket reached its server");
    }
  }

  /** The page title once it says how the WebSocket went. */
  String waitForTitle() throws InterruptedException {
    for (int i = 0; i < 50; i++) {
      ToolResult o = call("browser_observe", Map.of());
      String title = String.valueOf(LocalBrowser.observation(o).get("title"));
      if (title.startsWith("ws:")) {
        return title;
      }
      Thread.sleep(100);
    }
    return "(no answer)";
  }

  /**
   * Just enough of RFC 6455 on loopback: the handshake and one text frame, counting connections.
   */
  static final class MiniWebSocketServer implements AutoCloseable {
    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final AtomicInteger connections = new AtomicInteger();

    MiniWebSocketServer() throws IOException {
      Thread t =
          new Thread(
              () -> {
                try {
                  while (true) {
                    java.net.Socket c = socket.accept();
                    connections.incrementAndGet();
                    serve(c);
                  }
                } catch (IOException closed) {
                  // done
                }
              });
      t.setDaemon(true);
      t.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    int connections() {
      return connections.get();
    }

    private static void serve(java.net.Socket c) throws IOException {
      java.io.BufferedReader in =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(c.getInputStream(), StandardCharsets.ISO_8859_1));
      String key = null;
      for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
        if (line.toLowerCase(java.util.Locale.ROOT).startsWith("sec-websocket-key:")) {
          key = line.substring(line.indexOf(':') + 1).trim();
        }
      }
      String accept;
      try {
        accept =
            java.util.Base64.getEncoder()
                .encodeToString(
                    java.security.MessageDigest.getInstance("SHA-1")
                        .digest(
                            (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                                .getBytes(StandardCharsets.ISO_8859_1)));
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
      java.io.OutputStream out = c.getOutputStream();
      out.write(
          ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  + "Sec-WebSocket-Accept: "
                  + accept
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      byte[] message = "hello through the tunnel".getBytes(StandardCharsets.UTF_8);
      out.write(new byte[] {(byte) 0x81, (byte) message.length});
      out.write(message);
      out.flush();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
