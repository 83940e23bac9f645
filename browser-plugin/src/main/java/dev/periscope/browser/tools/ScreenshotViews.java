package dev.periscope.browser.tools;

import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.ScreenshotView;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a screenshot's view reads to the model (text) and to clients (JSON): where its pixels lie on
 * the page, and how the image shown maps to the CSS pixels that browser_point takes.
 */
final class ScreenshotViews {
  private ScreenshotViews() {}

  /** Lines for the result's heading; empty when the provider said nothing of the view. */
  static String text(ScreenshotView v, String mimeType, int shownWidth, Screenshot shot) {
    if (v == null) {
      return "";
    }
    StringBuilder b = new StringBuilder("\n");
    if (v.fullPage()) {
      b.append("The full page, ")
          .append(Math.round(shot.width() / v.devicePixelRatio()))
          .append(" CSS pixels wide, scrolled to ");
    } else {
      b.append("Viewport ")
          .append(v.viewportWidth())
          .append('x')
          .append(v.viewportHeight())
          .append(" CSS pixels, scrolled to ");
    }
    b.append(Math.round(v.scrollX()))
        .append(',')
        .append(Math.round(v.scrollY()))
        .append(", device pixel ratio ")
        .append(number(v.devicePixelRatio()))
        .append(". The image shown is ")
        .append(mimeType.equals("image/jpeg") ? "a JPEG copy, " : "")
        .append(shownWidth)
        .append(" pixels wide: ");
    double perPixel = cssPerImagePixel(v, shot, shownWidth);
    if (v.fullPage()) {
      b.append("browser_point takes points of a viewport screenshot, not of this one.");
    } else if (Math.abs(perPixel - 1) < 1e-9) {
      b.append("its pixels are the CSS pixels browser_point takes.");
    } else {
      b.append("multiply its pixel coordinates by ")
          .append(number(perPixel))
          .append(" for the CSS pixels browser_point takes.");
    }
    return b.toString();
  }

  static Map<String, Object> json(ScreenshotView v) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("url", v.url());
    m.put("page_id", v.pageId());
    m.put("full_page", v.fullPage());
    m.put("viewport_width", v.viewportWidth());
    m.put("viewport_height", v.viewportHeight());
    m.put("device_pixel_ratio", v.devicePixelRatio());
    m.put("scroll_x", v.scrollX());
    m.put("scroll_y", v.scrollY());
    m.put("coordinates", "css-pixels-of-the-viewport");
    return m;
  }

  static Map<String, Object> image(
      Screenshot shot, String mimeType, int shownWidth, int shownHeight, boolean modelCopy) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("media_type", mimeType);
    m.put("width", shownWidth);
    m.put("height", shownHeight);
    m.put("model_copy", modelCopy);
    if (shot.view() != null) {
      m.put("css_pixels_per_image_pixel", cssPerImagePixel(shot.view(), shot, shownWidth));
    }
    return m;
  }

  /** CSS pixels per pixel of the image shown. */
  private static double cssPerImagePixel(ScreenshotView v, Screenshot shot, int shownWidth) {
    return shot.width() / v.devicePixelRatio() / shownWidth;
  }

  private static String number(double d) {
    return d == Math.rint(d)
        ? String.valueOf((long) d)
        : String.format(java.util.Locale.ROOT, "%.4f", d).replaceAll("0+$", "");
  }
}
