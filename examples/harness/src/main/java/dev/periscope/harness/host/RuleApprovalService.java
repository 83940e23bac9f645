package dev.periscope.harness.host;

import dev.periscope.api.Cancellation;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalRequest;
import dev.periscope.api.host.ApprovalService;
import dev.periscope.api.host.OriginPattern;
import dev.periscope.harness.profile.ProjectConfig;
import java.util.List;
import java.util.Optional;

/**
 * Decides approvals by the project's {@code approval.rules} (first match wins; a rule's origin is
 * an origin pattern, as in {@code credentials.*.origins}); with no matching rule it asks on the
 * user's terminal when there is one, and denies otherwise: no terminal, a device that cannot be
 * opened, no answer or anything but "y". It never allows silently. A handoff ({@code
 * browser_handoff}) is told to the person at the terminal, not asked: its reason, with the live
 * view's link, is shown there; a rule may deny it but never allows it for them.
 */
final class RuleApprovalService implements ApprovalService {
  private final List<ProjectConfig.ApprovalRule> rules;
  private final Optional<Terminal> terminal;

  RuleApprovalService(List<ProjectConfig.ApprovalRule> rules, Optional<Terminal> terminal) {
    this.rules = rules;
    this.terminal = terminal;
  }

  @Override
  public ApprovalDecision decide(ApprovalRequest request, Cancellation cancellation) {
    for (ProjectConfig.ApprovalRule rule : rules) {
      if (rule.tool().equals(request.toolName())
          && (rule.credential() == null || rule.credential().equals(request.credentialRef()))
          && (rule.origin() == null
              || OriginPattern.parse(rule.origin()).matches(request.origin()))) {
        if (rule.allow() && HANDOFF.equals(request.toolName())) {
          break; // the person must see the link: only they can take the page
        }
        return rule.allow() ? ApprovalDecision.ALLOW_ONCE : ApprovalDecision.DENY;
      }
    }
    if (terminal.isEmpty() || cancellation.isCancelled()) {
      return ApprovalDecision.DENY;
    }
    if (HANDOFF.equals(request.toolName())) {
      // Nothing to answer: the reason holds the live view's one-time link, for the person at this
      // terminal only, who takes the page by opening it.
      return terminal.get().tell(shownLines(request.reason()))
          ? ApprovalDecision.ALLOW_ONCE
          : ApprovalDecision.DENY;
    }
    if (SCRIPT.equals(request.toolName())) {
      // The script itself, line by line, each shown as the terminal can show it safely.
      Optional<String> answer =
          terminal
              .get()
              .ask(
                  String.format(
                      "The agent asks to %s%nAllow this script on %s? [y/N] ",
                      shownLines(request.reason()), shown(request.origin())),
                  cancellation);
      return answer.filter(a -> a.trim().equalsIgnoreCase("y")).isPresent()
          ? ApprovalDecision.ALLOW_ONCE
          : ApprovalDecision.DENY;
    }
    Optional<String> answer =
        terminal
            .get()
            .ask(
                String.format(
                    "%s%nAllow %s to use credential '%s' on %s (field '%s')? [y/N] ",
                    shown(request.reason()),
                    shown(request.toolName()),
                    shown(request.credentialRef()),
                    shown(request.origin()),
                    shown(request.fieldName())),
                cancellation);
    return answer.filter(a -> a.trim().equalsIgnoreCase("y")).isPresent()
        ? ApprovalDecision.ALLOW_ONCE
        : ApprovalDecision.DENY;
  }

  /** The tool that runs a script the agent wrote: its question shows the script. */
  static final String SCRIPT = "browser_evaluate";

  /** The tool that hands a page to a person: its question carries the live view's link. */
  static final String HANDOFF = "browser_handoff";

  /** As {@link #shown}, line by line. */
  static String shownLines(String value) {
    return java.util.Arrays.stream(String.valueOf(value).split("\n", -1))
        .map(RuleApprovalService::shown)
        .collect(java.util.stream.Collectors.joining(System.lineSeparator()));
  }

  /**
   * A value as the terminal shows it: a page's control or format characters could rewrite the
   * prompt's line.
   */
  static String shown(String value) {
    return String.valueOf(value).replaceAll("[\\p{Cc}\\p{Cf}\\p{Co}\\p{Cn}]", "?");
  }
}
