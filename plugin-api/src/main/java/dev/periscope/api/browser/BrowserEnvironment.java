package dev.periscope.api.browser;

/**
 * One isolated browser environment: a browser context with one primary page. The runtime calls it from one
 * queue, one operation at a time. Element-addressed methods take an element the provider returned in its latest
 * observation; the provider re-resolves its opaque target and checks its fingerprint before acting, and throws
 * {@code BROWSER_STALE_REFERENCE} rather than act on a neighbour. Policy denials throw
 * {@code BROWSER_POLICY_DENIED}; other failures {@code BROWSER_ACTION_FAILED}.
 *
 * <p>{@link #abort()} may be called from any thread while an operation runs: it stops that operation, waits until
 * it has settled, and leaves the environment unusable. {@link #close()} is idempotent.
 */
public interface BrowserEnvironment extends AutoCloseable {
  ProviderObservation observe(ObservationBudget budget);

  void navigate(String url);

  void click(ProviderElement element);

  /** Types a value into a field, replacing what it held. */
  void fill(ProviderElement element, String value);

  Screenshot screenshot(boolean fullPage);

  /** Stops the running operation, if any, waits for it to settle, and makes the environment unusable. */
  void abort();

  @Override
  void close();

  /**
   * How much an observation may carry across from the browser, and which element tiers it wants (1 to 5;
   * elements of other tiers are left out before the cut).
   */
  record ObservationBudget(int maxTextChars, int maxElements, java.util.Set<Integer> tiers) {
    public static final java.util.Set<Integer> ALL_TIERS = java.util.Set.of(1, 2, 3, 4, 5);

    public ObservationBudget {
      tiers = java.util.Set.copyOf(tiers);
    }

    public ObservationBudget(int maxTextChars, int maxElements) {
      this(maxTextChars, maxElements, ALL_TIERS);
    }
  }
}
