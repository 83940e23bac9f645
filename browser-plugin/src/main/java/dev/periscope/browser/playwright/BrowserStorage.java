package dev.periscope.browser.playwright;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.CDPSession;
import com.microsoft.playwright.Frame;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a checkpoint holds of a browser: Playwright's storage state (cookies, and each origin's
 * local storage and IndexedDB) with the session storage of the agent's current tab beside it, under
 * {@value #SESSION_STORAGE}, and the tabs' URLs under {@value #TABS}. IndexedDB and session storage
 * together stay within a byte cap: past it, the largest origins' shares are left out (and logged by
 * origin and size, never by content), while cookies and local storage are always kept. On the
 * lane's thread.
 */
final class BrowserStorage {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(BrowserStorage.class);

  /** The key of the page's session storage in a checkpoint: {@code [{origin, items}]}. */
  static final String SESSION_STORAGE = "sessionStorage";

  /** The key of the tabs in a checkpoint: {@code {urls, current}}. */
  static final String TABS = "tabs";

  private BrowserStorage() {}

  /** The tabs a checkpoint reopens: their URLs in order, and the index of the current one. */
  record SavedTabs(List<String> urls, int current) {
    SavedTabs {
      urls = List.copyOf(urls);
    }
  }

  /** {@code saved} as a checkpoint holds it. */
  static String tabs(SavedTabs saved) {
    JsonObject o = new JsonObject();
    JsonArray urls = new JsonArray();
    saved.urls().forEach(urls::add);
    o.add("urls", urls);
    o.addProperty("current", saved.current());
    return o.toString();
  }

  /** The tabs of {@code state} as {@link #tabs} wrote them, or {@code ""}. */
  static String tabsOf(String state) {
    JsonElement t = JsonParser.parseString(state).getAsJsonObject().get(TABS);
    return t == null ? "" : t.toString();
  }

  /** {@code state} holding the tabs {@code tabs} ({@link #tabs}) in place of its own. */
  static String withTabs(String state, String tabs) {
    JsonObject o = JsonParser.parseString(state).getAsJsonObject();
    o.add(TABS, JsonParser.parseString(tabs));
    return o.toString();
  }

  /** The records of each IndexedDB store the digest looks at. */
  static final int IDB_RECORDS = 200;

  /**
   * One frame's storage, digested in the page (state-digest.js, called with {@link #IDB_RECORDS}):
   * its origin and a hash of its local storage, session storage and IndexedDB, so that a checkpoint
   * is taken only when something changed.
   */
  static final String DIGEST = PageScripts.script("state-digest");

  /** Session storage of one frame: its origin and entries, or null when it has none to read. */
  private static final String SESSION_ENTRIES = PageScripts.script("session-entries");

  /**
   * The browser's state as a checkpoint holds it: the context's storage state with IndexedDB, and
   * the session storage of {@code page}'s frames by origin (none when it is null), within {@code
   * capBytes} for IndexedDB and session storage together.
   */
  static String capture(BrowserContext context, Page page, long capBytes) {
    JsonObject state =
        JsonParser.parseString(
                context.storageState(new BrowserContext.StorageStateOptions().setIndexedDB(true)))
            .getAsJsonObject();
    Map<String, JsonArray> session = new LinkedHashMap<>();
    for (Frame frame : page == null ? List.<Frame>of() : PageScripts.documentFrames(page)) {
      try {
        Object read = frame.evaluate(SESSION_ENTRIES);
        if (read instanceof Map<?, ?> m
            && m.get("origin") instanceof String origin
            && origin.startsWith("http")
            && m.get("items") instanceof List<?> items
            && !items.isEmpty()) {
          JsonArray array = new JsonArray();
          for (Object item : items) {
            Map<?, ?> entry = (Map<?, ?>) item;
            JsonObject o = new JsonObject();
            o.addProperty("name", String.valueOf(entry.get("name")));
            o.addProperty("value", String.valueOf(entry.get("value")));
            array.add(o);
          }
          session.putIfAbsent(origin, array);
        }
      } catch (PlaywrightException gone) {
        // A frame that went has nothing to keep.
      }
    }
    JsonArray sessions = new JsonArray();
    session.forEach(
        (origin, items) -> {
          JsonObject o = new JsonObject();
          o.addProperty("origin", origin);
          o.add("items", items);
          sessions.add(o);
        });
    state.add(SESSION_STORAGE, sessions);
    withinCap(state, capBytes);
    return state.toString();
  }

  /** One origin's share of IndexedDB or session storage, and where it sits in the state. */
  private record Share(String origin, String kind, JsonObject holder, String key, long bytes) {}

