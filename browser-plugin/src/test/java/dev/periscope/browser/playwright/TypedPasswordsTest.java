package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.browser.Transition;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.runtime.CredentialChannel;
import java.awt.image.BufferedImage;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Passwords the user gave, where the project allows them ({@code credentials.modelTypedPasswords:
 * allow}), on real Chromium: browser_fill and browser_type put them into password fields, the site
 * receives them, and from then on they are secrets of the session: redacted in observations,
 * extractions, failure lines and transitions, masked in screenshots, never read back. A page that
 * echoes the password into its text, its title and its URL shows {@code [REDACTED:typed-password]}.
 * Keys still never type into a password field one by one.
 */
class TypedPasswordsTest {
  /** Random per run, with characters a URL encodes: a leak carries the random part. */
  static final String PASSWORD = "Pw-" + UUID.randomUUID().toString().substring(0, 12) + " h@x/1!";

  static final String SECOND = "Sec-" + UUID.randomUUID().toString().substring(0, 12);

  /** A login form whose page echoes the password back, as a careless or hostile page would. */
  static final String LOGIN =
      """
      <!doctype html><html><head><title>Login</title>
      <style>input { position: absolute; left: 20px; width: 400px; height: 32px; font-size: 20px; }</style></head>
      <body><form method="post" action="/session">
        <label for="user">Username</label><input id="user" name="user" style="top: 80px">
        <label for="pw">Password</label><input id="pw" name="pw" type="password" style="top: 140px">
        <label for="again">Confirm password</label><input id="again" name="again" type="password" style="top: 200px">
        <button type="submit" style="position: absolute; top: 260px">Sign in</button>
      </form>
      <button id="reveal" style="position: absolute; top: 300px"
        onclick="out.textContent = 'Your password is ' + pw.value + ' and ' + again.value">Reveal</button>
      <p id="out" style="position: absolute; top: 330px"></p>
      <script>
        pw.addEventListener('input', () => {
          document.title = 'Login as ' + pw.value;
          history.replaceState(null, '', '/login?pw=' + encodeURIComponent(pw.value));
        });
      </script></body></html>""";

