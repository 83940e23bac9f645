package dev.periscope.browser.playwright;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What a Selenium Grid says of itself at {@code /status}: whether it is ready, how many nodes are
 * up, and how many of their slots are free. The grid provider asks before it requests a browser, so
 * that a request never waits in the Grid's queue past the call that made it: the Grid would give it
 * the next free slot after the call gave up, and hold that browser for no one.
 */
record GridStatus(boolean ready, int nodesUp, int freeSlots, int slots) {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** The Grid's status now. */
  static GridStatus of(GridSettings grid) throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(status(grid.url())).timeout(Duration.ofSeconds(10)).GET();
    grid.headers().forEach(b::header);
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("the Grid answered " + r.statusCode() + " at /status");
    }
    JsonObject value;
    try {
      value = JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonObject("value");
    } catch (RuntimeException e) {
      throw new IOException("the Grid's /status is not the Selenium Grid 4 status", e);
    }
    if (value == null || !value.has("nodes")) {
      throw new IOException("the Grid's /status names no nodes: is this a Selenium Grid 4?");
    }
    int up = 0;
    int free = 0;
    int all = 0;
    for (JsonElement n : value.getAsJsonArray("nodes")) {
      JsonObject node = n.getAsJsonObject();
      if (!"UP".equals(text(node, "availability"))) {
        continue;
      }
      up++;
      for (JsonElement s : node.getAsJsonArray("slots")) {
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
    return new GridStatus(value.has("ready") && value.get("ready").getAsBoolean(), up, free, all);
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
    return e == null || e.isJsonNull() ? null : e.getAsString();
  }

  private static URI status(URI grid) {
    String path = grid.getPath() == null ? "" : grid.getPath();
    return grid.resolve((path.endsWith("/") ? path : path + "/") + "status");
  }

  /** In words, for the log and doctor. */
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
