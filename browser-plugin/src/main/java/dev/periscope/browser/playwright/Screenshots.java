package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.BoundingBox;
import com.microsoft.playwright.options.ScreenshotAnimations;
import com.microsoft.playwright.options.ScreenshotCaret;
import com.microsoft.playwright.options.ScreenshotScale;
import com.microsoft.playwright.options.ScreenshotType;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.ScreenshotView;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
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
   * A recording's frame: the viewport as a JPEG at CSS size (one image pixel per CSS pixel, however
   * dense the screen), masked as {@link #capture} masks: the fields that received a credential,
   * where they were before and after. No size script and no view: it must cost the action little.
   */
  static byte[] frame(Page page, CredentialFields credentialFields) {
    List<BoundingBox> masks = new ArrayList<>(credentialFields.masks(page, false));
    byte[] jpeg =
        page.screenshot(
            new Page.ScreenshotOptions()
                .setType(ScreenshotType.JPEG)
                .setQuality(FRAME_QUALITY)
                .setScale(ScreenshotScale.CSS)
                .setAnimations(ScreenshotAnimations.ALLOW)
                .setCaret(ScreenshotCaret.INITIAL));
    masks.addAll(credentialFields.masks(page, false));
    return CredentialFields.paint(jpeg, masks, 1, "jpg");
  }

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
