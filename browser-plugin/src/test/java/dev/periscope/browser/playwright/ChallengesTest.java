package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.browser.Transition;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.runtime.CredentialChannel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bot walls and challenges recognised from the page's structure: local pages that carry each
 * vendor's markers (the container, frame and response field its embed puts in a page; nothing is
 * asked of any vendor). The observation names the challenge, its frame and its element; an action
 * it holds back fails {@code BROWSER_CHALLENGE} and does nothing, the rest of the page stays
 * usable; a solved widget, an invisible one and a sign-in page of its own are no challenge. Real
 * Chromium, pages on 127.0.0.1.
 */
class ChallengesTest {
  static LocalBrowser browser;

  /** What each vendor's frame draws: a checkbox a person ticks. */
  private static final String CHECKBOX =
      """
      <!doctype html><html><body>
      <span role="checkbox" aria-checked="false" tabindex="0" aria-label="I'm not a robot"
        onclick="this.setAttribute('aria-checked', 'true')">[ ]</span> I'm not a robot
      </body></html>""";

  static final Map<String, String> PAGES = new HashMap<>();

  static {
    PAGES.put(
        "/recaptcha",
        """
        <!doctype html><html><head><title>Contact</title></head><body>
        <a href="/help">Help</a>
        <form action="/sent" method="get">
          <input name="who" aria-label="Your name">
          <div class="g-recaptcha" data-sitekey="6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI">
            <iframe title="reCAPTCHA" width="304" height="78"
              src="/recaptcha/api2/anchor?ar=1&k=6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI"></iframe>
            <textarea id="g-recaptcha-response" name="g-recaptcha-response"
              style="display:none"></textarea>
          </div>
          <button type="submit">Send message</button>
        </form></body></html>""");
    PAGES.put(
        "/recaptcha-solved",
        PAGES
            .get("/recaptcha")
            .replace(
                "style=\"display:none\"></textarea>",
                "style=\"display:none\">03AGdBq2</textarea>"));
    PAGES.put(
        "/recaptcha-invisible",
        """
        <!doctype html><html><head><title>Invisible</title></head><body>
        <form action="/sent"><input name="q" aria-label="Query">
        <div class="g-recaptcha" data-sitekey="k" data-size="invisible"></div>
        <button type="submit">Search</button></form></body></html>""");
    PAGES.put(
        "/recaptcha-bound",
        """
        <!doctype html><html><head><title>Bound</title></head><body>
        <form action="/sent"><input name="q" aria-label="Query">
        <button class="g-recaptcha" data-sitekey="k" data-callback="onSubmit">Submit</button>
        </form>
        <div class="grecaptcha-badge" style="position:fixed;right:0;bottom:14px;width:256px;height:60px">
          <iframe title="reCAPTCHA" width="256" height="60"
            src="/recaptcha/api2/anchor?ar=1&k=k&size=invisible"></iframe></div>
        <textarea name="g-recaptcha-response" style="display:none"></textarea>
        </body></html>""");
    PAGES.put(
        "/turnstile-closed",
        """
        <!doctype html><html><head><title>Closed</title></head><body>
        <form action="/sent"><input name="card" aria-label="Card holder">
        <div class="cf-turnstile" data-sitekey="1x00000000000000000000AA" style="width:300px;height:65px"></div>
        <input type="submit" value="Pay now"></form>
        <script>
          const root = document.querySelector('.cf-turnstile').attachShadow({mode: 'closed'});
          root.innerHTML = '<span>Success!</span><input type="hidden" name="cf-turnstile-response">';
          if (location.search === '?passed') root.querySelector('input').value = '0.token';
        </script></body></html>""");
    PAGES.put(
        "/loading",
        """
        <!doctype html><html><head><title>Just a moment...</title></head><body>
        <button onclick="document.title = 'Loaded'">Go on</button></body></html>""");
    PAGES.put(
        "/banner",
        """
        <!doctype html><html><head><title>Shop</title></head><body style="margin:0">
        <a href="/help" style="position:absolute;top:560px;left:10px">Terms of sale</a>
        <div role="dialog" style="position:absolute;top:0;right:0;width:220px">
          <input type="password" aria-label="Password"><button>Sign in</button></div>
        <div style="position:fixed;bottom:0;left:0;right:0;height:200px;background:#eee">
          We use cookies. <button>Accept</button></div>
        </body></html>""");
    PAGES.put("/recaptcha/api2/anchor", CHECKBOX);
    PAGES.put(
        "/hcaptcha",
        """
        <!doctype html><html><head><title>Sign up</title></head><body>
        <div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001">
          <iframe src="/hcaptcha/checkbox.html#id=0x1" data-hcaptcha-widget-id="0x1"
            title="Widget containing checkbox for hCaptcha security challenge" width="303"
            height="78"></iframe>
          <textarea name="h-captcha-response" style="display:none"></textarea>
        </div>
        <button onclick="document.title = 'pressed'">Continue</button>
        </body></html>""");
    PAGES.put("/hcaptcha/checkbox.html", CHECKBOX);
    PAGES.put(
        "/turnstile",
        """
        <!doctype html><html><head><title>Checkout</title></head><body>
        <form action="/sent"><input name="card" aria-label="Card holder">
        <div class="cf-turnstile" data-sitekey="1x00000000000000000000AA">
          <iframe src="/cdn-cgi/challenge-platform/h/g/turnstile/if/ov2/av0/rcv/abc" width="300"
            height="65" title="Widget containing a Cloudflare security challenge"></iframe>
          <input type="hidden" name="cf-turnstile-response">
        </div>
        <input type="submit" value="Pay now"></form></body></html>""");
    PAGES.put("/cdn-cgi/challenge-platform/h/g/turnstile/if/ov2/av0/rcv/abc", CHECKBOX);
    PAGES.put(
        "/interstitial",
        """
        <!doctype html><html><head><title>Just a moment...</title></head><body>
        <div id="challenge-stage"><h1>shop.example</h1>
        <p id="challenge-body-text">Verifying you are human. This may take a few seconds.</p></div>
        <a href="/why">Why am I seeing this page?</a>
        <script>window._cf_chl_opt = {cType: 'managed'};</script>
        </body></html>""");
    PAGES.put(
        "/wall",
        """
        <!doctype html><html><head><title>Daily News</title></head><body>
        <article><h1>Markets today</h1><p>The first paragraph of the story.</p>
        <a href="/story">Read the whole story</a></article>
        <div role="dialog" aria-modal="true" style="position:fixed;inset:0;background:#fffe;
          display:flex;align-items:center;justify-content:center">
          <form action="/signed-in"><h2>Sign in to keep reading</h2>
            <input type="email" aria-label="Email">
            <input type="password" aria-label="Password">
            <button type="submit">Sign in</button></form>
        </div></body></html>""");
    PAGES.put(
        "/login",
        """
        <!doctype html><html><head><title>Sign in</title></head><body>
        <form action="/signed-in"><input type="email" aria-label="Email">
        <input type="password" aria-label="Password"><button type="submit">Sign in</button></form>
        <a href="/help">Help</a></body></html>""");
    PAGES.put(
        "/help", "<!doctype html><html><head><title>Help</title></head><body>help</body></html>");
    PAGES.put(
        "/why", "<!doctype html><html><head><title>Why</title></head><body>why</body></html>");
    PAGES.put(
        "/sent", "<!doctype html><html><head><title>Sent</title></head><body>sent</body></html>");
  }

