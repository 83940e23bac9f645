package dev.periscope.api.host;

/** A saved attachment: its opaque ref and what a model may know about it. */
public record AttachmentRef(String ref, String mimeType, long bytes, int width, int height) {}
