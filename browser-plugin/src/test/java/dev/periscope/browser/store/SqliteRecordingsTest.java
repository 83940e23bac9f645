package dev.periscope.browser.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.browser.runtime.RecordingStore;
import dev.periscope.browser.tools.MemoryAttachments;
import dev.periscope.storage.SqliteStorageDomains;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recording's store on a real SQLite file, when writing a frame fails. */
class SqliteRecordingsTest {
  @TempDir Path dir;

  private static RecordingStore.Frame frame(byte[] image) {
    return new RecordingStore.Frame(
        new BrowserSessionId("session-1"),
        "transition-1",
        Instant.now(),
        1,
        "{\"kind\":\"click\"}",
        "succeeded",
        null,
        12,
        "https://example.test/",
        "Example",
        "text",
        List.of(),
        List.of(),
        image);
  }

  @Test
  void aFrameWhoseRowCannotBeWrittenLeavesNoImageBehind() {
    MemoryAttachments attachments = new MemoryAttachments();
    RuntimeDatabase database = new RuntimeDatabase(new SqliteStorageDomains(dir));
    SqliteRecordings recordings = new SqliteRecordings(database, Optional.of(attachments));
    recordings.add(frame(new byte[] {1, 2, 3}), 1_000_000);
    assertEquals(1, attachments.size());
    database.close();
    assertThrows(
        IllegalStateException.class, () -> recordings.add(frame(new byte[] {4, 5, 6}), 1_000_000));
    assertEquals(1, attachments.size(), "the image of the frame that was not written is kept");
  }
}
