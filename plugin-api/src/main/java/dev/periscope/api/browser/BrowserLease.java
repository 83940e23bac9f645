package dev.periscope.api.browser;

/**
 * A caller's share of one environment. Operations run in order on the environment's queue. Element-addressed
 * actions name an observation id and a ref from it; only the newest observation is accepted. Closing the lease
 * releases it exactly once; the last release of an environment closes it.
 */
public interface BrowserLease extends AutoCloseable {
  BrowserSessionId sessionId();

  String environmentId();

  Observation observe(BrowserEnvironment.ObservationBudget budget);

  Transition navigate(String url, BrowserEnvironment.ObservationBudget budget);

  Transition click(String observationId, String elementRef, BrowserEnvironment.ObservationBudget budget);

  Screenshot screenshot(boolean fullPage);

  /** The newest observation, if any. */
  java.util.Optional<Observation> latestObservation();

  @Override
  void close();
}
