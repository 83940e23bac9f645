package dev.periscope.browser.playwright;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;

/**
 * Scripts the model wrote ({@code browser_evaluate}), run in the current tab once the runtime has
 * had them approved: never in a tab where a secret was filled, never on a page of another origin
 * than the one approved. The script runs as the page's own, through the tab's pipeline (its
 * dialogs, downloads, navigations, new windows and guards) and within the call's deadline; its
 * requests go through the page's policy like any other.
 */
final class ScriptRoom {
  /** Special numbers (NaN, Infinity) and nulls as JavaScript's JSON would show them. */
  private static final Gson JSON =
      new GsonBuilder().serializeNulls().disableHtmlEscaping().create();

  private final PlaywrightEnvironment env;

  ScriptRoom(PlaywrightEnvironment env) {
    this.env = env;
  }

  String origin() {
    return env.call(
        "reading the page's origin",
        () -> {
          Tab t = env.tab();
          refuseWhereSecret(t);
          return CredentialFields.originOfUrl(t.page.url());
        });
  }

  BrowserAction.Evaluate.Evaluated evaluate(String expression, String origin, int maxChars) {
    return env.guarded(
        "the script",
        () -> {
          Tab t = env.tab();
          refuseWhereSecret(t);
          String now = CredentialFields.originOfUrl(t.page.url());
          if (!now.equals(origin)) {
            throw new BrowserException(
                ErrorCode.BROWSER_POLICY_DENIED,
                "the script was approved for "
                    + origin
                    + " and the page is now of "
                    + now
                    + "; it did not run");
          }
          // A script that throws fails the call with its message (PlaywrightEnvironment.call).
          Object value = t.page.evaluate(expression);
          String json = json(value);
          return new BrowserAction.Evaluate.Evaluated(
              json.length() > maxChars ? json.substring(0, maxChars) : json, json.length());
        });
  }

  /** A value Playwright handed back (maps, lists, numbers, text, booleans, null) as JSON. */
  static String json(Object value) {
    if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
      return "null"; // as JSON.stringify writes them
    }
    return JSON.toJson(value);
  }

  private static void refuseWhereSecret(Tab t) {
    if (t.secretFilled) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "a secret was filled in this tab, so no script runs in it; open another tab with"
              + " browser_tabs for scripts");
    }
  }
}
