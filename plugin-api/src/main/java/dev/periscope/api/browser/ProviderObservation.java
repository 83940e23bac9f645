package dev.periscope.api.browser;

import java.util.List;

/**
 * A page as the provider observed it: text and elements already ranked and cut inside the browser, with the
 * totals the page held so a caller can tell what it did not see.
 */
public record ProviderObservation(
    String url,
    String title,
    String text,
    int totalTextChars,
    List<ProviderElement> elements,
    int totalElements) {
  public ProviderObservation {
    elements = List.copyOf(elements);
  }
}
