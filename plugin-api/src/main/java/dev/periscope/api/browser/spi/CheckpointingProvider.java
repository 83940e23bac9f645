package dev.periscope.api.browser.spi;

import dev.periscope.api.Cancellation;

/**
 * A provider that can save an environment's state and open a new environment from it. A provider
 * that advertises {@link Capability#CHECKPOINT} must implement this, and every environment it opens
 * must be a {@link CheckpointingEnvironment}; the runtime rejects it otherwise.
 *
 * <p>Threading: thread-safe, as {@link BrowserProvider}; restoring and destroying different
 * checkpoints may run at once.
 */
public interface CheckpointingProvider extends BrowserProvider {
  /** Opens an environment from a checkpoint this provider wrote. */
  BrowserEnvironment restore(
      OpenRequest request, CheckpointRef checkpoint, Cancellation cancellation);

  /** Deletes a checkpoint's payload; a payload already gone is not an error. */
  void destroyCheckpoint(CheckpointRef checkpoint);
}
