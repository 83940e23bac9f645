package dev.periscope.api.browser.spi;

/**
 * A file the page downloaded in answer to an action, held in quarantine: its suggested {@code
 * name}, its {@code mimeType} as sniffed from its bytes (never from what the site said), its {@code
 * sha256} (hex) and its bytes. Never opened or run: the tool layer stores it in the host's
 * attachment store and hands the model its ref.
 */
public record DownloadedFile(String name, String mimeType, String sha256, byte[] content) {
  @Override
  public String toString() {
    return "DownloadedFile[" + name + ", " + mimeType + ", " + content.length + " bytes]";
  }
}
