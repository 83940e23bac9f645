package dev.periscope.browser.playwright;

import com.google.gson.JsonObject;
import com.microsoft.playwright.CDPSession;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.BoundingBox;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.ScreenshotView;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A PNG of the viewport or the full page, within the budgets (device pixels checked before capture,
 * PNG bytes after), with every field that received a credential painted over. Call on the driver's
 * thread.
 */
final class Screenshots {
  private Screenshots() {}

  static Screenshot capture(
      Page page,
      boolean fullPage,
      EnvironmentPolicy.ScreenshotLimits budgets,
      CredentialFields credentialFields) {
    @SuppressWarnings("unchecked")
    Map<String, Object> size = (Map<String, Object>) page.evaluate(SIZE, fullPage);
    double ratio = ((Number) size.get("ratio")).doubleValue();
    long pixels =
        Math.round(((Number) size.get("width")).doubleValue() * ratio)
            * Math.round(((Number) size.get("height")).doubleValue() * ratio);
    if (pixels > budgets.maxPixels()) {
      throw BrowserException.of(
              ErrorCode.BROWSER_POLICY_DENIED,
              "the screenshot would be "
                  + pixels
                  + " device pixels, over the budget of "
                  + budgets.maxPixels()
                  + "; take the viewport instead of the full page")
          .withUrl(page.url());
    }
    // Filled fields are masked where they were before and after the capture, so one moved meanwhile
    // is covered.
    List<BoundingBox> masks = new ArrayList<>(credentialFields.masks(page, fullPage));
    byte[] png = page.screenshot(new Page.ScreenshotOptions().setFullPage(fullPage));
    masks.addAll(credentialFields.masks(page, fullPage));
    png = CredentialFields.paint(png, masks, ratio);
    if (png.length > budgets.maxBytes()) {
      throw BrowserException.of(
              ErrorCode.BROWSER_POLICY_DENIED,
              "the screenshot is "
                  + png.length
                  + " bytes as PNG, over the budget of "
                  + budgets.maxBytes())
          .withUrl(page.url());
    }
    ByteBuffer header = ByteBuffer.wrap(png, 16, 8);
    @SuppressWarnings("unchecked")
    ScreenshotView before = view((Map<String, Object>) size.get("view"), fullPage);
    ScreenshotView after = view(page).withFullPage(fullPage);
    // A page that scrolled or moved while it was captured: its pixels match neither view, and no
    // point of them can be trusted.
    ScreenshotView settled = before.changeTo(after) == null ? before : null;
    return new Screenshot(
        png, header.getInt(), header.getInt(), null, page.url(), page.title(), settled);
  }

  /**
   * A recording's frame: the viewport as a JPEG at half its CSS size, scaled and encoded by
   * Chromium (DevTools' {@code Page.captureScreenshot}, asked for speed over the page's own control
   * session), masked as {@link #capture} masks: the fields that received a credential, where they
   * were before and after. No size script and no view: it must cost the action little.
   */
  static byte[] frame(Page page, CDPSession control, CredentialFields credentialFields) {
    List<BoundingBox> masks = new ArrayList<>(credentialFields.masks(page, false));
    JsonObject viewport =
        control.send("Page.getLayoutMetrics").getAsJsonObject("cssVisualViewport");
    double width = viewport.get("clientWidth").getAsDouble();
    JsonObject clip = new JsonObject();
    clip.addProperty("x", viewport.get("pageX").getAsDouble());
    clip.addProperty("y", viewport.get("pageY").getAsDouble());
    clip.addProperty("width", width);
    clip.addProperty("height", viewport.get("clientHeight").getAsDouble());
    clip.addProperty("scale", FRAME_SCALE);
    JsonObject params = new JsonObject();
    params.addProperty("format", "jpeg");
    params.addProperty("quality", FRAME_QUALITY);
    params.addProperty("optimizeForSpeed", true);
    params.add("clip", clip);
    byte[] jpeg =
        Base64.getDecoder()
            .decode(control.send("Page.captureScreenshot", params).get("data").getAsString());
    masks.addAll(credentialFields.masks(page, false));
    return CredentialFields.paintScaled(jpeg, masks, width, "jpg");
  }

  /** A recording's frame is half the viewport's CSS size. */
  private static final double FRAME_SCALE = 0.5;

  /** JPEG quality of a recording's frame: enough to read a page's headings at half size. */
  private static final int FRAME_QUALITY = 70;

  /** A script that reads the viewport, pixel ratio, scroll position and URL of the page. */
  static final String VIEW = PageScripts.script("view");

  /** The size a screenshot would be, of the viewport or the full page, with the page's view. */
  private static final String SIZE = PageScripts.script("screenshot-size");

  /** The page's view as {@link #VIEW} read it. */
  static ScreenshotView view(Map<String, Object> v, boolean fullPage) {
    return new ScreenshotView(
        String.valueOf(v.get("url")),
        fullPage,
        ((Number) v.get("width")).intValue(),
        ((Number) v.get("height")).intValue(),
        ((Number) v.get("ratio")).doubleValue(),
        ((Number) v.get("x")).doubleValue(),
        ((Number) v.get("y")).doubleValue(),
        null);
  }

  /** The page's view now. */
  @SuppressWarnings("unchecked")
  static ScreenshotView view(Page page) {
    return view((Map<String, Object>) page.evaluate(VIEW), false);
  }
}
