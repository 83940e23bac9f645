package dev.periscope.api.browser;

import dev.periscope.api.Cancellation;
import java.util.Optional;

/**
 * A caller's share of one environment. Operations run in admission order on the environment's
 * queue. Element-addressed actions name an observation id and a ref from it; only the newest
 * observation is accepted.
 *
 * <p>Each operation takes the caller's cancellation. Cancelled while waiting in the queue, the
 * operation never runs. Cancelled while it runs, the environment is aborted: the operation fails
 * with the lease marked rebuilt, and this lease and every other on the environment become unusable.
 * Closing the lease releases it exactly once; the last release of an environment closes it.
 *
 * <p>Threading: thread-safe. Operations from several threads queue on the environment in arrival
 * order; {@link #close()} may be called from any thread.
 */
public interface BrowserLease extends AutoCloseable {
  BrowserSessionId sessionId();

  String environmentId();

  Observation observe(ObservationBudget budget, Cancellation cancellation);

  /**
   * Performs an action and observes the page after it: the action's own result and the transition,
   * which is recorded whether the action succeeded or not.
   */
  <R> Acted<R> act(BrowserAction<R> action, ObservationBudget budget, Cancellation cancellation);

  /**
   * What an action returned, the transition it made, and the files the page downloaded in answer to
   * it (in quarantine, for the caller to store).
   */
  record Acted<R>(
      R result,
      Transition transition,
      java.util.List<dev.periscope.api.browser.spi.DownloadedFile> downloads) {
    public Acted {
      downloads = java.util.List.copyOf(downloads);
    }

    /** An action that downloaded nothing. */
    public Acted(R result, Transition transition) {
      this(result, transition, java.util.List.of());
    }
  }

  /** Shorthand for {@link #act} with a {@link BrowserAction.Navigate}. */
  default Transition navigate(String url, ObservationBudget budget, Cancellation cancellation) {
    return act(new BrowserAction.Navigate(url), budget, cancellation).transition();
  }

  /** Shorthand for {@link #act} with a {@link BrowserAction.Click}. */
  default Transition click(
      String observationId,
      String elementRef,
      ObservationBudget budget,
      Cancellation cancellation) {
    return act(new BrowserAction.Click(observationId, elementRef), budget, cancellation)
        .transition();
  }

  /** Shorthand for {@link #act} with a {@link BrowserAction.Fill}. */
  default Transition fill(
      String observationId,
      String elementRef,
      String value,
      ObservationBudget budget,
      Cancellation cancellation) {
    return act(new BrowserAction.Fill(observationId, elementRef, value), budget, cancellation)
        .transition();
  }

  Screenshot screenshot(boolean fullPage, Cancellation cancellation);

  /**
   * Reads records of one kind from the page, or from the region a ref of the latest observation
   * stands for. A region from an older observation is {@code BROWSER_STALE_REFERENCE}.
   */
  Extraction extract(
      String kind,
      String observationId,
      String regionRef,
      int limit,
      int maxFieldChars,
      Cancellation cancellation);

  /**
   * Hands the page to a person and waits, holding the environment, until they are done, give up, or
   * {@code timeoutMs} passes: a live view of the page is opened for them behind a one-time link
   * that the host's approval service shows them, never the model (the service is asked with tool
   * {@code browser_handoff} and the link in the request's reason: a host shows it to a person and
   * never logs it; a deny declines the handoff). The outcome sums up what changed without values; a
   * resuming session's checkpoint is written after it. Since host API 2.6.0; the default refuses
   * ({@code BROWSER_CAPABILITY_UNSUPPORTED}).
   */
  default HandoffOutcome handOff(
      String message, long timeoutMs, ObservationBudget budget, Cancellation cancellation) {
    throw new BrowserException(
        ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED, "this runtime cannot hand a page to a person");
  }

  /** The newest observation, if any. */
  Optional<Observation> latestObservation();

  /**
   * False once the environment was aborted or closed: the holder should release and acquire again.
   */
  boolean usable();

  @Override
  void close();
}
