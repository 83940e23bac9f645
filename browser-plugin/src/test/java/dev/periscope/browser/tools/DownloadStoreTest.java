package dev.periscope.browser.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.browser.spi.DownloadedFile;
import dev.periscope.api.host.Attachment;
import dev.periscope.api.host.AttachmentMetadata;
import dev.periscope.api.host.AttachmentRef;
import dev.periscope.api.host.AttachmentService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What becomes of an action's downloaded files when the host's attachment store cannot keep one.
 */
class DownloadStoreTest {
  private static DownloadedFile file(String name, int bytes) {
    return new DownloadedFile(name, "text/csv", "00" + name, new byte[bytes]);
  }

  /** A store whose disk fills up after its first file. */
  private static final class FillingUp implements AttachmentService {
    final MemoryAttachments kept = new MemoryAttachments();
    int calls;

    @Override
    public AttachmentRef saveImage(byte[] bytes, String mimeType, AttachmentMetadata metadata) {
      return saveFile(bytes, mimeType, metadata);
    }

    @Override
    public AttachmentRef saveFile(byte[] bytes, String mimeType, AttachmentMetadata metadata) {
      if (++calls > 1) {
        throw new UncheckedIOException(new IOException("No space left on device"));
      }
      return kept.saveFile(bytes, mimeType, metadata);
    }

    @Override
    public Optional<Attachment> open(String ref) {
      return kept.open(ref);
    }

    @Override
    public boolean delete(String ref) {
      return kept.delete(ref);
    }
  }

  @Test
  void aStoreThatFailsCostsTheFileNotTheActionAndNotTheBudget() {
    FillingUp attachments = new FillingUp();
    DownloadStore store =
        new DownloadStore(new ToolSettings.Downloads(true, 1_000), Optional.of(attachments));
    List<DownloadStore.Stored> stored =
        store.store("agent", List.of(file("a.csv", 400), file("b.csv", 400)));
    assertEquals(2, stored.size());
    assertTrue(stored.get(0).line().contains("as attachment attachment-"), stored.get(0).line());
    String refused = stored.get(1).line();
    assertTrue(
        refused.contains(
            "\"b.csv\" (text/csv, 400 bytes, sha256 00b.csv), not kept: the host's attachment"
                + " store failed to keep it (UncheckedIOException: java.io.IOException: No space"
                + " left on device)"),
        refused);
    assertFalse(stored.get(1).json().containsKey("attachment"), stored.get(1).json().toString());
    assertEquals(1, attachments.kept.size());
    // The failed file spent nothing: 400 + 500 bytes fit the budget of 1,000.
    List<DownloadStore.Stored> later = store.store("agent", List.of(file("c.csv", 500)));
    assertEquals(
        "the host's attachment store failed to keep it (UncheckedIOException:"
            + " java.io.IOException: No space left on device)",
        later.get(0).json().get("refused"));
  }
}
