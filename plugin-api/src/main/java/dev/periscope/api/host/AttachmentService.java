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

  /**
   * Deletes an attachment by its ref; returns whether there was one. A session's recording deletes
   * its frames with it. Since host API 2.12.0; a store that cannot delete keeps it and says false.
   */
  default boolean delete(String ref) {
    return false;
  }

  /** Reads an attachment back by its ref. */
  Optional<Attachment> open(String ref);
}
