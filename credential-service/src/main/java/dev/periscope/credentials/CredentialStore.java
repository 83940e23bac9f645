package dev.periscope.credentials;

import dev.periscope.api.host.Secret;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A profile's encrypted credential store: {@code credentials.store}, sealed with AES-256-GCM under
 * the key in {@code credentials.key} (32 random bytes, mode 0600, made on first use). Every write
 * seals the whole store anew with a fresh nonce and replaces the file atomically. A store that
 * fails authentication (tampered with, or sealed under another key), or a key file others can read,
 * fails closed: nothing is read from it.
 */
public final class CredentialStore {
  private static final Pattern NAME = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$");
  private static final byte[] MAGIC =
      "periscope-credentials-1\n".getBytes(StandardCharsets.US_ASCII);
  private static final int NONCE_BYTES = 12;
  private static final Set<PosixFilePermission> OWNER_READ_WRITE =
      PosixFilePermissions.fromString("rw-------");

  private final Path keyFile;
  private final Path storeFile;
  private final SecureRandom random = new SecureRandom();

  public CredentialStore(Path profileDir) {
    this.keyFile = profileDir.resolve("credentials.key");
    this.storeFile = profileDir.resolve("credentials.store");
  }

  /** The names in the store, never their values. */
  public synchronized Set<String> names() {
    return read().keySet();
  }

  public synchronized Optional<Secret> get(String name) {
    byte[] value = read().get(name);
    if (value == null || value.length == 0) {
      return Optional.empty();
    }
    CharBuffer chars = StandardCharsets.UTF_8.decode(ByteBuffer.wrap(value));
    char[] copy = Arrays.copyOf(chars.array(), chars.limit());
    try {
      return Optional.of(Secret.of(copy));
    } finally {
      Arrays.fill(copy, '\0');
      Arrays.fill(chars.array(), '\0');
      Arrays.fill(value, (byte) 0);
    }
  }

  /** Stores a value under a name, replacing any value it had. */
  public synchronized void put(String name, char[] value) {
    checkName(name);
    if (value.length == 0) {
      throw new CredentialStoreException("an empty value cannot be stored for \"" + name + "\"");
    }
    Map<String, byte[]> entries = read();
    ByteBuffer bytes = StandardCharsets.UTF_8.encode(CharBuffer.wrap(value));
    byte[] encoded = Arrays.copyOf(bytes.array(), bytes.limit());
    Arrays.fill(bytes.array(), (byte) 0);
    entries.put(name, encoded);
    write(entries);
  }

  /** Removes a name; false when it was not there. */
  public synchronized boolean remove(String name) {
    Map<String, byte[]> entries = read();
    if (entries.remove(name) == null) {
      return false;
    }
    write(entries);
    return true;
  }

