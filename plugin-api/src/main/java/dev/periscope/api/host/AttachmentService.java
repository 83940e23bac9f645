package dev.periscope.api.host;

import java.util.Optional;

/**
 * The host's durable store for images a tool produces. A saved image gets an opaque ref; tool
 * results carry the ref, never a file path.
 */
public interface AttachmentService {
  /**
   * Saves an image and returns its ref.
   *
   * @throws AttachmentRejectedException when the image is over the store's byte budget or not an
   *     image
   */
  AttachmentRef saveImage(byte[] bytes, String mimeType, AttachmentMetadata metadata);

  /** Reads an attachment back by its ref. */
  Optional<Attachment> open(String ref);
}
