package dev.periscope.browser.playwright;

import com.microsoft.playwright.JSHandle;
import com.microsoft.playwright.PlaywrightException;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import java.util.Map;

/**
 * Scripts the model wrote ({@code browser_evaluate}), run in the current tab once the runtime has
 * had them approved: never in a tab where a secret was filled nor on a page of an origin a secret
 * was filled on (its other tabs could read it), never on a page without an origin of its own, and
 * only in the very document whose origin was approved: the origin is read in that document's own
 * context, and the script runs in that context, so a navigation in between fails the call instead
 * of running the script elsewhere. The value is serialised and cut in the page, so a huge one never
 * crosses to the driver. The script runs as the page's own, through the tab's pipeline (dialogs,
 * downloads, navigations, new windows, guards) and within the call's deadline; its requests go
 * through the page's policy like any other.
 */
final class ScriptRoom {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PlaywrightEnvironment.class);

  /** The value as JSON, cut in the page: {@code {json, chars}}, or {@code {error}}. */
  private static final String SERIALISED =
      """
      (value, max) => {
        let json;
        try {
          json = JSON.stringify(value);
        } catch (e) {
          return {error: String(e && e.message || e)};
        }
        if (typeof json !== 'string') json = 'null';
        return {json: json.slice(0, max), chars: json.length};
      }""";

  /** The longest page-written message a failure quotes: redacted afterwards, then shown. */
  private static final int MESSAGE_CHARS = 600;

  private final PlaywrightEnvironment env;

  /**
   * The origins a secret was filled on in this environment (the field's frame and its page), or a
   * person typed on in a handoff. On the lane's thread.
   */
  private final java.util.Set<String> secretOrigins = new java.util.HashSet<>();

  ScriptRoom(PlaywrightEnvironment env) {
    this.env = env;
  }

  /** No script runs on a page of these origins from now on: a secret may be there. */
  void secretOn(java.util.Collection<String> origins) {
    secretOrigins.addAll(origins);
  }

  String origin() {
    return env.call(
        "reading the page's origin",
        () -> {
          Tab t = env.tab();
          String origin = String.valueOf(t.page.evaluate("() => document.location.origin"));
          refuse(t, origin);
          return origin;
        });
  }

  BrowserAction.Evaluate.Evaluated evaluate(String expression, String origin, int maxChars) {
    return env.guarded(
        "the script",
        () -> {
          Tab t = env.tab();
          // A handle in the current document's context: what runs below runs there, or fails.
          JSHandle document = t.page.evaluateHandle("() => document");
          JSHandle value = null;
          try {
            String now = String.valueOf(document.evaluate("d => d.location.origin"));
            refuse(t, now);
            if (!now.equals(origin)) {
              throw new BrowserException(
                  ErrorCode.BROWSER_POLICY_DENIED,
                  "the script was approved for "
                      + origin
                      + " and the page is now of "
                      + now
                      + "; it did not run");
            }
            try {
              value = document.evaluateHandle(expression);
            } catch (com.microsoft.playwright.TimeoutError e) {
              throw BrowserException.of(
                  ErrorCode.BROWSER_ACTION_FAILED,
                  "the script did not settle within the call's time (a promise that never"
                      + " resolves, or a page too busy to answer); a loop that keeps the page busy"
                      + " leaves it so until the browser is replaced",
                  e);
            } catch (PlaywrightException e) {
              throw failed("the script failed", e);
            }
            Object serialised = value.evaluate(SERIALISED, maxChars);
            Map<?, ?> m =
                serialised instanceof Map<?, ?> map
                    ? map
                    : java.util.Collections.singletonMap("error", serialised);
            if (m.containsKey("error")) {
              throw new BrowserException(
                  ErrorCode.BROWSER_ACTION_FAILED,
                  "the script's value is not JSON ("
                      + cut(m.get("error"))
                      + "); return what JSON.stringify can write");
            }
            return new BrowserAction.Evaluate.Evaluated(
                String.valueOf(m.get("json")), ((Number) m.get("chars")).intValue());
          } finally {
            letGo(value);
            letGo(document);
          }
        });
  }

  /**
   * Lets go of a handle, best effort: the value is read by then, and a handle the page does not let
   * go of in time (a busy page, a value of megabytes) goes with its document anyway.
   */
  private static void letGo(JSHandle handle) {
    if (handle == null) {
      return;
    }
    try {
      handle.dispose();
    } catch (PlaywrightException slow) {
      LOG.debug("a script's handle was not let go of: {}", slow.getMessage());
    }
  }

  /**
   * No script where a secret is: a tab a secret was filled in, a page of an origin one was filled
   * on (its tabs and frames of that origin can read the field), a page without an origin of its own
   * (about:blank shares its opener's).
   */
  private void refuse(Tab t, String origin) {
    if (t.secretFilled || secretOrigins.contains(origin)) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "a secret was filled in this tab or on a page of "
              + origin
              + ", so no script runs here; scripts run on pages of other origins");
    }
    if ("null".equals(origin) || origin.isEmpty()) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "this page has no origin of its own (about:blank, data:, a sandbox), so no script runs"
              + " in it; open a page of the site first");
    }
  }

  private static BrowserException failed(String what, PlaywrightException e) {
    return BrowserException.of(
        ErrorCode.BROWSER_ACTION_FAILED, what + ": " + cut(ChromiumLog.summary(e.getMessage())), e);
  }

  /** A page-written message, bounded before redaction with room for a whole secret. */
  private static String cut(Object message) {
    String text = String.valueOf(message);
    return text.length() > MESSAGE_CHARS ? text.substring(0, MESSAGE_CHARS) : text;
  }
}