  public static void checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new CredentialStoreException(
          "\""
              + name
              + "\" is not a credential name: letters, digits, '_', '.'"
              + " and '-', starting with a letter or digit, at most 64");
    }
  }

  private Map<String, byte[]> read() {
    Map<String, byte[]> entries = new TreeMap<>();
    if (!Files.exists(storeFile, LinkOption.NOFOLLOW_LINKS)) {
      return entries;
    }
    byte[] sealed;
    try {
      sealed = Files.readAllBytes(storeFile);
    } catch (IOException e) {
      throw new CredentialStoreException(
          "the credential store " + storeFile + " cannot be read: " + e.getMessage());
    }
    if (sealed.length < MAGIC.length + NONCE_BYTES
        || !Arrays.equals(Arrays.copyOf(sealed, MAGIC.length), MAGIC)) {
      throw tampered();
    }
    byte[] plain;
    try {
      Cipher cipher =
          cipher(
              Cipher.DECRYPT_MODE,
              Arrays.copyOfRange(sealed, MAGIC.length, MAGIC.length + NONCE_BYTES),
              key(false));
      plain =
          cipher.doFinal(
              sealed, MAGIC.length + NONCE_BYTES, sealed.length - MAGIC.length - NONCE_BYTES);
    } catch (AEADBadTagException e) {
      throw tampered();
    } catch (GeneralSecurityException e) {
      throw new CredentialStoreException(
          "the credential store " + storeFile + " cannot be opened: " + e.getMessage());
    }
    try {
      for (String line : new String(plain, StandardCharsets.UTF_8).split("\n")) {
        if (line.isEmpty()) {
          continue;
        }
        int tab = line.indexOf('\t');
        if (tab <= 0) {
          throw tampered();
        }
        entries.put(line.substring(0, tab), Base64.getDecoder().decode(line.substring(tab + 1)));
      }
    } catch (IllegalArgumentException e) {
      throw tampered();
    } finally {
      Arrays.fill(plain, (byte) 0);
    }
    return entries;
  }

  private void write(Map<String, byte[]> entries) {
    StringBuilder plain = new StringBuilder();
    entries.forEach(
        (name, value) ->
            plain
                .append(name)
                .append('\t')
                .append(Base64.getEncoder().encodeToString(value))
                .append('\n'));
    byte[] plainBytes = plain.toString().getBytes(StandardCharsets.UTF_8);
    plain.setLength(0);
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    try {
      byte[] sealed = cipher(Cipher.ENCRYPT_MODE, nonce, key(true)).doFinal(plainBytes);
      ByteBuffer out = ByteBuffer.allocate(MAGIC.length + NONCE_BYTES + sealed.length);
      out.put(MAGIC).put(nonce).put(sealed);
      Path partial =
          Files.createTempFile(
              storeFile.getParent(),
              ".credentials-",
              ".tmp",
              PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE));
      try {
        Files.write(partial, out.array());
        Files.move(
            partial,
            storeFile,
            StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(partial);
      }
    } catch (GeneralSecurityException | IOException e) {
      throw new CredentialStoreException(
          "the credential store " + storeFile + " cannot be written: " + e.getMessage());
    } finally {
      Arrays.fill(plainBytes, (byte) 0);
    }
  }

  private Cipher cipher(int mode, byte[] nonce, byte[] key) throws GeneralSecurityException {
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    try {
      cipher.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
      cipher.updateAAD(MAGIC);
      return cipher;
    } finally {
      Arrays.fill(key, (byte) 0);
    }
  }

  /**
   * The key, made (mode 0600) when {@code create} and there is none; a key others can read is
   * refused.
   */
  private byte[] key(boolean create) {
    try {
      if (!Files.exists(keyFile, LinkOption.NOFOLLOW_LINKS)) {
        if (!create) {
          throw new CredentialStoreException(
              "the credential store "
                  + storeFile
                  + " has no key ("
                  + keyFile
                  + " is missing); it cannot be opened");
        }
        byte[] key = new byte[32];
        random.nextBytes(key);
        Files.createDirectories(keyFile.getParent());
        Files.write(
            Files.createFile(keyFile, PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE)), key);
        return key;
      }
      if (Files.isSymbolicLink(keyFile)
          || !Files.getPosixFilePermissions(keyFile, LinkOption.NOFOLLOW_LINKS)
              .equals(OWNER_READ_WRITE)) {
        throw new CredentialStoreException(
            "the credential key "
                + keyFile
                + " must be a file of mode 0600 (rw-------);"
                + " it is not, so the store was not used");
      }
      byte[] key = Files.readAllBytes(keyFile);
      if (key.length != 32) {
        throw new CredentialStoreException(
            "the credential key " + keyFile + " is not 32 bytes; the store was not used");
      }
      return key;
    } catch (IOException e) {
      throw new CredentialStoreException(
          "the credential key " + keyFile + " cannot be read: " + e.getMessage());
    }
  }

  private CredentialStoreException tampered() {
    return new CredentialStoreException(
        "the credential store "
            + storeFile
            + " failed its integrity check (it was"
            + " changed, or sealed under another key); it was not used. Remove it and set the credentials again.");
  }
}
