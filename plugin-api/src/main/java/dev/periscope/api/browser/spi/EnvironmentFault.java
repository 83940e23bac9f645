package dev.periscope.api.browser.spi;

import dev.periscope.api.browser.ErrorCode;
import java.util.Locale;
import java.util.Objects;

/**
 * Why an environment stopped working on its own: something died (the browser, the page's renderer,
 * the driver that speaks to the browser) or stopped answering (a liveness check, or a step that ran
 * past its deadline). A fault is final: the runtime aborts the environment, records the fault, and
 * the owner's next call gets a fresh environment of the same browser session, restored from its
 * last checkpoint. A provider also reports, as {@link Cause#RETIRING}, a working browser whose
 * place is being taken out of service.
 *
 * @param cause what happened
 * @param detail one line for people, naming what the provider or the runtime saw; never page
 *     content
 *     <p>Immutable and thread-safe.
 */
public record EnvironmentFault(Cause cause, String detail) {
  public EnvironmentFault {
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(detail, "detail");
  }

  /** What happened, with the failure code a call that meets it fails with. */
  public enum Cause {
    /** The browser process exited or was killed. */
    BROWSER_EXITED(ErrorCode.BROWSER_CRASHED),
    /** The process that renders the page died (a crash, or the system's out-of-memory killer). */
    PAGE_CRASHED(ErrorCode.BROWSER_CRASHED),
    /** The driver process between the runtime and the browser exited. */
    DRIVER_EXITED(ErrorCode.BROWSER_CRASHED),
    /** The page did not answer a liveness check within its short deadline. */
    UNRESPONSIVE(ErrorCode.BROWSER_UNRESPONSIVE),
    /**
     * A step of a call (or an open, or a checkpoint) was still running past its timeout and margin.
     */
    DEADLINE_EXCEEDED(ErrorCode.BROWSER_UNRESPONSIVE),
    /**
     * Not the browser's fault: the place it runs is being taken out of service while it still works
     * (a Selenium Grid node draining). The runtime waits until no call runs on the environment,
     * writes a checkpoint of it, then ends it as it ends a faulted one, so the session's next
     * environment opens elsewhere from that checkpoint. Since host API 2.6.0.
     */
    RETIRING(ErrorCode.BROWSER_ENVIRONMENT_CLOSED);

    private final ErrorCode code;

    Cause(ErrorCode code) {
      this.code = code;
    }

    public ErrorCode code() {
      return code;
    }

    /**
     * The cause as the transition log and the harness name it: {@code page-crashed}, {@code
     * unresponsive}.
     */
    public String id() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }
}
