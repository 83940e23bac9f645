package dev.periscope.api.browser;

/**
 * One isolated browser environment: a browser context with one primary page. The runtime calls it from one
 * queue at a time. Element-addressed methods take the opaque target of an element the provider returned in its
 * latest observation; the provider re-resolves it and checks its fingerprint before acting, and throws
 * {@code BROWSER_STALE_REFERENCE} rather than act on a neighbour. {@link #close()} is idempotent.
 */
public interface BrowserEnvironment extends AutoCloseable {
  ProviderObservation observe(ObservationBudget budget);

  void navigate(String url);

  void click(ProviderElement element);

  Screenshot screenshot(boolean fullPage);

  @Override
  void close();

  /** How much an observation may carry across from the browser. */
  record ObservationBudget(int maxTextChars, int maxElements) {}
}
