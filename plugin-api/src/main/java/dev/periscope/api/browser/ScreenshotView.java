package dev.periscope.api.browser;

/**
 * Where a screenshot's pixels lie: the page it shows ({@code url}) and the tab it is in ({@code
 * pageId}, as observations name tabs; null from a provider that keeps one page), whether it is of
 * the full page or of the viewport, the viewport's size in CSS pixels, the device pixel ratio
 * (image pixels per CSS pixel) and how far the page was scrolled, in CSS pixels. The coordinates a
 * {@link BrowserAction.PointAt} names are CSS pixels of a viewport screenshot, from its top left
 * corner. Since host API 2.5.0.
 *
 * <p>Immutable and thread-safe.
 */
public record ScreenshotView(
    String url,
    boolean fullPage,
    int viewportWidth,
    int viewportHeight,
    double devicePixelRatio,
    double scrollX,
    double scrollY,
    String pageId) {

  /** This view, of the full page or of the viewport. */
  public ScreenshotView withFullPage(boolean full) {
    return new ScreenshotView(
        url, full, viewportWidth, viewportHeight, devicePixelRatio, scrollX, scrollY, pageId);
  }

  /** This view, of the tab {@code id}. */
  public ScreenshotView inPage(String id) {
    return new ScreenshotView(
        url, fullPage, viewportWidth, viewportHeight, devicePixelRatio, scrollX, scrollY, id);
  }

  /** What has changed between this view and {@code now}, in words; null when nothing has. */
  public String changeTo(ScreenshotView now) {
    if (pageId != null && now.pageId != null && !pageId.equals(now.pageId)) {
      return "the current tab is now " + now.pageId + ", not " + pageId;
    }
    if (!url.equals(now.url)) {
      return "the page is now " + now.url;
    }
    if (viewportWidth != now.viewportWidth
        || viewportHeight != now.viewportHeight
        || Math.abs(devicePixelRatio - now.devicePixelRatio) > 1e-6) {
      return "the viewport is now "
          + now.viewportWidth
          + "x"
          + now.viewportHeight
          + " at "
          + now.devicePixelRatio
          + "x";
    }
    if (Math.abs(scrollX - now.scrollX) >= 1 || Math.abs(scrollY - now.scrollY) >= 1) {
      return "the page has scrolled to " + Math.round(now.scrollX) + "," + Math.round(now.scrollY);
    }
    return null;
  }
}
