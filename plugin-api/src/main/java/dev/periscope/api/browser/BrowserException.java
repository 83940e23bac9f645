package dev.periscope.api.browser;

import java.util.Objects;

/**
 * The one failure type of the browser runtime. It carries a stable {@link ErrorCode} and the fields
 * of the failure line a model reads to recover: the last known URL, whether the latest
 * observation's refs are still valid, whether the lease was discarded and rebuilt, the recovering
 * tool, and whether a retry is safe.
 */
public class BrowserException extends RuntimeException {
  private final ErrorCode code;
  private final String url;
  private final boolean leaseRebuilt;
  private final String recommendedAction;
  private final boolean retryable;
  private final boolean rerunnable;
  private final String relatedTarget;

  public BrowserException(ErrorCode code, String message) {
    this(code, message, null);
  }

  public BrowserException(ErrorCode code, String message, Throwable cause) {
    this(code, message, null, false, code.recommendedAction(), code.retryable(), false, cause);
  }

  /** A failure with the code's defaults: no URL known yet, the lease intact. */
  public static BrowserException of(ErrorCode code, String message) {
    return new BrowserException(code, message);
  }

  /** A failure with the code's defaults and its cause. */
  public static BrowserException of(ErrorCode code, String message, Throwable cause) {
    return new BrowserException(code, message, cause);
  }

  /**
   * A failure after which the environment was discarded ({@code lease=rebuilt}): every ref is gone,
   * and the next call gets a fresh environment.
   */
  public static BrowserException rebuilt(
      ErrorCode code, String message, String url, Throwable cause) {
    return new BrowserException(
        code, message, url, true, code.recommendedAction(), code.retryable(), false, cause);
  }

  private BrowserException(
      ErrorCode code,
      String message,
      String url,
      boolean leaseRebuilt,
      String recommendedAction,
      boolean retryable,
      boolean rerunnable,
      Throwable cause) {
    this(code, message, url, leaseRebuilt, recommendedAction, retryable, rerunnable, null, cause);
  }

  private BrowserException(
      ErrorCode code,
      String message,
      String url,
      boolean leaseRebuilt,
      String recommendedAction,
      boolean retryable,
      boolean rerunnable,
      String relatedTarget,
      Throwable cause) {
    super(message, cause);
    this.relatedTarget = relatedTarget;
    this.code = Objects.requireNonNull(code, "code");
    this.url = url;
    this.leaseRebuilt = leaseRebuilt;
    this.recommendedAction = recommendedAction;
    this.retryable = retryable;
    this.rerunnable = rerunnable;
  }

  /**
   * {@code BROWSER_ENVIRONMENT_CLOSED} for an operation that never reached the browser because its
   * environment was discarded first: nothing was done, so a fresh lease can run the same operation
   * ({@link #rerunnable()}).
   */
  public static BrowserException environmentGone(String message, String url) {
    return new BrowserException(
        ErrorCode.BROWSER_ENVIRONMENT_CLOSED,
        message,
        url,
        true,
        ErrorCode.BROWSER_ENVIRONMENT_CLOSED.recommendedAction(),
        true,
        true,
        null);
  }

  public ErrorCode code() {
    return code;
  }

  /** The URL of the last observation, when known. */
  public String url() {
    return url;
  }

  public boolean leaseRebuilt() {
    return leaseRebuilt;
  }

  /** A rebuilt lease invalidates every ref, whatever the code says. */
  public boolean observationValid() {
    return code.observationValid() && !leaseRebuilt;
  }

  /** The tool that recovers from this failure, or null when none does; by default the code's. */
  public String recommendedAction() {
    return recommendedAction;
  }

  /** Whether repeating the identical call can succeed; by default the code's. */
  public boolean retryable() {
    return retryable;
  }

  /**
   * True when the same operation can run again, as it is, on a fresh lease: it never reached the
   * browser ({@link #environmentGone}), or it only read the page of a browser that turned out dead.
   * Nothing was done. Only the runtime says so: a provider's exception that claims it is not
   * believed.
   */
  public boolean rerunnable() {
    return rerunnable;
  }

