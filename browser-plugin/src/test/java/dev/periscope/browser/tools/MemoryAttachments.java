package dev.periscope.browser.tools;

import dev.periscope.api.host.Attachment;
import dev.periscope.api.host.AttachmentMetadata;
import dev.periscope.api.host.AttachmentRef;
import dev.periscope.api.host.AttachmentService;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/** An attachment store in memory, for tests: files of any type, each under a fresh ref. */
public final class MemoryAttachments implements AttachmentService {
  private final Map<String, Attachment> stored = new ConcurrentHashMap<>();

  @Override
  public AttachmentRef saveImage(byte[] bytes, String mimeType, AttachmentMetadata metadata) {
    return saveFile(bytes, mimeType, metadata);
  }

  @Override
  public AttachmentRef saveFile(byte[] bytes, String mimeType, AttachmentMetadata metadata) {
    String ref = "attachment-" + UUID.randomUUID();
    stored.put(
        ref,
        new Attachment(
            ref,
            mimeType,
            bytes.length,
            0,
            0,
            Instant.now(),
            metadata.agentSessionId(),
            bytes.clone()));
    return new AttachmentRef(ref, mimeType, bytes.length, 0, 0);
  }

  @Override
  public Optional<Attachment> open(String ref) {
    return Optional.ofNullable(stored.get(ref));
  }

  @Override
  public boolean delete(String ref) {
    return stored.remove(ref) != null;
  }

  /** How many attachments are stored. */
  public int size() {
    return stored.size();
  }
}
