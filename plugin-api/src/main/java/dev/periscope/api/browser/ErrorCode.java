package dev.periscope.api.browser;

/**
 * Stable failure codes, each with what the failure line tells the model by default: whether the
 * refs of the latest observation are still addressable, the tool that recovers, and whether
 * repeating the identical call is safe.
 */
public enum ErrorCode {
  BROWSER_DUPLICATE_PROVIDER(false, "browser_observe", false),
  BROWSER_PROVIDER_CONFIGURED_MISSING(true, null, false),
  BROWSER_PROVIDER_CONFIGURED_UNAVAILABLE(true, null, false),
  BROWSER_PROVIDER_UNAVAILABLE(true, null, false),
  BROWSER_PROVIDER_AMBIGUOUS(true, null, false),
  BROWSER_CAPABILITY_UNSUPPORTED(true, null, false),
  BROWSER_OWNER_CONFLICT(true, null, false),
  BROWSER_ENVIRONMENT_CLOSED(false, "browser_observe", true),
  BROWSER_OBSERVATION_REQUIRED(false, "browser_observe", false),
  BROWSER_STALE_REFERENCE(false, "browser_observe", false),
  BROWSER_PASSWORD_INPUT_FORBIDDEN(true, "browser_fill_credential", false),
  BROWSER_INVALID_URL(true, null, false),
  BROWSER_INVALID_ARGUMENT(true, null, false),
  BROWSER_POLICY_DENIED(true, null, false),
  BROWSER_CHECKPOINT_UNAVAILABLE(true, null, false),
  BROWSER_CHECKPOINT_PROVIDER_MISMATCH(true, null, false),
  BROWSER_CHECKPOINT_VERSION_MISMATCH(true, null, false),
  BROWSER_CHECKPOINT_METADATA_FAILED(false, "browser_observe", false),
  BROWSER_OBSERVATION_SUPERSEDED(false, "browser_observe", false),
  BROWSER_CONTINUATION_EXHAUSTED(true, "browser_observe", false),
  BROWSER_CREDENTIAL_UNAVAILABLE(true, null, false),
  BROWSER_CREDENTIAL_DENIED(true, null, false),
  BROWSER_ACTION_FAILED(false, "browser_observe", true),
  BROWSER_TARGET_COVERED(true, "browser_click", false),
  /**
   * A dialog the page opened ({@link PageDialog}) waits for an answer: nothing else runs in the
   * page until {@code browser_dialog} accepts or dismisses it.
   */
  BROWSER_DIALOG_PENDING(false, "browser_dialog", false),
  BROWSER_NAVIGATION_FAILED(false, "browser_open", true),
  BROWSER_ACTION_EVIDENCE_FAILED(false, "browser_observe", false),
  /**
   * The caller cancelled the call. Before the operation ran nothing happened; while it ran, the
   * environment was discarded ({@code lease=rebuilt}) and the next call gets a fresh one.
   */
  BROWSER_ACTION_CANCELLED(true, "browser_observe", false),
  /**
   * The browser died under the call: its process, its page's renderer or its driver ({@link
   * dev.periscope.api.browser.spi.EnvironmentFault}). The environment was discarded ({@code
   * lease=rebuilt}); the next call gets a fresh one restored from the last checkpoint, still logged
   * in, showing no page: {@code browser_open} the failure line's URL to go on. Retrying helps only
   * a call that names no ref.
   */
  BROWSER_CRASHED(false, "browser_open", false),
  /**
   * The page or the browser stopped answering: a liveness check got no answer in time, or a step
   * ran past its timeout and margin. As with {@link #BROWSER_CRASHED}, the environment was
   * discarded and the next call gets a fresh one from the last checkpoint.
   */
  BROWSER_UNRESPONSIVE(false, "browser_open", false),
  /**
   * The browsers' scheduler (a Selenium Grid) had no free slot within the configured wait: nothing
   * was opened, and the same call may succeed once a slot frees. Since host API 2.4.0.
   */
  BROWSER_CAPACITY(true, null, true),
  /**
   * The page shows a challenge ({@link PageChallenge}: a captcha, a challenge page, a login wall)
   * that stands in the way of the action: a person must get past it, or the model goes elsewhere.
   * Nothing was done; the observation stays valid. Since host API 2.5.0.
   */
  BROWSER_CHALLENGE(true, null, false),
  /**
   * An action at coordinates found no screenshot to take them from, or the page has scrolled,
   * navigated or been resized since the latest one: nothing was done; take a new screenshot. Since
   * host API 2.5.0.
   */
  BROWSER_STALE_SCREENSHOT(true, "browser_screenshot", false);

  private final boolean observationValid;
  private final String recommendedAction;
  private final boolean retryable;

  ErrorCode(boolean observationValid, String recommendedAction, boolean retryable) {
    this.observationValid = observationValid;
    this.recommendedAction = recommendedAction;
    this.retryable = retryable;
  }

  public boolean observationValid() {
    return observationValid;
  }

  /** The tool that recovers from this failure, or null when none does. */
  public String recommendedAction() {
    return recommendedAction;
  }

  public boolean retryable() {
    return retryable;
  }
}
