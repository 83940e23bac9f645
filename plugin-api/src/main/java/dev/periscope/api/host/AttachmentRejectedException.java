package dev.periscope.api.host;

/** The attachment store refused an image; the message says why in words a user can act on. */
public class AttachmentRejectedException extends RuntimeException {
  public AttachmentRejectedException(String message) {
    super(message);
  }
}