  /** Leaves out the largest shares of IndexedDB and session storage until they fit {@code cap}. */
  private static void withinCap(JsonObject state, long cap) {
    List<Share> shares = new ArrayList<>();
    if (state.get("origins") instanceof JsonArray origins) {
      for (JsonElement e : origins) {
        JsonObject o = e.getAsJsonObject();
        if (o.has("indexedDB")) {
          shares.add(
              new Share(
                  o.get("origin").getAsString(),
                  "IndexedDB",
                  o,
                  "indexedDB",
                  size(o.get("indexedDB"))));
        }
      }
    }
    for (JsonElement e : state.getAsJsonArray(SESSION_STORAGE)) {
      JsonObject o = e.getAsJsonObject();
      shares.add(
          new Share(
              o.get("origin").getAsString(), "session storage", o, "items", size(o.get("items"))));
    }
    long total = shares.stream().mapToLong(Share::bytes).sum();
    if (total <= cap) {
      return;
    }
    shares.sort(Comparator.comparingLong(Share::bytes).reversed());
    List<String> left = new ArrayList<>();
    for (Share s : shares) {
      if (total <= cap) {
        break;
      }
      s.holder().remove(s.key());
      if (s.key().equals("items")) {
        s.holder().add("items", new JsonArray());
      }
      total -= s.bytes();
      left.add(s.origin() + " " + s.kind() + " (" + s.bytes() + " bytes)");
    }
    LOG.warn(
        "a checkpoint leaves out {}: IndexedDB and session storage together may take {} bytes"
            + " (plugins.browser.maxCheckpointStorageBytes)",
        String.join(", ", left),
        cap);
  }

  private static long size(JsonElement e) {
    return e.toString().getBytes(StandardCharsets.UTF_8).length;
  }

  /**
   * A checkpoint split into Playwright's storage state, the page's session storage, and the tabs
   * (null when it kept none).
   */
  record Stored(
      String playwrightState, Map<String, List<String[]>> sessionStorage, SavedTabs tabs) {}

  /**
   * Fails with {@code BROWSER_CHECKPOINT_UNAVAILABLE}, naming the way out, when the payload {@code
   * ref} of browser session {@code session} is not a checkpoint {@link #split} can read (a damaged
   * or foreign file): before anything of a browser is opened for it.
   */
  static void requireReadable(String checkpoint, String ref, String session) {
    try {
      split(checkpoint);
    } catch (RuntimeException e) {
      throw new dev.periscope.api.browser.BrowserException(
          dev.periscope.api.browser.ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
          "the checkpoint of browser session "
              + session
              + " is damaged (payload "
              + ref
              + " is not a saved browser state: "
              + e.getClass().getSimpleName()
              + "); use browser_reset to start this session afresh");
    }
  }

  /** Splits a checkpoint; one written before session storage or tabs were kept has none. */
  static Stored split(String checkpoint) {
    JsonObject state = JsonParser.parseString(checkpoint).getAsJsonObject();
    SavedTabs tabs = null;
    if (state.remove(TABS) instanceof JsonObject t && t.get("urls") instanceof JsonArray urls) {
      List<String> list = new ArrayList<>();
      for (JsonElement u : urls) {
        list.add(u.getAsString());
      }
      tabs = new SavedTabs(list, t.has("current") ? t.get("current").getAsInt() : 0);
    }
    Map<String, List<String[]>> session = new LinkedHashMap<>();
    if (state.get(SESSION_STORAGE) instanceof JsonArray sessions) {
      for (JsonElement e : sessions) {
        JsonObject o = e.getAsJsonObject();
        List<String[]> items = new ArrayList<>();
        for (JsonElement item : o.getAsJsonArray("items")) {
          JsonObject i = item.getAsJsonObject();
          items.add(new String[] {i.get("name").getAsString(), i.get("value").getAsString()});
        }
        if (!items.isEmpty()) {
          session.put(o.get("origin").getAsString(), items);
        }
      }
      state.remove(SESSION_STORAGE);
    }
    return new Stored(state.toString(), session, tabs);
  }

  /**
   * Gives {@code page}, a fresh page on about:blank, the session storage of its checkpoint: each
   * origin is visited with an empty document served by Playwright itself (nothing reaches the
   * network), its entries are set, and the page goes back to about:blank with its history cleared,
   * so the agent's page starts as a new page that already holds them.
   */
  static void restoreSession(
      BrowserContext context, Page page, Map<String, List<String[]>> byOrigin) {
    if (byOrigin.isEmpty()) {
      return;
    }
    for (Map.Entry<String, List<String[]>> e : byOrigin.entrySet()) {
      String origin = e.getKey();
      java.util.function.Predicate<String> own = url -> url.startsWith(origin + "/");
      page.route(
          own,
          route ->
              route.fulfill(
                  new com.microsoft.playwright.Route.FulfillOptions()
                      .setStatus(200)
                      .setContentType("text/html")
                      .setBody("<!doctype html><title></title>")));
      try {
        page.navigate(origin + "/");
        List<List<String>> items = new ArrayList<>();
        for (String[] item : e.getValue()) {
          items.add(List.of(item[0], item[1]));
        }
        page.evaluate(
            "items => { for (const [k, v] of items) sessionStorage.setItem(k, v); }", items);
      } finally {
        page.unroute(own);
      }
    }
    page.navigate("about:blank");
    CDPSession cdp = context.newCDPSession(page);
    try {
      cdp.send("Page.resetNavigationHistory");
    } finally {
      cdp.detach();
    }
  }
}
