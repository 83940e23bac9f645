package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Transition;

/**
 * A lease's page handed over to a person ({@link Lease#handOff}): the live view opened on the
 * environment, the wait for the person (or the timeout, the call's cancellation, the browser's
 * death), what changed of the page's state, the journal's entry and the observation after. On the
 * lease's queue.
 */
final class LeaseHandoff {
  /** The widest and tallest frame a live view streams. */
  private static final int LIVE_VIEW_MAX_PIXELS = 1600;

  private final Lease lease;

  LeaseHandoff(Lease lease) {
    this.lease = lease;
  }

  dev.periscope.api.browser.HandoffOutcome hold(
      dev.periscope.browser.handoff.Handoffs desk,
      String message,
      long timeoutMs,
      ObservationBudget budget,
      Cancellation cancellation) {
    if (!(lease.environment.delegate()
        instanceof dev.periscope.api.browser.spi.LiveViewEnvironment live)) {
      throw new BrowserException(
          ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED,
          "provider \"" + lease.environment.provider.id() + "\" cannot show its page to a person");
    }
    Refs latest = lease.environment.latest();
    Observation before = latest == null ? null : latest.observation();
    java.time.Instant startedAt = java.time.Instant.now();
    long start = System.nanoTime();
    long stepMs = lease.timeouts().actionMs();
    var stateBefore = lease.environment.step("reading the page's state", stepMs, live::pageState);
    dev.periscope.api.browser.HandoffOutcome.Ending ending;
    try (var view = desk.open(live, message);
        AutoCloseable cast =
            lease.environment.step(
                "starting the live view",
                stepMs,
                () -> live.screencast(LIVE_VIEW_MAX_PIXELS, LIVE_VIEW_MAX_PIXELS, view::frame))) {
      lease.handingOff = view;
      if (lease.released.get()) {
        // Released while the view opened: nobody waits for this handoff any more.
        view.end(dev.periscope.api.browser.HandoffOutcome.Ending.CANCELLED);
      }
      // A browser that dies, or an environment discarded, ends the handoff: nobody is left to
      // hand the page back.
      ending =
          desk.await(
              view,
              message,
              origin(stateBefore.url()),
              timeoutMs,
              cancellation,
              lease.environment::aborted);
    } catch (BrowserException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("the live view failed: " + e.getMessage(), e);
    } finally {
      lease.handingOff = null;
    }
    long heldMs = (System.nanoTime() - start) / 1_000_000;
    var stateAfter = lease.environment.step("reading the page's state", stepMs, live::pageState);
    lease.runtime.checkpointNow(lease.slot, lease.environment, stepMs);
    Observation after = lease.observeNow(budget, true);
    var redactions = lease.runtime.redactions();
    var outcome =
        new dev.periscope.api.browser.HandoffOutcome(
            ending,
            heldMs,
            redactions.text(lease.environment.sessionId, stateBefore.url()),
            redactions.text(lease.environment.sessionId, stateBefore.title()),
            redactions.text(lease.environment.sessionId, stateAfter.url()),
            redactions.text(lease.environment.sessionId, stateAfter.title()),
            changed(stateBefore.digests(), stateAfter.digests(), "cookie "),
            changed(stateBefore.digests(), stateAfter.digests(), "local ")
                + changed(stateBefore.digests(), stateAfter.digests(), "session "),
            after);
    lease.journal(
        "handoff",
        ending.id() + " by " + ending.endedBy(),
        ending == dev.periscope.api.browser.HandoffOutcome.Ending.DONE
            ? Transition.Outcome.SUCCEEDED
            : Transition.Outcome.FAILED,
        before,
        after,
        startedAt,
        heldMs);
    return outcome;
  }

  /** How many entries of one kind were added, removed or changed. */
  private static int changed(
      java.util.Map<String, String> before, java.util.Map<String, String> after, String kind) {
    java.util.Set<String> names = new java.util.HashSet<>();
    before.keySet().stream().filter(k -> k.startsWith(kind)).forEach(names::add);
    after.keySet().stream().filter(k -> k.startsWith(kind)).forEach(names::add);
    return (int)
        names.stream().filter(k -> !java.util.Objects.equals(before.get(k), after.get(k))).count();
  }

  /** Scheme, host and port alone: never a user name a URL may carry to mislead. */
  private static String origin(String url) {
    try {
      java.net.URI u = java.net.URI.create(url);
      if (u.getHost() == null) {
        return u.getScheme() + ":";
      }
      return u.getScheme() + "://" + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort());
    } catch (RuntimeException e) {
      return "an unreadable address";
    }
  }
}
