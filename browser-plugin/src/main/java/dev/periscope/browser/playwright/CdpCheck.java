package dev.periscope.browser.playwright;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The user's Chromium as the cdp provider finds it at its DevTools discovery address: what {@code
 * /json/version} says (the browser and its version), or why it cannot be attached to (nothing
 * listens, it is no Chromium, it is older than Playwright drives), with a remedy. Asked before each
 * attach, and by {@code harness doctor --project}.
 */
public record CdpCheck(boolean ok, String browser, String detail, String remedy) {

  /** The oldest Chromium major version attached to: Playwright 1.62 drives no older one. */
  static final int OLDEST_MAJOR = 100;

  private static final Pattern CHROMIUM =
      Pattern.compile("^(?:HeadlessChrome|Chrome|Chromium|Edg|Edge|Opera|Brave)/(\\d+)\\.");

  /**
   * What speaks to a browser's DevTools discovery address: never through a proxy, never following a
   * redirect elsewhere (also what closes an attached environment's tabs, {@link UserTabs}).
   */
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(3))
          .followRedirects(HttpClient.Redirect.NEVER)
          .proxy(java.net.ProxySelector.of(null))
          .build();

  /** How much of an answer is read: {@code /json/version} is a few hundred bytes. */
  private static final int MAX_BODY = 64 * 1024;

  /** Asks the browser at {@code cdp} now, within {@code timeoutMs}; never throws. */
  public static CdpCheck of(CdpSettings cdp, long timeoutMs) {
    String where = cdp.url() + "/json/version";
    String started =
        "start Chromium with --remote-debugging-port="
            + cdp.url().getPort()
            + " (and --remote-debugging-address="
            + cdp.url().getHost()
            + "), or correct plugins.browser.cdp.url";
    String body;
    try {
      // The whole exchange, body included, within the bound.
      var exchange =
          HTTP.sendAsync(
              HttpRequest.newBuilder(java.net.URI.create(where))
                  .timeout(Duration.ofMillis(timeoutMs))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
      HttpResponse<byte[]> r;
      try {
        r = exchange.get(timeoutMs, java.util.concurrent.TimeUnit.MILLISECONDS);
      } finally {
        exchange.cancel(true);
      }
      if (r.statusCode() != 200 || r.body().length > MAX_BODY) {
        return failed(
            cdp.url()
                + " answered /json/version with "
                + (r.statusCode() != 200
                    ? "status " + r.statusCode()
                    : "more than " + MAX_BODY + " bytes")
                + ": it is not a Chromium's DevTools address",
            started);
      }
      body = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      return failed(
          cause instanceof java.net.ConnectException
              ? "nothing listens at " + cdp.url()
              : "no answer from " + cdp.url() + " (" + cause.getClass().getSimpleName() + ")",
          started);
    } catch (java.util.concurrent.TimeoutException e) {
      return failed(
          cdp.url() + " did not answer /json/version within " + timeoutMs + " ms", started);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return failed("the check of " + cdp.url() + " was interrupted", null);
    }
    String browser;
    try {
      JsonObject version = JsonParser.parseString(body).getAsJsonObject();
      JsonElement named = version.get("Browser");
      browser = named == null || !named.isJsonPrimitive() ? null : named.getAsString();
    } catch (RuntimeException e) {
      browser = null;
    }
    if (browser == null) {
      return failed(
          cdp.url()
              + " answered /json/version without a browser's version: is it a Chromium's"
              + " DevTools address?",
          started);
    }
    String shown = browser.length() > 80 ? browser.substring(0, 80) + "..." : browser;
    shown = shown.replaceAll("[\\p{Cntrl}]", "?");
    Matcher m = CHROMIUM.matcher(browser);
    if (!m.find()) {
      return failed(
          cdp.url()
              + " is "
              + shown
              + ", not a Chromium: the cdp provider attaches to Chromium only",
          "start a Chromium-based browser with --remote-debugging-port, or choose another provider");
    }
    int major;
    try {
      major = Integer.parseInt(m.group(1));
    } catch (NumberFormatException e) {
      major = 0;
    }
    if (major < OLDEST_MAJOR) {
      return failed(
          cdp.url()
              + " is "
              + shown
              + ": a version mismatch, Playwright "
              + playwrightVersion()
              + " drives Chromium "
              + OLDEST_MAJOR
              + " or later",
          "update the browser");
    }
    return new CdpCheck(
        true,
        shown,
        "Chromium at "
            + cdp.url()
            + ": "
            + shown
            + "; network policy: "
            + (cdp.requestLevelPolicy()
                ? "request-level (each request of the agent's tabs checked by interception; no DNS"
                    + " pinning; WebRTC, service workers, worker WebSockets and redirects in cross-site"
                    + " frames not covered)"
                : "not enforced (strict and allowlist projects refuse this provider; set"
                    + " plugins.browser.cdp.requestLevelPolicy: true to accept request-level"
                    + " enforcement)"),
        null);
  }

  private static CdpCheck failed(String detail, String remedy) {
    return new CdpCheck(false, null, detail, remedy);
  }

  private static String playwrightVersion() {
    return String.valueOf(
        com.microsoft.playwright.Playwright.class.getPackage().getImplementationVersion());
  }
}
