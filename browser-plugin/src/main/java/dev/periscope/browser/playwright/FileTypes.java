package dev.periscope.browser.playwright;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A downloaded file's type, read from its first bytes, never from what the site or its name said:
 * the common document, image and archive signatures, programs (which are kept as bytes like any
 * other file, and named for what they are), UTF-8 text, else {@code application/octet-stream}.
 */
final class FileTypes {
  private FileTypes() {}

  static String sniff(byte[] b) {
    if (starts(b, "%PDF-")) {
      return "application/pdf";
    }
    if (starts(b, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)) {
      return "image/png";
    }
    if (starts(b, 0xFF, 0xD8, 0xFF)) {
      return "image/jpeg";
    }
    if (starts(b, "GIF87a") || starts(b, "GIF89a")) {
      return "image/gif";
    }
    if (starts(b, "RIFF")
        && b.length >= 12
        && new String(b, 8, 4, StandardCharsets.US_ASCII).equals("WEBP")) {
      return "image/webp";
    }
    if (starts(b, 'P', 'K', 0x03, 0x04) || starts(b, 'P', 'K', 0x05, 0x06)) {
      return "application/zip";
    }
    if (starts(b, 0x1F, 0x8B)) {
      return "application/gzip";
    }
    if (starts(b, 'M', 'Z')) {
      return "application/vnd.microsoft.portable-executable";
    }
    if (starts(b, 0x7F, 'E', 'L', 'F')) {
      return "application/x-executable";
    }
    if (text(b)) {
      return "text/plain";
    }
    return "application/octet-stream";
  }

  /** UTF-8 without NUL or other control characters than whitespace, in its first 8 KiB. */
  private static boolean text(byte[] b) {
    int n = Math.min(b.length, 8192);
    if (n == 0) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      int c = b[i] & 0xFF;
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f') {
        return false;
      }
    }
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b, 0, trimmed(b, n)));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  /** {@code n}, less a UTF-8 sequence the cut at {@code n} splits. */
  private static int trimmed(byte[] b, int n) {
    if (n == b.length) {
      return n;
    }
    int i = n;
    while (i > 0 && i > n - 4 && (b[i - 1] & 0xC0) == 0x80) {
      i--;
    }
    return i > 0 && (b[i - 1] & 0xC0) == 0xC0 ? i - 1 : n;
  }

  private static boolean starts(byte[] b, String ascii) {
    return starts(b, ascii.chars().toArray());
  }

  private static boolean starts(byte[] b, int... signature) {
    if (b.length < signature.length) {
      return false;
    }
    for (int i = 0; i < signature.length; i++) {
      if ((b[i] & 0xFF) != signature[i]) {
        return false;
      }
    }
    return true;
  }
}