  @BeforeAll
  static void start() throws Exception {
    browser = new LocalBrowser(PAGES, Map.of(), CredentialChannel.none(), LocalBrowser.LOOPBACK);
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static ToolResult open(String agent, String path) {
    ToolResult r = browser.call(agent, "browser_open", Map.of("url", browser.url(path)));
    assertFalse(r.isError(), r.text());
    return r;
  }

  /** The page observed with every element listed (a summary leaves content links out). */
  static ToolResult observeAll(String agent) {
    ToolResult r = browser.call(agent, "browser_observe", Map.of("mode", "interactive"));
    assertFalse(r.isError(), r.text());
    return r;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> challenge(ToolResult r) {
    return (Map<String, Object>) LocalBrowser.observation(r).get("challenge");
  }

  static String refOf(ToolResult r, String name) {
    return (String) LocalBrowser.element(r, name).get("ref");
  }

  static void refused(ToolResult r, String... words) {
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains("code=BROWSER_CHALLENGE"), r.text());
    for (String w : words) {
      assertTrue(r.text().contains(w), r.text());
    }
  }

  @Test
  void anUnsolvedRecaptchaIsNamedWithItsFrameAndElementAndHoldsBackItsFormsSubmit() {
    ToolResult page = open("recaptcha", "/recaptcha");
    Map<String, Object> c = challenge(page);
    assertEquals("captcha", c.get("kind"), page.text());
    assertEquals("recaptcha", c.get("vendor"));
    assertEquals(browser.url("/recaptcha/api2/anchor"), c.get("frame"), "no query, no site key");
    assertEquals(refOf(page, "I'm not a robot"), c.get("ref"), page.text());
    assertTrue(
        page.text()
            .contains("Challenge: A reCAPTCHA captcha in frame " + browser.url("/recaptcha")),
        page.text());

    ToolResult send =
        browser.call("recaptcha", "browser_click", LocalBrowser.target(page, "Send message"));
    refused(send, "held back by a reCAPTCHA captcha that has not been solved", "a person must");
    ToolResult tick =
        browser.call("recaptcha", "browser_click", LocalBrowser.target(page, "I'm not a robot"));
    refused(tick, "is part of a reCAPTCHA captcha");
    // What it does not guard goes on; nothing was sent.
    Map<String, Object> fill = new HashMap<>(LocalBrowser.target(page, "Your name"));
    fill.put("value", "Ada");
    ToolResult filled = browser.call("recaptcha", "browser_fill", fill);
    assertFalse(filled.isError(), filled.text());
    assertEquals("Contact", LocalBrowser.observation(filled).get("title"));
    ToolResult help =
        browser.call(
            "recaptcha", "browser_click", LocalBrowser.target(observeAll("recaptcha"), "Help"));
    assertFalse(help.isError(), help.text());
    assertEquals("Help", LocalBrowser.observation(help).get("title"));
    // The journal has the challenge once, from the first observation that showed it.
    List<Transition> seen =
        browser.runtime().transitions().stream()
            .filter(t -> "challenge".equals(t.action().get("kind")))
            .filter(t -> t.after().url().equals(browser.url("/recaptcha")))
            .toList();
    assertEquals(1, seen.size(), seen.toString());
    assertEquals("recaptcha captcha", seen.get(0).action().get("cause"));
  }

  @Test
  void aSolvedOrInvisibleRecaptchaAndASignInPageAreNoChallenge() {
    ToolResult solved = open("solved", "/recaptcha-solved");
    assertNull(challenge(solved), solved.text());
    assertFalse(solved.text().contains("Challenge:"), solved.text());
    ToolResult send =
        browser.call("solved", "browser_click", LocalBrowser.target(solved, "Send message"));
    assertFalse(send.isError(), send.text());
    assertEquals("Sent", LocalBrowser.observation(send).get("title"));

    assertNull(challenge(open("solved", "/recaptcha-invisible")));
    // A button bound to an invisible reCAPTCHA, and its badge: the widget runs on submit by itself.
    ToolResult bound = open("solved", "/recaptcha-bound");
    assertNull(challenge(bound), bound.text());
    ToolResult submitted =
        browser.call("solved", "browser_click", LocalBrowser.target(bound, "Submit"));
    assertFalse(submitted.isError(), submitted.text());
    // A title a loading page shares with Cloudflare's is not its challenge page.
    ToolResult loading = open("solved", "/loading");
    assertNull(challenge(loading), loading.text());
    // A sign-in dropdown and a cookie banner over a link: not a login wall.
    ToolResult banner = open("solved", "/banner");
    assertNull(challenge(banner), banner.text());
    ToolResult login = open("solved", "/login");
    assertNull(challenge(login), login.text());
  }

  @Test
  void hcaptchaAndTurnstileAreRecognisedByTheirMarkers() {
    ToolResult h = open("widgets", "/hcaptcha");
    Map<String, Object> hc = challenge(h);
    assertEquals("hcaptcha", hc.get("vendor"), h.text());
    assertEquals(browser.url("/hcaptcha/checkbox.html"), hc.get("frame"));
    assertEquals(refOf(h, "I'm not a robot"), hc.get("ref"));
    // Not in a form: only its own control is held back.
    ToolResult go = browser.call("widgets", "browser_click", LocalBrowser.target(h, "Continue"));
    assertFalse(go.isError(), go.text());

    ToolResult t = open("widgets", "/turnstile");
    Map<String, Object> tc = challenge(t);
    assertEquals("turnstile", tc.get("vendor"), t.text());
    assertEquals("captcha", tc.get("kind"));
    refused(
        browser.call("widgets", "browser_click", LocalBrowser.target(t, "Pay now")),
        "Cloudflare Turnstile captcha");

    // Its response field in a closed shadow root: found there, empty or holding a token.
    ToolResult closed = open("widgets", "/turnstile-closed");
    assertEquals("turnstile", challenge(closed).get("vendor"), closed.text());
    refused(
        browser.call("widgets", "browser_click", LocalBrowser.target(closed, "Pay now")),
        "Cloudflare Turnstile captcha");
    ToolResult passed = open("widgets", "/turnstile-closed?passed");
    assertNull(challenge(passed), passed.text());
  }

  @Test
  void aChallengePageHoldsBackEveryAction() {
    ToolResult page = open("interstitial", "/interstitial");
    Map<String, Object> c = challenge(page);
    page = observeAll("interstitial");
    assertEquals(
        Map.of("kind", "interstitial", "vendor", "cloudflare", "frame", ""), withoutRef(c));
    assertTrue(page.text().contains("Nothing on this page can be acted on until it passes"));
    refused(
        browser.call(
            "interstitial",
            "browser_click",
            LocalBrowser.target(page, "Why am I seeing this page?")),
        "a Cloudflare challenge page stands in front of the site");
    // Nor a key, nor a point; waiting for the check to pass is.
    refused(
        browser.call("interstitial", "browser_press", Map.of("key", "Enter")),
        "a Cloudflare challenge page");
    ToolResult waited =
        browser.call("interstitial", "browser_wait", Map.of("until", "load", "timeout_ms", 2000));
    assertFalse(waited.isError(), waited.text());
    // Going elsewhere is not an action on the page.
    assertEquals("Help", LocalBrowser.observation(open("interstitial", "/help")).get("title"));
  }

  @Test
  void aLoginWallHoldsBackWhatItCoversButNotItsOwnFields() {
    ToolResult summary = open("wall", "/wall");
    assertEquals("login_wall", challenge(summary).get("kind"), summary.text());
    ToolResult page = observeAll("wall");
    Map<String, Object> c = challenge(page);
    assertEquals("login_wall", c.get("kind"), page.text());
    assertEquals(refOf(page, "Password"), c.get("ref"));
    refused(
        browser.call("wall", "browser_click", LocalBrowser.target(page, "Read the whole story")),
        "a login wall covers",
        "sign in through it first");
    Map<String, Object> fill = new HashMap<>(LocalBrowser.target(page, "Email"));
    fill.put("value", "ada@example.test");
    ToolResult filled = browser.call("wall", "browser_fill", fill);
    assertFalse(filled.isError(), filled.text());
  }

  private static Map<String, Object> withoutRef(Map<String, Object> c) {
    Map<String, Object> m = new HashMap<>(c);
    assertNull(m.remove("ref"));
    return m;
  }
}
