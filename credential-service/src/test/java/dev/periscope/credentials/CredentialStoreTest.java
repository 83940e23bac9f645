package dev.periscope.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The encrypted store from the attacker's side: nothing readable on disk, and any tampering fails
 * closed.
 */
class CredentialStoreTest {
  private static final String CANARY = "canary-" + Long.toHexString(System.nanoTime()) + "-päss";

  @TempDir Path profile;

  @Test
  void keepsValuesSealedUnderAnOwnerOnlyKey() throws Exception {
    CredentialStore store = new CredentialStore(profile);
    store.put("bank", CANARY.toCharArray());
    store.put("shop", "other".toCharArray());
    assertEquals(CANARY, new CredentialStore(profile).get("bank").orElseThrow().reveal());
    assertEquals(Set.of("bank", "shop"), store.names());
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(profile.resolve("credentials.key"))));
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(profile.resolve("credentials.store"))));
    for (Path file : Files.list(profile).toList()) {
      String raw = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
      assertFalse(raw.contains(CANARY.substring(0, 12)), file + " holds the value");
      assertFalse(
          raw.contains(
              Base64.getEncoder()
                  .encodeToString(CANARY.getBytes(StandardCharsets.UTF_8))
                  .substring(0, 12)),
          file + " holds the value in base64");
    }
    assertTrue(store.remove("bank"));
    assertFalse(store.remove("bank"));
    assertTrue(store.get("bank").isEmpty());
  }

  @Test
  void aTamperedStoreFailsClosed() throws Exception {
    new CredentialStore(profile).put("bank", CANARY.toCharArray());
    Path file = profile.resolve("credentials.store");
    byte[] sealed = Files.readAllBytes(file);
    sealed[sealed.length - 5] ^= 1;
    Files.write(file, sealed);
    var failure =
        assertThrows(
            CredentialStoreException.class, () -> new CredentialStore(profile).get("bank"));
    assertTrue(failure.getMessage().contains("failed its integrity check"), failure.getMessage());
    assertThrows(
        CredentialStoreException.class,
        () -> new CredentialStore(profile).put("x", "y".toCharArray()));
  }

  @Test
  void aStoreUnderAnotherKeyOrAKeyOthersCanReadFailsClosed() throws Exception {
    new CredentialStore(profile).put("bank", CANARY.toCharArray());
    Path key = profile.resolve("credentials.key");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
    var open =
        assertThrows(CredentialStoreException.class, () -> new CredentialStore(profile).names());
    assertTrue(open.getMessage().contains("must be a file of mode 0600"), open.getMessage());
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    Files.write(key, new byte[32]);
    var other =
        assertThrows(CredentialStoreException.class, () -> new CredentialStore(profile).names());
    assertTrue(other.getMessage().contains("failed its integrity check"), other.getMessage());
  }

  @Test
  void refusesBadNamesAndEmptyValues() {
    CredentialStore store = new CredentialStore(profile);
    for (String bad : new String[] {"", "../key", "a b", "x".repeat(65), "-lead"}) {
      assertThrows(CredentialStoreException.class, () -> store.put(bad, "v".toCharArray()), bad);
    }
    assertThrows(CredentialStoreException.class, () -> store.put("bank", new char[0]));
  }
}
