package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.Content;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.runtime.CredentialChannel;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Grounding by coordinates: a screenshot says where its pixels lie (viewport, scroll, device pixel
 * ratio 2 here) and can show a JPEG copy sized for the model; browser_point acts at CSS pixels of
 * the latest viewport screenshot on a page whose only control is drawn on a canvas, and is refused
 * with no screenshot, after the page scrolled, outside the viewport, and for typing into a password
 * field. Real Chromium, pages on 127.0.0.1.
 */
class CoordinatesTest {
  static LocalBrowser browser;

  /**
   * A canvas at the page's top left with a "Pay" button drawn from (40, 40) to (200, 90) CSS
   * pixels; the page logs what reached it into #log, and is taller than the viewport.
   */
  static final String CANVAS =
      """
      <!doctype html><html><head><title>Canvas</title>
      <style>body { margin: 0; height: 3000px } canvas { display: block }</style></head><body>
      <canvas id="c" width="400" height="200"></canvas>
      <input id="note" style="position:absolute; left: 40px; top: 240px; width: 200px">
      <input id="secret" type="password" style="position:absolute; left: 40px; top: 300px">
      <p id="log" style="position:absolute; top: 360px">log:</p>
      <script>
        const c = document.getElementById('c'), g = c.getContext('2d');
        g.fillStyle = '#06c'; g.fillRect(40, 40, 160, 50);
        g.fillStyle = '#fff'; g.font = '20px sans-serif'; g.fillText('Pay', 100, 72);
        const log = (s) => document.getElementById('log').textContent += ' ' + s;
        const onButton = (e) => e.offsetX >= 40 && e.offsetX <= 200 && e.offsetY >= 40 && e.offsetY <= 90;
        c.addEventListener('click', (e) => log(onButton(e) ? 'paid' : 'missed@' + e.offsetX + ',' + e.offsetY));
        c.addEventListener('dblclick', (e) => log('double'));
        c.addEventListener('contextmenu', (e) => { e.preventDefault(); log('menu'); });
        let down = null;
        c.addEventListener('mousedown', (e) => down = [e.offsetX, e.offsetY]);
        c.addEventListener('mouseup', (e) => { if (down && (down[0] !== e.offsetX || down[1] !== e.offsetY))
          log('dragged ' + down.join(',') + '>' + e.offsetX + ',' + e.offsetY); });
        addEventListener('scroll', () => document.title = 'Canvas at ' + scrollY);
        document.getElementById('note').addEventListener('input', (e) => log('note=' + e.target.value));
      </script></body></html>""";

