package dev.periscope.browser.playwright;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.microsoft.playwright.CDPSession;
import com.microsoft.playwright.PlaywrightException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Finds the elements of the page's main document that have a listener a person's hands trigger
 * (click, double-click, mouse and pointer down and up, context menu, touch), through the page's
 * Chromium control session (which the page cannot see), and hands them to observe.js as the
 * registry's {@code listened} set, and those with a keydown listener as its {@code keyed} set. A
 * script cannot tell which elements have listeners; Chromium's debugger can. Elements without
 * semantics that only a listener makes clickable would otherwise have no ref. Call on the lane's
 * thread, before observe.js.
 */
final class ClickListeners {
  private static final Set<String> POINTER =
      Set.of(
          "click",
          "dblclick",
          "mousedown",
          "mouseup",
          "pointerdown",
          "pointerup",
          "contextmenu",
          "touchstart");

  private static final String KEY = "keydown";

  /** So that a page with listeners on everything cannot make an observation slow. */
  static final int MAX_ELEMENTS = 400;

  private static final String GROUP = "periscope-click-listeners";

  /** Holds the document's handle from one observation to the next, until the document goes. */
  private static final String DOCUMENT_GROUP = "periscope-click-listeners-document";

  /** Each element with its kind: p (a pointer listener), k (keydown), b (both). */
  private static final String HAND_OVER = PageScripts.script("hand-over");

  private final CDPSession control;
  private final String registryKey;

  /** The main document observed last, and the listened nodes already handed to its registry. */
  private String documentId;

  private Map<Integer, Character> handedOver = Map.of();

  ClickListeners(CDPSession control, String registryKey) {
    this.control = control;
    this.registryKey = registryKey;
  }

  /**
   * Marks the listened elements of the document as it stands; a document that went away meanwhile
   * is only left unmarked. The same document as last time costs one call to Chromium when its
   * listened elements are the same; new ones are added, and any that lost its listener makes the
   * set start over.
   */
  void mark() {
    boolean resolved = false;
    try {
      JsonArray listeners;
      try {
        listeners = listeners();
      } catch (PlaywrightException documentGone) {
        listeners = null;
      }
      if (listeners == null) {
        release(DOCUMENT_GROUP);
        documentId = null;
        handedOver = Map.of();
        listeners = listeners();
        if (listeners == null) {
          return;
        }
      }
      // The pointer's listeners first: keydown ones take what room the cap leaves.
      Map<Integer, Character> nodes = new LinkedHashMap<>();
      for (char pass : new char[] {'p', 'k'}) {
        for (JsonElement l : listeners) {
          JsonObject listener = l.getAsJsonObject();
          String type = listener.get("type").getAsString();
          char kind = POINTER.contains(type) ? 'p' : KEY.equals(type) ? 'k' : 0;
          if (kind == pass && listener.has("backendNodeId")) {
            int node = listener.get("backendNodeId").getAsInt();
            Character had = nodes.get(node);
            if (had == null && nodes.size() < MAX_ELEMENTS) {
              nodes.put(node, kind);
            } else if (had != null && had != kind) {
              nodes.put(node, 'b');
            }
          }
        }
      }
      if (nodes.equals(handedOver)) {
        return;
      }
      boolean replace = !nodes.entrySet().containsAll(handedOver.entrySet());
      JsonArray arguments = new JsonArray();
      arguments.add(value(registryKey));
      arguments.add(value(replace));
      StringBuilder kinds = new StringBuilder();
      JsonArray elements = new JsonArray();
      resolved = true;
      for (Map.Entry<Integer, Character> node : nodes.entrySet()) {
        if (!replace && node.getValue().equals(handedOver.get(node.getKey()))) {
          continue;
        }
        JsonObject resolve = params("objectGroup", GROUP);
        resolve.addProperty("backendNodeId", node.getKey());
        String element =
            objectId(control.send("DOM.resolveNode", resolve).getAsJsonObject("object"));
        if (element != null) {
          JsonObject argument = new JsonObject();
          argument.addProperty("objectId", element);
          elements.add(argument);
          kinds.append(node.getValue());
        }
      }
      arguments.add(value(kinds.toString()));
      arguments.addAll(elements);
      JsonObject call = params("objectId", documentId, "functionDeclaration", HAND_OVER);
      call.add("arguments", arguments);
      control.send("Runtime.callFunctionOn", call);
      handedOver = nodes;
    } catch (PlaywrightException e) {
      // The document navigated away or a node went while it was looked at: the observation sees
      // the page as it is, without listener-only elements; the next one starts over.
      handedOver = Map.of();
    } finally {
      if (resolved) {
        release(GROUP);
      }
    }
  }

  /**
   * The listeners of the main document, found from the handle kept since the last call (a handle of
   * a document that went away fails) or, with none kept, from a new one; null when the page has no
   * document to look at.
   */
  private JsonArray listeners() {
    if (documentId == null) {
      JsonObject document =
          control.send(
              "Runtime.evaluate", params("expression", "document", "objectGroup", DOCUMENT_GROUP));
      documentId = objectId(document.getAsJsonObject("result"));
      if (documentId == null) {
        return null;
      }
    }
    JsonObject query = params("objectId", documentId);
    query.addProperty("depth", -1);
    query.addProperty("pierce", false);
    return control.send("DOMDebugger.getEventListeners", query).getAsJsonArray("listeners");
  }

  private void release(String group) {
    try {
      control.send("Runtime.releaseObjectGroup", params("objectGroup", group));
    } catch (PlaywrightException ignored) {
      // The session is gone with its page.
    }
  }

  private static JsonObject value(Object v) {
    JsonObject o = new JsonObject();
    if (v instanceof Boolean b) {
      o.addProperty("value", b);
    } else {
      o.addProperty("value", String.valueOf(v));
    }
    return o;
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
