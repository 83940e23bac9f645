package dev.periscope.api.host;

import dev.periscope.api.Cancellation;

/**
 * Asks the user, or a policy standing in for the user, whether a sensitive operation may go ahead.
 * Hosts must fail closed: an answer that cannot be obtained is {@link ApprovalDecision#DENY}.
 */
public interface ApprovalService {
  ApprovalDecision decide(ApprovalRequest request, Cancellation cancellation);
}
