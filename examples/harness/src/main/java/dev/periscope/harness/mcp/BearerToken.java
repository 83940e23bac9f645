package dev.periscope.harness.mcp;

import dev.periscope.harness.HarnessException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Set;

/**
 * The secret every HTTP request shows as {@code Authorization: Bearer TOKEN}. It lives in a file
 * only its owner can read (mode 0600): generated into the profile on the first start, or a file the
 * operator names. It is compared in constant time and never printed or logged; the server says only
 * where the file is.
 */
final class BearerToken {
  /** The file, in a profile's directory, of the token generated there. */
  static final String FILE = "mcp-http.token";

  /** A token given in a file of one's own is at least this long. */
  static final int MIN_LENGTH = 32;

  private static final Set<PosixFilePermission> OTHERS =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE);

  private final byte[] expected;
  private final Path file;

  private BearerToken(byte[] expected, Path file) {
    this.expected = expected;
    this.file = file;
  }

  /**
   * The token in {@code file}; with {@code generate}, a new one is written there first when there
   * is none.
   */
  static BearerToken load(Path file, boolean generate) {
    if (generate && !Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] random = new byte[32];
      new SecureRandom().nextBytes(random);
      String token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
      try {
        Files.write(
            Files.createFile(
                file,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
            (token + "\n").getBytes(StandardCharsets.US_ASCII));
      } catch (FileAlreadyExistsException raced) {
        // another server of this profile wrote it first: read theirs
      } catch (IOException e) {
        throw new HarnessException("cannot write the token file " + file + ": " + e.getMessage());
      }
    }
    String token;
    try {
      if (Files.isSymbolicLink(file)) {
        throw new HarnessException("the token file " + file + " is a symbolic link; name the file");
      }
      Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
      mode.retainAll(OTHERS);
      if (!mode.isEmpty()) {
        throw new HarnessException(
            "the token file "
                + file
                + " can be read or written by others ("
                + PosixFilePermissions.toString(Files.getPosixFilePermissions(file))
                + "); make it the owner's alone: chmod 600 "
                + file);
      }
      token = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (NoSuchFileException e) {
      throw new HarnessException("the token file " + file + " does not exist");
    } catch (IOException e) {
      throw new HarnessException("cannot read the token file " + file + ": " + e.getMessage());
    }
    if (token.length() < MIN_LENGTH || !token.chars().allMatch(c -> c > ' ' && c < 127)) {
      throw new HarnessException(
          "the token in "
              + file
              + " must be at least "
              + MIN_LENGTH
              + " printable ASCII characters, without spaces");
    }
    return new BearerToken(token.getBytes(StandardCharsets.US_ASCII), file);
  }

  /** Where the token is, to tell the operator. */
  Path file() {
    return file;
  }

  /** Whether an {@code Authorization} header value carries this token. */
  boolean admits(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] given = authorization.substring(7).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(expected, given);
  }
}
