package dev.periscope.api.browser.spi;

/**
 * A saved state: the provider and provider build that wrote it, and the provider's opaque ref to
 * its payload. Immutable and thread-safe.
 */
public record CheckpointRef(String providerId, String providerVersion, String ref) {}
