package dev.periscope.api.browser;

/**
 * PNG bytes of the page and their pixel size, with the observation the runtime holds for that page,
 * and where its pixels lie on the page ({@code view}; null from a provider that does not say, since
 * host API 2.5.0).
 */
public record Screenshot(
    byte[] png,
    int width,
    int height,
    String observationId,
    String url,
    String title,
    ScreenshotView view) {

  /** A screenshot that does not say where its pixels lie (host API 2.4.0's). */
  public Screenshot(
      byte[] png, int width, int height, String observationId, String url, String title) {
    this(png, width, height, observationId, url, title, null);
  }
}
