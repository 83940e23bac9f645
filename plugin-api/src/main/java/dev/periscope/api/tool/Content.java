package dev.periscope.api.tool;

/** One block of a tool result, in order: text, an inline image, or a ref to a stored attachment. */
public sealed interface Content {
  record Text(String text) implements Content {}

  /** An image returned inline, as bytes of the given MIME type. */
  record Image(String mimeType, byte[] data) implements Content {}

  /** A ref to an image the host's attachment store holds. The ref is opaque: never a file path. */
  record AttachmentLink(String ref, String mimeType) implements Content {}
}