  @BeforeAll
  static void start() throws Exception {
    browser =
        new LocalBrowser(
            Map.of("/canvas", CANVAS),
            Map.of(),
            CredentialChannel.none(),
            LocalBrowser.withLoopback(
                Map.of("viewport", Map.of("width", 800, "height", 600, "deviceScaleFactor", 2))));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static ToolResult call(String agent, String tool, Map<String, Object> args) {
    return browser.call(agent, tool, args);
  }

  static ToolResult ok(String agent, String tool, Map<String, Object> args) {
    ToolResult r = call(agent, tool, args);
    assertFalse(r.isError(), r.text());
    return r;
  }

  static ToolResult point(String agent, String action, double x, double y, Object... more) {
    Map<String, Object> args = new HashMap<>(Map.of("action", action, "x", x, "y", y));
    for (int i = 0; i < more.length; i += 2) {
      args.put((String) more[i], more[i + 1]);
    }
    return call(agent, "browser_point", args);
  }

  static String log(ToolResult r) {
    return (String) LocalBrowser.observation(r).get("text");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> part(ToolResult r, String key) {
    return (Map<String, Object>) r.structured().get(key);
  }

  @Test
  void aScreenshotSaysWhereItsPixelsLieAndCanShowACopySizedForTheModel() {
    ok("meta", "browser_open", Map.of("url", browser.url("/canvas")));
    ToolResult full = ok("meta", "browser_screenshot", Map.of());
    Map<String, Object> view = part(full, "view");
    assertEquals(800, view.get("viewport_width"), full.text());
    assertEquals(600, view.get("viewport_height"));
    assertEquals(2.0, view.get("device_pixel_ratio"));
    assertEquals(0.0, view.get("scroll_y"));
    assertEquals(false, view.get("full_page"));
    assertEquals("page-1", view.get("page_id"));
    Map<String, Object> image = part(full, "image");
    assertEquals(
        Map.of(
            "media_type",
            "image/png",
            "width",
            1600,
            "height",
            1200,
            "model_copy",
            false,
            "css_pixels_per_image_pixel",
            0.5),
        image);
    assertTrue(
        full.text().contains("Viewport 800x600 CSS pixels, scrolled to 0,0, device pixel ratio 2"),
        full.text());
    assertTrue(full.text().contains("multiply its pixel coordinates by 0.5"), full.text());

    ToolResult copy = ok("meta", "browser_screenshot", Map.of("model_copy", true));
    Map<String, Object> small = part(copy, "image");
    assertEquals("image/jpeg", small.get("media_type"));
    assertEquals(1280, small.get("width"), copy.text());
    assertEquals(960, small.get("height"));
    assertEquals(0.625, small.get("css_pixels_per_image_pixel"));
    Content.Image shown =
        copy.content().stream()
            .filter(Content.Image.class::isInstance)
            .map(Content.Image.class::cast)
            .findFirst()
            .orElseThrow();
    assertEquals("image/jpeg", shown.mimeType());
    assertTrue(shown.data().length <= 400_000, shown.data().length + " bytes");
    assertEquals((byte) 0xFF, shown.data()[0]);
    assertEquals((byte) 0xD8, shown.data()[1], "a JPEG");
  }

  @Test
  void gesturesAtPointsOfTheScreenshotReachACanvasDrawnButton() {
    ok("canvas", "browser_open", Map.of("url", browser.url("/canvas")));
    ok("canvas", "browser_screenshot", Map.of());
    ToolResult paid = point("canvas", "click", 120, 65);
    assertFalse(paid.isError(), paid.text());
    assertTrue(log(paid).contains("log: paid"), log(paid));
    assertTrue(log(point("canvas", "click", 300, 150)).contains("missed@300,150"));
    assertTrue(log(point("canvas", "double-click", 120, 65)).contains("double"));
    assertTrue(log(point("canvas", "right-click", 120, 65)).contains("menu"));
    ToolResult dragged = point("canvas", "drag", 60, 60, "to_x", 300, "to_y", 150);
    assertTrue(log(dragged).contains("dragged 60,60>300,150"), log(dragged));
    ToolResult typed = point("canvas", "type", 100, 250, "text", "hello");
    assertFalse(typed.isError(), typed.text());
    assertTrue(log(typed).contains("note=hello"), log(typed));
    // The transition records the gesture and the typed text's length, never the text.
    String recorded = String.valueOf(part(typed, "transition"));
    assertTrue(recorded.contains("gesture=type") && !recorded.contains("hello"), recorded);
  }

  @Test
  void aScrollMovesThePageAndMakesTheScreenshotStale() {
    ok("scroll", "browser_open", Map.of("url", browser.url("/canvas")));
    ToolResult none = point("scroll", "click", 120, 65);
    assertTrue(none.text().contains("code=BROWSER_STALE_SCREENSHOT"), none.text());
    assertTrue(none.text().contains("there is no screenshot of this page"), none.text());

    ok("scroll", "browser_screenshot", Map.of());
    ToolResult scrolled = point("scroll", "scroll", 400, 300, "delta_y", 500);
    assertFalse(scrolled.isError(), scrolled.text());
    assertEquals("Canvas at 500", LocalBrowser.observation(scrolled).get("title"));
    ToolResult stale = point("scroll", "click", 120, 65);
    assertTrue(stale.text().contains("code=BROWSER_STALE_SCREENSHOT"), stale.text());
    assertTrue(stale.text().contains("the page has scrolled to 0,500"), stale.text());
    assertFalse(log(ok("scroll", "browser_observe", Map.of())).contains("paid"));

    ok("scroll", "browser_screenshot", Map.of());
    ok("scroll", "browser_open", Map.of("url", browser.url("/canvas?again")));
    ToolResult moved = point("scroll", "click", 120, 65);
    assertTrue(
        moved.text().contains("the page is now " + browser.url("/canvas?again")), moved.text());

    // Another tab of the same page, scrolled alike, is still another page.
    ok("scroll", "browser_screenshot", Map.of());
    ok("scroll", "browser_tabs", Map.of("action", "open", "url", browser.url("/canvas?again")));
    ToolResult otherTab = point("scroll", "click", 120, 65);
    assertTrue(
        otherTab.text().contains("the current tab is now page-2, not page-1"), otherTab.text());

    ok("scroll", "browser_screenshot", Map.of("full_page", true));
    ToolResult fullPage = point("scroll", "click", 120, 65);
    assertTrue(
        fullPage.text().contains("the latest screenshot is of the full page"), fullPage.text());
  }

  @Test
  void aPointOutsideTheViewportAndTypingIntoAPasswordAreRefused() {
    ok("refuse", "browser_open", Map.of("url", browser.url("/canvas")));
    ok("refuse", "browser_screenshot", Map.of());
    ToolResult outside = point("refuse", "click", 900, 100);
    assertTrue(outside.text().contains("code=BROWSER_INVALID_ARGUMENT"), outside.text());
    assertTrue(outside.text().contains("outside the viewport the screenshot shows, 800x600"));
    ToolResult password = point("refuse", "type", 100, 310, "text", "hunter2");
    assertTrue(password.text().contains("code=BROWSER_PASSWORD_INPUT_FORBIDDEN"), password.text());
    ToolResult noText = point("refuse", "click", 100, 100, "text", "x");
    assertTrue(noText.text().contains("only the type gesture types text"), noText.text());
  }
}
