package dev.periscope.browser.playwright;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.microsoft.playwright.CDPSession;
import com.microsoft.playwright.Page;
import dev.periscope.browser.policy.PolicyProxy;

/**
 * Teaches a browser context its proxy's credentials once, before any page of the agent loads: the
 * blank page fetches the bootstrap address, which the proxy answers itself, and the proxy's 407 is
 * answered over a Chromium control session of that page alone. Chromium keeps the credentials for
 * the proxy and sends them with every later request, so nothing intercepts the agent's traffic
 * afterwards (Playwright's own proxy credentials would pause every request and switch the HTTP
 * cache off). The page stays blank with no history, as a new page is. Call on the lane's thread.
 */
final class ProxyBootstrap {
  /** reach-proxy.js: a request to the policy proxy's bootstrap address. */
  private static final String REACH_PROXY = PageScripts.script("reach-proxy");

  private ProxyBootstrap() {}

  static void prime(Page page, PolicyProxy proxy) {
    CDPSession control = page.context().newCDPSession(page);
    try {
      control.on(
          "Fetch.requestPaused", event -> answer(control, "Fetch.continueRequest", request(event)));
      control.on(
          "Fetch.authRequired",
          event -> {
            JsonObject answer = new JsonObject();
            boolean fromProxy =
                "Proxy".equals(event.getAsJsonObject("authChallenge").get("source").getAsString());
            answer.addProperty("response", fromProxy ? "ProvideCredentials" : "CancelAuth");
            if (fromProxy) {
              answer.addProperty("username", proxy.username());
              answer.addProperty("password", proxy.password());
            }
            JsonObject params = request(event);
            params.add("authChallengeResponse", answer);
            answer(control, "Fetch.continueWithAuth", params);
          });
      JsonObject pattern = new JsonObject();
      pattern.addProperty("urlPattern", "http://" + PolicyProxy.BOOTSTRAP_HOST + "/*");
      JsonArray patterns = new JsonArray();
      patterns.add(pattern);
      JsonObject enable = new JsonObject();
      enable.addProperty("handleAuthRequests", true);
      enable.add("patterns", patterns);
      control.send("Fetch.enable", enable);
      // A request from the blank page, not a navigation: the page stays the new page it was, with
      // no history, and its renderer is not yet any site's, so the agent's first navigation need
      // not start another one.
      JsonObject fetch = new JsonObject();
      // The address is data: a JSON string the script is called with.
      fetch.addProperty(
          "expression",
          "("
              + REACH_PROXY
              + ")("
              + new com.google.gson.JsonPrimitive("http://" + PolicyProxy.BOOTSTRAP_HOST + "/")
              + ")");
      fetch.addProperty("awaitPromise", true);
      fetch.addProperty("returnByValue", true);
      JsonObject answer = control.send("Runtime.evaluate", fetch).getAsJsonObject("result");
      String outcome =
          answer == null || answer.get("value") == null ? "" : answer.get("value").getAsString();
      if (!outcome.equals("ready")) {
        throw new com.microsoft.playwright.PlaywrightException(
            "the browser could not reach its policy proxy: " + outcome);
      }
      control.send("Fetch.disable");
    } finally {
      control.detach();
    }
  }

  /**
   * Answers a paused request. One that arrives after the bootstrap (its favicon, say) finds the
   * domain disabled and the request already released by that: nothing to answer.
   */
  private static void answer(CDPSession control, String method, JsonObject params) {
    try {
      control.send(method, params);
    } catch (com.microsoft.playwright.PlaywrightException released) {
      // Fetch was disabled meanwhile, which lets every paused request go on.
    }
  }

  private static JsonObject request(JsonObject event) {
    JsonObject params = new JsonObject();
    params.addProperty("requestId", event.get("requestId").getAsString());
    return params;
  }
}
