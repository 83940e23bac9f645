package dev.periscope.api.browser.spi;

/**
 * A repeated structure of the observed page (a card, a row, a feed item) that holds listed
 * elements, as the provider recognised it: {@code key} is the {@code groupKey} its elements carry,
 * {@code title} what it is called (its heading, its title link's text), {@code detail} at most one
 * short line of its other text (a price, a sender; {@code ""} when none), and {@code titleTarget}
 * the target of the listed element that stands for the whole record (its title link), or null.
 * Since host API 2.7.0.
 *
 * <p>Immutable and thread-safe.
 */
public record ProviderRecord(String key, String title, String detail, String titleTarget) {
  public ProviderRecord {
    title = title == null ? "" : title;
    detail = detail == null ? "" : detail;
  }

  /** This record with its texts passed through {@code f}. */
  public ProviderRecord mapText(java.util.function.UnaryOperator<String> f) {
    return new ProviderRecord(key, f.apply(title), f.apply(detail), titleTarget);
  }
}
