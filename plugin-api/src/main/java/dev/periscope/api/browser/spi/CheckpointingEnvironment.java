package dev.periscope.api.browser.spi;

import java.util.Optional;

/**
 * An environment whose state (cookies, local storage) can be saved as a checkpoint.
 *
 * <p>Threading: as {@link BrowserEnvironment}: called from the runtime's queue for the environment,
 * one operation at a time.
 */
public interface CheckpointingEnvironment extends BrowserEnvironment {
  /** Writes the state as a new payload and returns its ref. */
  CheckpointRef checkpoint();

  /**
   * Writes a new payload only when the state differs from what {@code current} (the session's
   * indexed checkpoint, if any) holds; empty when nothing changed. The default always writes.
   */
  default Optional<CheckpointRef> checkpointIfChanged(Optional<CheckpointRef> current) {
    return Optional.of(checkpoint());
  }
}
