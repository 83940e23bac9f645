package dev.periscope.api.host;

/**
 * What is asked: the tool, the credential reference (never its value), the page origin and the
 * accessible name of the field that would receive it, and a sentence for a human.
 */
public record ApprovalRequest(
    String toolName, String credentialRef, String origin, String fieldName, String reason) {}
