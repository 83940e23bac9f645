package dev.periscope.api.host;

/**
 * One schema step of a storage domain: the version it brings the schema to, and its SQL statements.
 */
public record Migration(int version, String sql) {}
