package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A download's type comes from its bytes, never from what the site or the name said. */
class FileTypesTest {
  private static byte[] bytes(int... b) {
    byte[] out = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (byte) b[i];
    }
    return out;
  }

  @Test
  void documentsImagesArchivesAndProgramsAreKnownByTheirSignatures() {
    assertEquals(
        "application/pdf", FileTypes.sniff("%PDF-1.7\n".getBytes(StandardCharsets.US_ASCII)));
    assertEquals(
        "image/png", FileTypes.sniff(bytes(0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0)));
    assertEquals("image/jpeg", FileTypes.sniff(bytes(0xFF, 0xD8, 0xFF, 0xE0)));
    assertEquals("application/zip", FileTypes.sniff(bytes('P', 'K', 3, 4, 0)));
    assertEquals("application/gzip", FileTypes.sniff(bytes(0x1F, 0x8B, 8)));
    assertEquals(
        "application/vnd.microsoft.portable-executable", FileTypes.sniff(bytes('M', 'Z', 0x90, 0)));
    assertEquals("application/x-executable", FileTypes.sniff(bytes(0x7F, 'E', 'L', 'F', 2)));
  }

  @Test
  void utf8TextIsTextAndAnythingElseIsOctetStream() {
    assertEquals(
        "text/plain", FileTypes.sniff("id,name\n1,Zoë\n".getBytes(StandardCharsets.UTF_8)));
    // A multi-byte character cut at the 8 KiB mark is still text.
    byte[] long8k = ("a".repeat(8191) + "é").getBytes(StandardCharsets.UTF_8);
    assertEquals("text/plain", FileTypes.sniff(long8k));
    assertEquals("application/octet-stream", FileTypes.sniff(bytes(0, 1, 2, 3)));
    assertEquals("application/octet-stream", FileTypes.sniff(bytes(0xC3, 0x28)));
    assertEquals("application/octet-stream", FileTypes.sniff(new byte[0]));
  }
}
