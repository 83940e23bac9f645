package dev.periscope.browser.playwright;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a Selenium Grid says of itself at {@code /status}: whether it is ready, how many nodes are
 * up, how many of their Chrome slots are free, and the sessions in the slots. The grid provider
 * asks before it requests a browser, so that a request never waits in the Grid's queue past the
 * call that made it: the Grid would give it the next free slot after the call gave up, and hold
 * that browser for no one. The nodes that drain ({@code draining}, by URI) take no new sessions and
 * stop once theirs end.
 */
record GridStatus(
    boolean ready,
    int nodesUp,
    int freeSlots,
    int slots,
    List<Session> sessions,
    java.util.Set<String> draining) {

  /**
   * A session in a slot: its id, the node it runs on, and the lane tag ({@link Lane#GRID_TAG}) it
   * was asked for with; null for a session another client asked for.
   */
  record Session(String id, String node, String lane) {}

  /** Reads a {@code /status} answer. */
  static GridStatus parse(String body) throws IOException {
    JsonObject value;
    try {
      value = JsonParser.parseString(body).getAsJsonObject().getAsJsonObject("value");
    } catch (RuntimeException e) {
      throw new IOException("the Grid's /status is not the Selenium Grid 4 status", e);
    }
    if (value == null || !value.has("nodes") || !value.get("nodes").isJsonArray()) {
      throw new IOException("the Grid's /status names no nodes: is this a Selenium Grid 4?");
    }
    int up = 0;
    int free = 0;
    int all = 0;
    List<Session> sessions = new ArrayList<>();
    java.util.Set<String> draining = new java.util.HashSet<>();
    try {
      for (JsonElement n : value.getAsJsonArray("nodes")) {
        JsonObject node = n.getAsJsonObject();
        String uri = text(node, "uri");
        for (JsonElement s : array(node, "slots")) {
          JsonElement session = s.getAsJsonObject().get("session");
          if (session != null && session.isJsonObject()) {
            JsonObject o = session.getAsJsonObject();
            JsonElement caps = o.get("capabilities");
            String lane =
                caps != null && caps.isJsonObject()
                    ? text(caps.getAsJsonObject(), Lane.GRID_TAG)
                    : null;
            sessions.add(new Session(text(o, "sessionId"), uri, lane));
          }
        }
        String availability = text(node, "availability");
        if ("DRAINING".equals(availability) && uri != null) {
          draining.add(uri);
        }
        if (!"UP".equals(availability)) {
          continue;
        }
        up++;
        for (JsonElement s : array(node, "slots")) {
          if (!chrome(s.getAsJsonObject())) {
            continue; // a slot for another browser is none of ours
          }
          all++;
          JsonElement session = s.getAsJsonObject().get("session");
          if (session == null || session.isJsonNull()) {
            free++;
          }
        }
      }
    } catch (RuntimeException e) {
      throw new IOException("the Grid's /status has nodes in a shape this provider cannot read", e);
    }
    boolean ready;
    try {
      ready = value.has("ready") && value.get("ready").getAsBoolean();
    } catch (RuntimeException e) {
      throw new IOException(
          "the Grid's /status says ready in a shape this provider cannot read", e);
    }
    return new GridStatus(
        ready, up, free, all, List.copyOf(sessions), java.util.Set.copyOf(draining));
  }

  /** The sessions a lane tagged {@code tag} asked for. */
  List<Session> ofLane(String tag) {
    return sessions.stream().filter(s -> tag.equals(s.lane()) && s.id() != null).toList();
  }

  private static Iterable<JsonElement> array(JsonObject o, String key) {
    JsonElement e = o.get(key);
    return e != null && e.isJsonArray() ? e.getAsJsonArray() : List.of();
  }

  /** Whether a slot offers Chrome (Chromium): the browser the provider asks for. */
  private static boolean chrome(JsonObject slot) {
    JsonElement stereotype = slot.get("stereotype");
    if (stereotype == null || !stereotype.isJsonObject()) {
      return true; // a Grid that does not say: counted
    }
    String name = text(stereotype.getAsJsonObject(), "browserName");
    return name == null || name.equals("chrome") || name.equals("chromium");
  }

  private static String text(JsonObject o, String key) {
    JsonElement e = o.get(key);
    return e == null || !e.isJsonPrimitive() ? null : e.getAsString();
  }

  /** In words, for the log, doctor and errors. */
  String describe() {
    return (ready ? "ready" : "not ready")
        + ", "
        + nodesUp
        + " node(s) up, "
        + freeSlots
        + " of "
        + slots
        + " Chrome slot(s) free";
  }
}
