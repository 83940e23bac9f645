package dev.periscope.api.host;

/** The answer to an {@link ApprovalRequest}: allow this one operation, or deny it. */
public enum ApprovalDecision {
  ALLOW_ONCE,
  DENY
}
