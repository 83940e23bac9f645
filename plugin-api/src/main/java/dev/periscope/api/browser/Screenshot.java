package dev.periscope.api.browser;

/**
 * PNG bytes of the page and their pixel size, with the observation the runtime holds for that page.
 */
public record Screenshot(
    byte[] png, int width, int height, String observationId, String url, String title) {}
