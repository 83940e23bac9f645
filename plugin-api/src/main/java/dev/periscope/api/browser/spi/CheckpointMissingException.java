package dev.periscope.api.browser.spi;

/**
 * Thrown by {@link CheckpointingProvider#restore} when the checkpoint's payload no longer exists
 * (someone cleared it). The runtime then drops the index entry and opens a fresh environment; any
 * other restore failure surfaces.
 */
public class CheckpointMissingException extends RuntimeException {
  public CheckpointMissingException(String message) {
    super(message);
  }
}
