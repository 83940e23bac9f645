package dev.periscope.api.host;

/**
 * What the caller knows about an image it saves: a display name and the agent session it belongs
 * to.
 */
public record AttachmentMetadata(String name, String agentSessionId) {}
