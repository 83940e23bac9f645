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

  /**
   * Saves a file of any type (a download, in quarantine: stored as bytes, never opened) and returns
   * its ref. Since host API 2.3.0; a store that keeps images only refuses it.
   *
   * @throws AttachmentRejectedException when the file is over the store's byte budget, or the store
   *     keeps images only
   */
  default AttachmentRef saveFile(byte[] bytes, String mimeType, AttachmentMetadata metadata) {
    throw new AttachmentRejectedException("attachment refused: this store keeps images only");
  }

  /** Reads an attachment back by its ref. */
  Optional<Attachment> open(String ref);
}
