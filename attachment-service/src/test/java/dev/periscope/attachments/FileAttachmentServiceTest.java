package dev.periscope.attachments;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.host.AttachmentMetadata;
import dev.periscope.api.host.AttachmentRejectedException;
import dev.periscope.storage.SqliteStorageDomains;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileAttachmentServiceTest {
  @TempDir Path home;
  private SqliteStorageDomains storage;
  private FileAttachmentService store;

  @BeforeEach
  void open() {
    storage = new SqliteStorageDomains(home.resolve("data"));
    store =
        new FileAttachmentService(
            home.resolve("attachments"),
            storage.open("attachments", FileAttachmentService.MIGRATIONS),
            10_000);
  }

  @AfterEach
  void close() {
    storage.close();
  }

  @Test
  void storesAnImageAsAnOwnerOnlyFileNamedByItsDigestAndReadsItBackByRef() throws Exception {
    byte[] png = png(40, 30);
    var ref = store.saveImage(png, "image/png", new AttachmentMetadata("shot.png", "agent-1"));
    assertEquals(40, ref.width());
    assertEquals(30, ref.height());
    assertTrue(ref.ref().startsWith("attachment-"));
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(png));
    Path file = home.resolve("attachments").resolve(sha + ".png");
    assertTrue(Files.exists(file));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    var back = store.open(ref.ref()).orElseThrow();
    assertArrayEquals(png, back.content());
    assertEquals("agent-1", back.agentSessionId());
    assertEquals(png.length, back.bytes());
  }

  @Test
  void givesTheSameImageSavedTwiceTwoRefsAndOneFile() throws Exception {
    byte[] png = png(10, 10);
    var a = store.saveImage(png, "image/png", null);
    var b = store.saveImage(png, "image/png", null);
    assertNotEquals(a.ref(), b.ref());
    try (var files = Files.list(home.resolve("attachments"))) {
      assertEquals(1, files.count());
    }
  }

  @Test
  void deletesARefAndItsFileOnceNoOtherRefHoldsTheSameBytes() throws Exception {
    byte[] png = png(12, 12);
    var a = store.saveImage(png, "image/png", null);
    var b = store.saveImage(png, "image/png", null);
    assertTrue(store.delete(a.ref()));
    assertTrue(store.open(a.ref()).isEmpty());
    assertArrayEquals(png, store.open(b.ref()).orElseThrow().content(), "the other ref keeps it");
    assertTrue(store.delete(b.ref()));
    try (var files = Files.list(home.resolve("attachments"))) {
      assertEquals(0, files.count(), "the file went with its last ref");
    }
    assertFalse(store.delete(b.ref()), "an unknown ref: nothing to delete");
  }

  @Test
  void refusesAnImageOverItsByteBudgetNamingTheBudget() throws Exception {
    byte[] big = png(400, 400, true);
    assertTrue(big.length > 10_000);
    var e =
        assertThrows(
            AttachmentRejectedException.class, () -> store.saveImage(big, "image/png", null));
    assertTrue(e.getMessage().contains("over this store's budget of 10000 bytes"), e.getMessage());
  }

  @Test
  void refusesBytesThatAreNotAnImage() {
    var e =
        assertThrows(
            AttachmentRejectedException.class,
            () -> store.saveImage("hello".getBytes(), "image/png", null));
    assertTrue(e.getMessage().contains("not a decodable"), e.getMessage());
    assertThrows(
        AttachmentRejectedException.class,
        () -> store.saveImage(new byte[] {1}, "text/html", null));
  }

  @Test
  void findsNothingForAnUnknownRef() {
    assertTrue(store.open("attachment-nope").isEmpty());
  }

  private static byte[] png(int w, int h) throws Exception {
    return png(w, h, false);
  }

  private static byte[] png(int w, int h, boolean noisy) throws Exception {
    BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    java.util.Random random = new java.util.Random(1);
    for (int x = 0; x < w; x++) {
      for (int y = 0; y < h; y++) {
        image.setRGB(x, y, noisy ? random.nextInt() : 0x3366cc);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ImageIO.write(image, "png", out);
    return out.toByteArray();
  }
}
