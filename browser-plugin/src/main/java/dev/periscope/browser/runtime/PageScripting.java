package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalRequest;
import dev.periscope.api.host.ApprovalService;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the model may run scripts in its pages ({@code browser_evaluate}), and who allows each:
 * off unless the project enables it ({@code scripting.enabled}), and then every script is shown to
 * the host's approval service with the page's origin and runs only when it answers allow-once. No
 * approval service, a refusal, or a service that fails: the script does not run.
 */
public final class PageScripting {
  /** The tool that runs a script, as approval requests and rules name it. */
  public static final String TOOL = "browser_evaluate";

  private static final Logger LOG = LoggerFactory.getLogger(PageScripting.class);

  private final boolean enabled;
  private final Optional<ApprovalService> approval;

  public PageScripting(boolean enabled, Optional<ApprovalService> approval) {
    this.enabled = enabled;
    this.approval = approval;
  }

  /** Scripting off: the project did not enable it. */
  public static PageScripting off() {
    return new PageScripting(false, Optional.empty());
  }

  public boolean enabled() {
    return enabled;
  }

  /**
   * Runs a script the model wrote, for {@code lease}: only where the project enables scripting,
   * never in a tab where a secret was filled (the provider refuses before anyone is asked), after
   * the approval service allowed it for the page's origin; its JSON value redacted, then cut to its
   * bound. Caller holds the lease's queue.
   */
  BrowserAction.Evaluate.Evaluated run(
      Lease lease, BrowserAction.Evaluate script, Cancellation cancellation) {
    requireEnabled();
    Environment environment = lease.environment;
    Redactions redactions = lease.runtime.redactions();
    // As written, or escaped in a string literal as JSON escapes it.
    if (!redactions.json(environment.sessionId, script.expression()).equals(script.expression())) {
      // Asking would show the secret to whoever approves; running it would hand it to the page.
      throw denied(
          "the script holds a secret of this session, so it is neither shown to anyone nor run");
    }
    var env = environment.delegate();
    String origin =
        environment.step(
            "reading the page's origin", lease.timeouts().actionMs(), env::scriptOrigin);
    approve(script.expression(), origin, cancellation);
    int bound = BrowserAction.Evaluate.MAX_RESULT_CHARS;
    BrowserAction.Evaluate.Evaluated raw =
        environment.step(
            script.step(),
            script.timeoutMs(lease.timeouts().actionMs(), lease.timeouts().navigationMs()),
            () -> env.evaluate(script.expression(), origin, bound + Redactions.CUT_SLACK));
    // Redacted first, then cut: the cut cannot end inside a secret and show its beginning.
    String json = redactions.json(environment.sessionId, raw.json());
    int chars = raw.chars() - raw.json().length() + json.length();
    return new BrowserAction.Evaluate.Evaluated(
        json.length() > bound ? json.substring(0, bound) : json, chars);
  }

  /** {@code BROWSER_POLICY_DENIED} unless the project enables scripting. */
  void requireEnabled() {
    if (!enabled) {
      throw denied(
          "scripting is off for this project: the person who runs it can turn it on with"
              + " scripting.enabled: true, and approves every script");
    }
  }

  /**
   * Shows the script and the page's origin to the approval service; anything but allow-once is
   * {@code BROWSER_POLICY_DENIED}, and nothing ran.
   */
  void approve(String expression, String origin, Cancellation cancellation) {
    if (approval.isEmpty()) {
      throw denied("every script needs approval and this host has no approval service");
    }
    String reason =
        "run this script ("
            + expression.length()
            + " characters) in the page of "
            + origin
            + ":\n"
            + expression;
    ApprovalDecision decision;
    try {
      decision =
          approval
              .get()
              .decide(new ApprovalRequest(TOOL, null, origin, null, reason), cancellation);
    } catch (RuntimeException e) {
      // Never the exception's text: it may quote the request, script and all.
      LOG.warn("the host's approval service failed on a script: {}", e.getClass().getName());
      throw denied(
          "the approval service failed ("
              + e.getClass().getSimpleName()
              + "); the script did not run");
    }
    if (decision != ApprovalDecision.ALLOW_ONCE) {
      throw denied("the script was not approved on " + origin + "; it did not run");
    }
  }

  private static BrowserException denied(String message) {
    return new BrowserException(ErrorCode.BROWSER_POLICY_DENIED, message);
  }
}
