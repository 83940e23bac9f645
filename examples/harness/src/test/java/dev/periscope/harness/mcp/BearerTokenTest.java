package dev.periscope.harness.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.harness.HarnessException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BearerTokenTest {
  @TempDir Path dir;

  @Test
  void aGeneratedTokenIsTheOwnersAloneAndStaysTheSame() throws Exception {
    Path file = dir.resolve(BearerToken.FILE);
    BearerToken first = BearerToken.load(file, true);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    String token = Files.readString(file).strip();
    assertTrue(token.length() >= 43, token.length() + " characters");
    assertTrue(first.admits("Bearer " + token));
    assertTrue(BearerToken.load(file, true).admits("bearer " + token), "read again, not replaced");
  }

  @Test
  void onlyTheWholeTokenAsABearerTokenIsAdmitted() throws Exception {
    Path file = dir.resolve(BearerToken.FILE);
    BearerToken t = BearerToken.load(file, true);
    String token = Files.readString(file).strip();
    assertFalse(t.admits(null));
    assertFalse(t.admits(""));
    assertFalse(t.admits(token));
    assertFalse(t.admits("Basic " + token));
    assertFalse(t.admits("Bearer " + token.substring(1)));
    assertFalse(t.admits("Bearer " + token + "x"));
    assertFalse(t.admits("Bearer " + token.toUpperCase(java.util.Locale.ROOT)));
  }

  @Test
  void aTokenFileOthersCanReadIsRefusedWithTheFix() throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "t".repeat(40));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    HarnessException e = assertThrows(HarnessException.class, () -> BearerToken.load(file, false));
    assertTrue(e.getMessage().contains("chmod 600 " + file), e.getMessage());
  }

  @Test
  void aShortTokenASymbolicLinkOrNoFileIsRefused() throws Exception {
    Path shortOne = Files.writeString(dir.resolve("short"), "abc");
    Files.setPosixFilePermissions(shortOne, PosixFilePermissions.fromString("rw-------"));
    assertTrue(
        assertThrows(HarnessException.class, () -> BearerToken.load(shortOne, false))
            .getMessage()
            .contains("at least 32"));
    Path spaced = Files.writeString(dir.resolve("spaced"), "a b ".repeat(12));
    Files.setPosixFilePermissions(spaced, PosixFilePermissions.fromString("rw-------"));
    assertThrows(HarnessException.class, () -> BearerToken.load(spaced, false));
    Path target = Files.writeString(dir.resolve("target"), "t".repeat(40));
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), target);
    assertTrue(
        assertThrows(HarnessException.class, () -> BearerToken.load(link, false))
            .getMessage()
            .contains("symbolic link"));
    assertThrows(HarnessException.class, () -> BearerToken.load(dir.resolve("none"), false));
  }
}
