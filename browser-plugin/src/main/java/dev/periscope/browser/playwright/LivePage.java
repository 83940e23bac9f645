package dev.periscope.browser.playwright;

import com.google.gson.JsonObject;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.CDPSession;
import com.microsoft.playwright.Mouse;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.MouseButton;
import dev.periscope.api.browser.spi.LiveViewEnvironment;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A page as a person sees and uses it during a handoff ({@link LiveViewEnvironment}): Chromium's
 * screencast of it, the person's input played with Playwright's mouse and keyboard, and its state
 * summed up as names with hashes of their values. Every method runs on the lane's thread.
 */
final class LivePage {
  private LivePage() {}

  /**
   * Starts the screencast; each frame is acknowledged, or Chromium sends no more. Frames come on
   * the lane's thread as it pumps the driver's events (between calls, and within them).
   */
  static CDPSession startScreencast(
      BrowserContext context,
      Page page,
      int maxWidth,
      int maxHeight,
      Consumer<LiveViewEnvironment.Frame> frames) {
    return startScreencast(context, page, maxWidth, maxHeight, 70, 1, frames);
  }

  /**
   * The same, with the JPEG {@code quality} and only every {@code nth} frame Chromium paints: a
   * watch's lighter stream.
   */
  static CDPSession startScreencast(
      BrowserContext context,
      Page page,
      int maxWidth,
      int maxHeight,
      int quality,
      int nth,
      Consumer<LiveViewEnvironment.Frame> frames) {
    return startPainted(
        context,
        page,
        maxWidth,
        maxHeight,
        quality,
        nth,
        painted -> frames.accept(painted.frame()));
  }

  /** A frame and where the page was scrolled when Chromium painted it, in CSS pixels. */
  record Painted(LiveViewEnvironment.Frame frame, double scrollX, double scrollY) {}

  /** The same, each frame with the page's scroll offsets as Chromium painted it. */
  static CDPSession startPainted(
      BrowserContext context,
      Page page,
      int maxWidth,
      int maxHeight,
      int quality,
      int nth,
      Consumer<Painted> frames) {
    CDPSession cdp = context.newCDPSession(page);
    cdp.on(
        "Page.screencastFrame",
        event -> {
          JsonObject meta = event.getAsJsonObject("metadata");
          frames.accept(
              new Painted(
                  new LiveViewEnvironment.Frame(
                      Base64.getDecoder().decode(event.get("data").getAsString()),
                      (int) Math.round(meta.get("deviceWidth").getAsDouble()),
                      (int) Math.round(meta.get("deviceHeight").getAsDouble())),
                  meta.has("scrollOffsetX") ? meta.get("scrollOffsetX").getAsDouble() : 0,
                  meta.has("scrollOffsetY") ? meta.get("scrollOffsetY").getAsDouble() : 0));
          if (STOPPED.contains(cdp)) {
            return; // unacknowledged, the screencast sends nothing more
          }
          JsonObject ack = new JsonObject();
          ack.addProperty("sessionId", event.get("sessionId").getAsInt());
          try {
            // Sent without waiting for Chromium's answer: a frame that comes while the agent's
            // call runs on the lane costs that call no round trip.
            com.microsoft.playwright.impl.Unanswered.send(cdp, "Page.screencastFrameAck", ack);
          } catch (PlaywrightException gone) {
            // the page went away; so does its screencast
          }
        });
    JsonObject start = new JsonObject();
    start.addProperty("format", "jpeg");
    start.addProperty("quality", quality);
    start.addProperty("everyNthFrame", nth);
    start.addProperty("maxWidth", maxWidth);
    start.addProperty("maxHeight", maxHeight);
    try {
      cdp.send("Page.startScreencast", start);
    } catch (RuntimeException e) {
      try {
        cdp.detach();
      } catch (RuntimeException gone) {
        e.addSuppressed(gone);
      }
      throw e;
    }
    return cdp;
  }

  /** Stops the screencast and detaches its session. */
  static void stopScreencast(CDPSession cdp) {
    try {
      cdp.send("Page.stopScreencast");
    } finally {
      cdp.detach();
    }
  }

  /** The sessions whose frames are no longer acknowledged: Chromium then sends no more. */
  private static final java.util.Set<CDPSession> STOPPED =
      java.util.Collections.synchronizedSet(
          java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));

  static void stopAcknowledging(CDPSession cdp) {
    STOPPED.add(cdp);
  }

  static void play(Page page, LiveViewEnvironment.PersonInput input) {
    Mouse mouse = page.mouse();
    switch (input.kind()) {
      case "move" -> mouse.move(input.x(), input.y());
      // A mouse's back and forward buttons move through the tab's history, as in a browser.
      case "down" -> {
        if ("back".equals(input.button())) {
          page.goBack();
        } else if ("forward".equals(input.button())) {
          page.goForward();
        } else {
          mouse.move(input.x(), input.y());
          mouse.down(new Mouse.DownOptions().setButton(button(input.button())));
        }
      }
      case "up" -> {
        if (!"back".equals(input.button()) && !"forward".equals(input.button())) {
          mouse.move(input.x(), input.y());
          mouse.up(new Mouse.UpOptions().setButton(button(input.button())));
        }
      }
      case "wheel" -> {
        mouse.move(input.x(), input.y());
        mouse.wheel(input.deltaX(), input.deltaY());
      }
      case "text" -> page.keyboard().type(input.text() == null ? "" : input.text());
      case "key" -> page.keyboard().press(input.key());
      default -> throw new IllegalArgumentException("no such input");
    }
  }

  private static MouseButton button(String name) {
    return switch (name) {
      case "middle" -> MouseButton.MIDDLE;
      case "right" -> MouseButton.RIGHT;
      default -> MouseButton.LEFT;
    };
  }

  /** Hashes the page's storage keys' values in the page itself: no value leaves it. */
  private static final String STORAGE_DIGESTS = PageScripts.script("storage-digests");

  @SuppressWarnings("unchecked")
  /**
   * The page's state; with a dialog open ({@code dialogOpen}) no script runs, so its storage and
   * title are not read (the title is empty).
   */
  static LiveViewEnvironment.State state(BrowserContext context, Page page, boolean dialogOpen) {
    Map<String, String> digests = new TreeMap<>();
    for (var c : context.cookies()) {
      digests.put("cookie " + c.name + " " + c.domain + " " + c.path, sha256(c.value));
    }
    String origin;
    try {
      java.net.URI u = java.net.URI.create(page.url());
      origin = u.getScheme() + "://" + u.getRawAuthority();
    } catch (RuntimeException e) {
      origin = page.url();
    }
    Object rows = List.of();
    if (!dialogOpen) {
      try {
        rows = page.evaluate(STORAGE_DIGESTS);
      } catch (PlaywrightException e) {
        // a page that runs no script has no storage to read
      }
    }
    for (Object row : (List<Object>) rows) {
      List<Object> r = (List<Object>) row;
      digests.put(r.get(0) + " " + origin + " " + r.get(1), String.valueOf(r.get(2)));
    }
    return new LiveViewEnvironment.State(page.url(), dialogOpen ? "" : page.title(), digests);
  }

  private static String sha256(String value) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(String.valueOf(value).getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