  static LocalBrowser browser;
  static final List<String> posted = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    CredentialChannel allowing =
        new CredentialChannel(
            Optional.empty(), Map.of(), name -> null, true, Optional.empty(), true);
    browser =
        new LocalBrowser(
            Map.of("/login", LOGIN),
            Map.of(
                "/session",
                exchange -> {
                  posted.add(
                      new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                  LocalBrowser.respond(
                      exchange,
                      "<html><head><title>Welcome</title></head><body>Signed in</body></html>");
                }),
            allowing,
            LocalBrowser.withLoopback(Map.of("actionTimeoutMs", 1500)));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static Map<String, Object> with(ToolResult observed, String field, String key, Object value) {
    Map<String, Object> args = new HashMap<>(LocalBrowser.target(observed, field));
    args.put(key, value);
    return args;
  }

  @Test
  void aPasswordTheUserGaveGoesInAndIsRedactedEverywhereTheModelLooks() {
    ToolResult page = browser.call("given", "browser_open", Map.of("url", browser.url("/login")));
    ToolResult filled =
        browser.call("given", "browser_fill", with(page, "Password", "value", PASSWORD));
    assertFalse(filled.isError(), filled.text());
    assertTrue(filled.text().startsWith("Filled " + PASSWORD.length() + " characters"));
    // The page echoed it into its title and URL as it went in: the model sees neither.
    assertTrue(filled.text().contains("Login as [REDACTED:typed-password]"), filled.text());
    assertTrue(
        String.valueOf(filled.structured()).contains("/login?pw=[REDACTED:typed-password]"),
        String.valueOf(filled.structured()));
    Map<String, Object> field = LocalBrowser.element(filled, "Password");
    assertFalse(field.containsKey("value"), filled.text());
    assertEquals("filled", field.get("state"), filled.text());

    ToolResult typed =
        browser.call("given", "browser_type", with(filled, "Confirm password", "text", SECOND));
    assertFalse(typed.isError(), typed.text());
    ToolResult revealed =
        browser.call("given", "browser_click", LocalBrowser.target(typed, "Reveal"));
    assertTrue(
        revealed
            .text()
            .contains("Your password is [REDACTED:typed-password] and [REDACTED:typed-password]"),
        revealed.text());
    ToolResult article = browser.call("given", "browser_extract_article", Map.of());
    assertTrue(
        String.valueOf(article.structured()).contains("Your password is [REDACTED:typed-password]"),
        article.text());
    ToolResult document = browser.call("given", "browser_observe", Map.of("mode", "document"));

    // A failure line that quotes the model's own text: a wait for the password as text.
    ToolResult waited =
        browser.call(
            "given",
            "browser_wait",
            Map.of("until", "text-hidden", "text", "is " + PASSWORD, "timeout_ms", 300));
    assertTrue(waited.isError(), waited.text());
    assertTrue(waited.text().contains("[REDACTED:typed-password]"), waited.text());

    for (ToolResult r : List.of(page, filled, typed, revealed, article, document, waited)) {
      assertNoCopy(r.text() + r.structured());
    }
    List<Transition> transitions = browser.runtime().transitions();
    assertTrue(
        transitions.stream().anyMatch(t -> "fill".equals(t.action().get("kind"))),
        transitions.toString());
    for (Transition t : transitions) {
      assertNoCopy(String.valueOf(t));
    }

    // The site gets both, as typed.
    ToolResult signedIn =
        browser.call("given", "browser_click", LocalBrowser.target(document, "Sign in"));
    assertTrue(signedIn.text().contains("Signed in"), signedIn.text());
    String body = URLDecoder.decode(posted.get(posted.size() - 1), StandardCharsets.UTF_8);
    assertTrue(body.contains("pw=" + PASSWORD) && body.contains("again=" + SECOND), "posted");
  }

  @Test
  void aTypedPasswordIsMaskedInScreenshots() throws Exception {
    ToolResult page = browser.call("masked", "browser_open", Map.of("url", browser.url("/login")));
    ToolResult filled =
        browser.call("masked", "browser_fill", with(page, "Password", "value", PASSWORD));
    assertFalse(filled.isError(), filled.text());
    for (boolean fullPage : List.of(false, true)) {
      BufferedImage shot =
          CredentialFillTest.image(
              browser.call("masked", "browser_screenshot", Map.of("full_page", fullPage)));
      // Inside the field's box (20..420 x 140..172): every pixel is the mask.
      for (int x = 24; x < 416; x += 7) {
        for (int y = 144; y < 168; y += 5) {
          assertEquals(CredentialFields.mask().getRGB(), shot.getRGB(x, y), "pixel " + x + "," + y);
        }
      }
    }
  }

  @Test
  void keysNeverTypeIntoAPasswordFieldOneByOne() {
    ToolResult page = browser.call("keys", "browser_open", Map.of("url", browser.url("/login")));
    ToolResult lineBreak =
        browser.call("keys", "browser_type", with(page, "Password", "text", PASSWORD + "\n"));
    assertTrue(lineBreak.text().contains("code=BROWSER_INVALID_ARGUMENT"), lineBreak.text());
    assertTrue(lineBreak.text().contains("press Enter with browser_press"), lineBreak.text());

    ToolResult pressed = browser.call("keys", "browser_press", with(page, "Password", "key", "x"));
    assertTrue(pressed.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), pressed.text());

    ToolResult focused =
        browser.call(
            "keys",
            "browser_click",
            LocalBrowser.target(browser.call("keys", "browser_observe", Map.of()), "Password"));
    assertFalse(focused.isError(), focused.text());
    ToolResult byFocus = browser.call("keys", "browser_type", Map.of("text", PASSWORD));
    assertTrue(byFocus.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), byFocus.text());
    assertTrue(byFocus.text().contains("element_ref"), byFocus.text());
    ToolResult keyByFocus = browser.call("keys", "browser_press", Map.of("key", "Shift+X"));
    assertTrue(
        keyByFocus.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), keyByFocus.text());
    // Keys that type nothing still reach it.
    ToolResult enter = browser.call("keys", "browser_press", Map.of("key", "Backspace"));
    assertFalse(enter.isError(), enter.text());

    ToolResult reveal =
        browser.call(
            "keys",
            "browser_click",
            LocalBrowser.target(browser.call("keys", "browser_observe", Map.of()), "Reveal"));
    assertTrue(reveal.text().contains("Your password is and"), reveal.text());
    for (ToolResult r : List.of(lineBreak, pressed, byFocus, keyByFocus, reveal)) {
      assertNoCopy(r.text() + r.structured());
    }
  }

  @Test
  void theToolsSayAPasswordTheUserGaveMayGoIn() {
    for (String tool : List.of("browser_fill", "browser_type")) {
      String description = browser.description(tool);
      assertTrue(description.contains("password the user gave you"), description);
      assertFalse(description.contains("Never for passwords"), description);
    }
  }

  static void assertNoCopy(String text) {
    for (String part :
        List.of(PASSWORD.substring(3, 15), SECOND.substring(4, 16), PASSWORD.substring(0, 8))) {
      assertFalse(text.contains(part), () -> "found a copy of a typed password in: " + text);
    }
  }
}
