package dev.periscope.api.browser;

import java.util.Objects;

/**
 * The one failure type of the browser runtime. It carries a stable {@link ErrorCode} and the fields of the
 * failure line a model reads to recover: the last known URL, whether the latest observation's refs are still
 * valid, whether the lease was discarded and rebuilt, the recovering tool, and whether a retry is safe.
 */
public class BrowserException extends RuntimeException {
  private final ErrorCode code;
  private final String url;
  private final boolean leaseRebuilt;

  public BrowserException(ErrorCode code, String message) {
    this(code, message, null, false, null);
  }

  public BrowserException(ErrorCode code, String message, Throwable cause) {
    this(code, message, null, false, cause);
  }

  public BrowserException(ErrorCode code, String message, String url, boolean leaseRebuilt, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
    this.url = url;
    this.leaseRebuilt = leaseRebuilt;
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

  /** The same failure, now knowing the URL of the last observation. */
  public BrowserException withUrl(String lastUrl) {
    BrowserException copy = new BrowserException(code, getMessage(), lastUrl, leaseRebuilt, getCause());
    copy.setStackTrace(getStackTrace());
    return copy;
  }

  /**
   * The machine-routable line, fields in fixed order:
   * {@code code=… [url=…] observation=valid|invalid lease=intact|rebuilt [recommended_action=…] retryable=…}.
   */
  public String failureLine() {
    StringBuilder b = new StringBuilder("code=").append(code.name());
    if (url != null && !url.isEmpty()) {
      b.append(" url=").append(url);
    }
    b.append(" observation=").append(observationValid() ? "valid" : "invalid");
    b.append(" lease=").append(leaseRebuilt ? "rebuilt" : "intact");
    if (code.recommendedAction() != null) {
      b.append(" recommended_action=").append(code.recommendedAction());
    }
    b.append(" retryable=").append(code.retryable());
    return b.toString();
  }
}
