package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.spi.EnvironmentFault;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the runtime keeps of an environment a fault ended: the fault, when, and where its page was.
 * The model hears of it once: from the call the fault broke, or, when no call was running, from the
 * next environment of the same browser session (a page event of its first observation, or the
 * failure of a call that names the lost page's observation).
 */
final class LostEnvironment {
  final BrowserSessionId sessionId;
  final String environmentId;
  final EnvironmentFault fault;
  final Instant at;

  /** The URL and the id of the lost page's newest observation, when it had one. */
  final String url;

  final String observationId;

  /**
   * Whether the session's next environment is restored from its last checkpoint (else it starts
   * empty).
   */
  final boolean restores;

  private final AtomicBoolean reported = new AtomicBoolean();

  LostEnvironment(
      BrowserSessionId sessionId,
      String environmentId,
      EnvironmentFault fault,
      Instant at,
      String url,
      String observationId,
      boolean restores) {
    this.sessionId = sessionId;
    this.environmentId = environmentId;
    this.fault = fault;
    this.at = at;
    this.url = url;
    this.observationId = observationId;
    this.restores = restores;
  }

  /** What the session's next environment is, in the words of a failure or a log line. */
  String next() {
    return restores
        ? "a fresh one for this session, restored from its last checkpoint (still logged in)"
        : "a fresh, empty one (this session keeps no checkpoints)";
  }

  /** True the first time only: whoever gets true tells the model. */
  boolean report() {
    return reported.compareAndSet(false, true);
  }

  boolean reported() {
    return reported.get();
  }

  /** The page event of the replacing environment's first observation. */
  String pageEvent() {
    return "the browser was replaced by a fresh one, "
        + (restores
            ? "restored from this session's last checkpoint"
            : "empty (this session keeps no checkpoints)")
        + ": at "
        + at.truncatedTo(ChronoUnit.SECONDS)
        + ", while no call ran, "
        + fault.detail()
        + (url == null ? "" : "; the last page was " + url);
  }

  /** The failure of a call that names the lost page's observation, in the replacing environment. */
  BrowserException lostObservation(String observationIdNamed) {
    return BrowserException.rebuilt(
            fault.cause().code(),
            "observation \""
                + observationIdNamed
                + "\" belonged to a page"
                + " that is gone: at "
                + at.truncatedTo(ChronoUnit.SECONDS)
                + ", while no call ran, "
                + fault.detail()
                + "; this browser session continues in a fresh browser"
                + (restores ? " restored from its last checkpoint" : "")
                + (url == null ? "" : "; open " + url + " again"),
            url,
            null)
        .withRecovery("browser_open", false);
  }
}
