package dev.periscope.browser.playwright;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.microsoft.playwright.CDPSession;
import com.microsoft.playwright.PlaywrightException;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Finds the elements of the page's main document that have a click, mousedown or pointerdown
 * listener, through the page's Chromium control session (which the page cannot see), and hands them
 * to observe.js as the registry's {@code listened} set. A script cannot tell which elements have
 * listeners; Chromium's debugger can. Elements without semantics that only a listener makes
 * clickable would otherwise have no ref. Call on the driver's thread, before observe.js.
 */
final class ClickListeners {
  private static final Set<String> TYPES = Set.of("click", "mousedown", "pointerdown");

  /** So that a page with listeners on everything cannot make an observation slow. */
  static final int MAX_ELEMENTS = 400;

  private static final String GROUP = "periscope-click-listeners";
  private static final String HAND_OVER =
      "function (key, ...elements) { const r = window[key]; if (r) r.listened = new WeakSet("
          + "elements.filter((e) => e && e.nodeType === 1 && e !== document.body"
          + " && e !== document.documentElement)); }";

  private final CDPSession control;
  private final String registryKey;

  ClickListeners(CDPSession control, String registryKey) {
    this.control = control;
    this.registryKey = registryKey;
  }

  /**
   * Marks the listened elements of the document as it stands; a document that went away meanwhile
   * is only left unmarked.
   */
  void mark() {
    try {
      JsonObject document =
          control.send("Runtime.evaluate", params("expression", "document", "objectGroup", GROUP));
      String documentId = objectId(document.getAsJsonObject("result"));
      if (documentId == null) {
        return;
      }
      JsonObject query = params("objectId", documentId);
      query.addProperty("depth", -1);
      query.addProperty("pierce", false);
      JsonArray listeners =
          control.send("DOMDebugger.getEventListeners", query).getAsJsonArray("listeners");
      Set<Integer> nodes = new LinkedHashSet<>();
      for (JsonElement l : listeners) {
        JsonObject listener = l.getAsJsonObject();
        if (TYPES.contains(listener.get("type").getAsString())
            && listener.has("backendNodeId")
            && nodes.size() < MAX_ELEMENTS) {
          nodes.add(listener.get("backendNodeId").getAsInt());
        }
      }
      JsonArray arguments = new JsonArray();
      JsonObject key = new JsonObject();
      key.addProperty("value", registryKey);
      arguments.add(key);
      for (int node : nodes) {
        JsonObject resolve = params("objectGroup", GROUP);
        resolve.addProperty("backendNodeId", node);
        String element =
            objectId(control.send("DOM.resolveNode", resolve).getAsJsonObject("object"));
        if (element != null) {
          JsonObject argument = new JsonObject();
          argument.addProperty("objectId", element);
          arguments.add(argument);
        }
      }
      JsonObject call = params("objectId", documentId, "functionDeclaration", HAND_OVER);
      call.add("arguments", arguments);
      control.send("Runtime.callFunctionOn", call);
    } catch (PlaywrightException e) {
      // The document navigated away or a node went while it was looked at: the observation sees
      // the page as it is, without listener-only elements.
    } finally {
      try {
        control.send("Runtime.releaseObjectGroup", params("objectGroup", GROUP));
      } catch (PlaywrightException ignored) {
        // The session is gone with its page.
      }
    }
  }

  private static String objectId(JsonObject remote) {
    return remote != null && remote.has("objectId") ? remote.get("objectId").getAsString() : null;
  }

  private static JsonObject params(String... keysAndValues) {
    JsonObject o = new JsonObject();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      o.addProperty(keysAndValues[i], keysAndValues[i + 1]);
    }
    return o;
  }
}
