package dev.periscope.api.browser;

/** A saved state: the provider and provider build that wrote it, and the provider's opaque ref to its payload. */
public record CheckpointRef(String providerId, String providerVersion, String ref) {}
