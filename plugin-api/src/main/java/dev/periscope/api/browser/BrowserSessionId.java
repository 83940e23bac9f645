package dev.periscope.api.browser;

import java.util.Objects;
import java.util.UUID;

/**
 * The durable identity of one browser session: what a checkpoint belongs to and what survives a
 * host restart. The host's agent session maps to one of these.
 */
public record BrowserSessionId(String value) {
  public BrowserSessionId {
    Objects.requireNonNull(value, "value");
    if (value.isBlank()) {
      throw new IllegalArgumentException("browser session id is blank");
    }
  }

  public static BrowserSessionId random() {
    return new BrowserSessionId("session-" + UUID.randomUUID());
  }

  @Override
  public String toString() {
    return value;
  }
}