  /** The same failure, marked {@link #rerunnable()} or not. */
  public BrowserException withRerunnable(boolean rerun) {
    BrowserException copy =
        new BrowserException(
            code,
            getMessage(),
            url,
            leaseRebuilt,
            recommendedAction,
            retryable,
            rerun,
            relatedTarget,
            getCause());
    copy.setStackTrace(getStackTrace());
    return copy;
  }

  /**
   * The same failure, naming another element of the latest observation by its provider target (the
   * element that covers a click's target, say). Where the message holds {@value #REF}, the runtime
   * puts that element's ref ({@code " [e3]"}), or nothing when the observation did not list it.
   */
  public BrowserException withRelatedTarget(String target) {
    BrowserException copy =
        new BrowserException(
            code,
            getMessage(),
            url,
            leaseRebuilt,
            recommendedAction,
            retryable,
            rerunnable,
            target,
            getCause());
    copy.setStackTrace(getStackTrace());
    return copy;
  }

  /** Where a message names a related element, its ref goes: see {@link #withRelatedTarget}. */
  public static final String REF = "{ref}";

  /** The provider target of a related element, or null. */
  public String relatedTarget() {
    return relatedTarget;
  }

  /** The same failure, now knowing the URL of the last observation. */
  public BrowserException withUrl(String lastUrl) {
    return copy(getMessage(), lastUrl, recommendedAction, retryable);
  }

  /**
   * The same failure with what recovers from it in this very call: the tool, and whether a retry
   * can succeed.
   */
  public BrowserException withRecovery(String action, boolean canRetry) {
    return copy(getMessage(), url, action, canRetry);
  }

  /**
   * The same failure with its message, URL and cause replaced (a secret redacted from them, say).
   */
  public BrowserException rewritten(String message, String lastUrl, Throwable cause) {
    BrowserException copy =
        new BrowserException(
            code,
            message,
            lastUrl,
            leaseRebuilt,
            recommendedAction,
            retryable,
            rerunnable,
            relatedTarget,
            cause);
    copy.setStackTrace(getStackTrace());
    return copy;
  }

  private BrowserException copy(String message, String lastUrl, String action, boolean canRetry) {
    BrowserException copy =
        new BrowserException(
            code,
            message,
            lastUrl,
            leaseRebuilt,
            action,
            canRetry,
            rerunnable,
            relatedTarget,
            getCause());
    copy.setStackTrace(getStackTrace());
    return copy;
  }

  /**
   * The failure as data, for a client that reads structured results: {@code code}, {@code message},
   * {@code url} (null when unknown), {@code observation} ({@code valid} or {@code invalid}), {@code
   * lease} ({@code intact} or {@code rebuilt}), {@code recommended_action} (null when none) and
   * {@code retryable}: the fields of {@link #failureLine()} and the message, in that order.
   */
  public java.util.Map<String, Object> toStructured() {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("code", code.name());
    m.put("message", getMessage());
    m.put("url", url == null || url.isEmpty() ? null : url);
    m.put("observation", observationValid() ? "valid" : "invalid");
    m.put("lease", leaseRebuilt ? "rebuilt" : "intact");
    m.put("recommended_action", recommendedAction);
    m.put("retryable", retryable);
    return m;
  }

  /**
   * The machine-routable line, fields in fixed order: {@code code=… [url=…]
   * observation=valid|invalid lease=intact|rebuilt [recommended_action=…] retryable=…}.
   */
  public String failureLine() {
    StringBuilder b = new StringBuilder("code=").append(code.name());
    if (url != null && !url.isEmpty()) {
      b.append(" url=").append(url);
    }
    b.append(" observation=").append(observationValid() ? "valid" : "invalid");
    b.append(" lease=").append(leaseRebuilt ? "rebuilt" : "intact");
    if (recommendedAction != null) {
      b.append(" recommended_action=").append(recommendedAction);
    }
    b.append(" retryable=").append(retryable);
    return b.toString();
  }
}
