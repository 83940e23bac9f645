package dev.periscope.browser.playwright;

import dev.periscope.api.browser.spi.CheckpointRef;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * One environment's checkpoints: its storage states written as payloads, with the payload it last
 * wrote or was restored from and the digest of that state, so an unchanged state is not written
 * again.
 */
final class StateCheckpoints {
  private final CheckpointFiles files;
  private final String providerId;
  private final String version;
  private String lastRef;
  private String lastDigest;

  StateCheckpoints(
      CheckpointFiles files,
      String providerId,
      String version,
      String restoredFrom,
      String restoredState) {
    this.files = files;
    this.providerId = providerId;
    this.version = version;
    this.lastRef = restoredFrom;
    this.lastDigest = restoredState == null ? null : digest(restoredState);
  }

  /** Writes the state as a new payload. */
  synchronized CheckpointRef write(String state) {
    String name = files.write(state.getBytes(StandardCharsets.UTF_8));
    lastRef = name;
    lastDigest = digest(state);
    return new CheckpointRef(providerId, version, name);
  }

  /** Writes the state unless it is what {@code current}, the indexed checkpoint, already holds. */
  synchronized Optional<CheckpointRef> writeIfChanged(
      String state, Optional<CheckpointRef> current) {
    if (current.isPresent()
        && current.get().ref().equals(lastRef)
        && digest(state).equals(lastDigest)) {
      return Optional.empty();
    }
    return Optional.of(write(state));
  }

  /**
   * Whether {@code current}, the indexed checkpoint, is the payload this environment last wrote.
   */
  synchronized boolean holds(Optional<CheckpointRef> current) {
    return current.isPresent() && current.get().ref().equals(lastRef);
  }

  static String digest(String state) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(state.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
