package dev.periscope.api.host;

import java.time.Instant;

/** An attachment read back from the store. */
public record Attachment(
    String ref,
    String mimeType,
    long bytes,
    int width,
    int height,
    Instant created,
    String agentSessionId,
    byte[] content) {}
