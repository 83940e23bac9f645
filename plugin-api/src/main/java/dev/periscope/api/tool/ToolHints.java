package dev.periscope.api.tool;

/**
 * Hints for the model and the host's scheduler: whether a tool only reads, may destroy something,
 * can be repeated with the same effect, and reaches outside the host (the web, for a browser).
 */
public record ToolHints(
    boolean readOnly, boolean destructive, boolean idempotent, boolean openWorld) {}
