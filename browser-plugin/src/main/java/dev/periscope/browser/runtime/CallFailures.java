package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;

/**
 * What a failure of a call on one environment means to its caller: a browser failure that knows the
 * last URL; after an abort, why the browser was discarded (the caller's cancellation, a fault named
 * with the way on, or the runtime closing it) and whether the same call may run again; and the code
 * its transition records.
 */
final class CallFailures {
  /** What a call can do on the fresh browser that replaces one a fault ended. */
  enum Rerun {
    /** It only reads the page: found the browser dead, it runs again on a fresh one, as it is. */
    READ,
    /**
     * It names no ref of the lost page, so repeating it can succeed; but it acts, so only the
     * caller repeats it.
     */
    REPEATABLE,
    /**
     * It names a ref of the lost page, or moves through its history: it cannot succeed on another
     * browser.
     */
    NEVER
  }

  private final Environment environment;

  CallFailures(Environment environment) {
    this.environment = environment;
  }

  /**
   * Any failure as a browser failure that knows the last URL. One that met an abort says why the
   * browser was discarded: the caller's cancellation, a fault (named, with the way on), or the
   * runtime closing it.
   */
  BrowserException failure(Cancellation cancellation, Rerun rerun, RuntimeException thrown) {
    if (thrown instanceof BrowserException raw
        && (raw.rerunnable() || !environment.aborted() || raw.leaseRebuilt())) {
      BrowserException e = withRelatedRef(raw);
      return e.url() == null && environment.lastUrl() != null
          ? e.withUrl(environment.lastUrl())
          : e;
    }
    if (environment.aborted()) {
      return aborted(cancellation, rerun, thrown);
    }
    // A provider that broke its contract by throwing something else: still a failure the model can
    // route.
    String reason =
        String.valueOf(thrown.getMessage())
            .lines()
            .findFirst()
            .orElse(thrown.getClass().getSimpleName());
    return BrowserException.of(
            ErrorCode.BROWSER_ACTION_FAILED, "the browser failed: " + reason, thrown)
        .withUrl(environment.lastUrl());
  }

  /**
   * A failure that names another element of the latest observation gets its ref where the message
   * says {@link BrowserException#REF}.
   */
  private BrowserException withRelatedRef(BrowserException e) {
    String message = String.valueOf(e.getMessage());
    if (!message.contains(BrowserException.REF)) {
      return e;
    }
    Refs latest = environment.latest();
    String ref =
        e.relatedTarget() == null || latest == null
            ? null
            : latest.elementsByRef().entrySet().stream()
                .filter(entry -> entry.getValue().target().equals(e.relatedTarget()))
                .map(java.util.Map.Entry::getKey)
                .findFirst()
                .orElse(null);
    return e.rewritten(
        message.replace(BrowserException.REF, ref == null ? "" : " [" + ref + "]"),
        e.url(),
        e.getCause());
  }

  private BrowserException aborted(Cancellation cancellation, Rerun rerun, RuntimeException cause) {
    if (cancellation.isCancelled()) {
      return BrowserException.rebuilt(
          ErrorCode.BROWSER_ACTION_CANCELLED,
          "the call was cancelled while the browser worked on it; that browser was discarded and the next call"
              + " opens a fresh one",
          environment.lastUrl(),
          cause);
    }
    LostEnvironment lost = environment.lost();
    if (lost == null) {
      return BrowserException.rebuilt(
          ErrorCode.BROWSER_ENVIRONMENT_CLOSED,
          "the browser was discarded while it worked on this call; the next call opens a fresh one",
          environment.lastUrl(),
          cause);
    }
    String url = lost.url;
    BrowserException failure =
        BrowserException.rebuilt(
                lost.fault.cause().code(),
                "the call did not complete: "
                    + lost.fault.detail()
                    + ". This browser was discarded; the next call opens "
                    + lost.next()
                    + ", with no page open"
                    + (url == null ? "" : ": open " + url + " again"),
                url,
                cause)
            .withRecovery("browser_open", rerun != Rerun.NEVER);
    if (rerun == Rerun.READ && lost.fault.cause().code() == ErrorCode.BROWSER_CRASHED) {
      // The browser was dead: the call read nothing, and runs again on the next browser, which
      // tells of the fault.
      return failure.withRerunnable(true);
    }
    lost.report();
    return failure;
  }

  /**
   * The failure code a transition records: the abort's reason when there was one, else the
   * failure's own.
   */
  ErrorCode outcomeCode(Cancellation cancellation, RuntimeException e) {
    if (environment.aborted()) {
      if (cancellation.isCancelled()) {
        return ErrorCode.BROWSER_ACTION_CANCELLED;
      }
      LostEnvironment lost = environment.lost();
      return lost != null ? lost.fault.cause().code() : ErrorCode.BROWSER_ENVIRONMENT_CLOSED;
    }
    return e instanceof BrowserException b ? b.code() : ErrorCode.BROWSER_ACTION_FAILED;
  }
}
