package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.CheckpointMissingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint payload files: owner-only, atomic, never through a symbolic link, never outside their
 * directory.
 */
class CheckpointFilesTest {
  @TempDir Path dir;

  @Test
  void writesOwnerOnlyPayloadsWithOpaqueNamesAndReadsThemBack() throws Exception {
    CheckpointFiles files = new CheckpointFiles(dir.resolve("checkpoints"));
    byte[] state = "{\"cookies\":[]}".getBytes(StandardCharsets.UTF_8);
    String name = files.write(state);
    assertTrue(name.matches("[0-9a-f]{32}\\.json"), name);
    Path payload = dir.resolve("checkpoints").resolve(name);
    assertEquals(
        "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(payload)));
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("checkpoints"))));
    assertArrayEquals(state, files.read(name));
    try (var left = Files.list(dir.resolve("checkpoints"))) {
      assertEquals(List.of(payload), left.toList(), "a partial file was left next to the payload");
    }
    files.delete(name);
    files.delete(name);
    assertThrows(CheckpointMissingException.class, () -> files.read(name));
  }

  @Test
  void refusesACheckpointDirectoryThatIsASymbolicLink() throws Exception {
    Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
    Files.createSymbolicLink(dir.resolve("checkpoints"), elsewhere);
    CheckpointFiles files = new CheckpointFiles(dir.resolve("checkpoints"));
    var failure = assertThrows(BrowserException.class, () -> files.write(new byte[] {1}));
    assertEquals(ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE, failure.code());
    assertTrue(failure.getMessage().contains("is a symbolic link"), failure.getMessage());
    try (var inside = Files.list(elsewhere)) {
      assertEquals(0, inside.count(), "a payload went through the link");
    }
  }

  @Test
  void makesAnExistingDirectoryOwnerOnly() throws Exception {
    Path open = Files.createDirectory(dir.resolve("checkpoints"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
    new CheckpointFiles(open).write(new byte[] {1});
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(open)));
  }

  @Test
  void acceptsOnlyNamesItMadeSoARefCannotLeaveTheDirectory() throws Exception {
    Files.writeString(dir.resolve("secret.json"), "{}");
    CheckpointFiles files = new CheckpointFiles(dir.resolve("checkpoints"));
    for (String hostile :
        List.of("../secret.json", "/etc/passwd", "a.json", "", "0".repeat(32) + ".json/../x")) {
      var failure = assertThrows(BrowserException.class, () -> files.read(hostile), hostile);
      assertEquals(ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE, failure.code());
      assertThrows(BrowserException.class, () -> files.delete(hostile), hostile);
    }
    assertTrue(Files.exists(dir.resolve("secret.json")));
  }

  @Test
  void removesPartialPayloadsAKilledHostLeftAnHourAgo() throws Exception {
    Path checkpoints = Files.createDirectory(dir.resolve("checkpoints"));
    Path old = Files.writeString(checkpoints.resolve(".writing-1.tmp"), "{");
    Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
    Path recent = Files.writeString(checkpoints.resolve(".writing-2.tmp"), "{");
    new CheckpointFiles(checkpoints).sweepPartial();
    assertFalse(Files.exists(old));
    assertTrue(Files.exists(recent), "a payload being written right now must stay");
  }
}
