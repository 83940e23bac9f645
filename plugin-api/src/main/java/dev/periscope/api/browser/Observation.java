package dev.periscope.api.browser;

import java.util.List;

/**
 * A page as the model sees it. The runtime assigns the ids: environment, generation, page, observation id,
 * revision, digest, and element refs ({@code e1}, {@code e2}, ...). Only the newest observation of an environment
 * is addressable: acting on an older one fails {@code BROWSER_STALE_REFERENCE}.
 */
public record Observation(
    String id,
    String environmentId,
    int generation,
    String pageId,
    int revision,
    String url,
    String title,
    String text,
    boolean textTruncated,
    int totalTextChars,
    List<ObservedElement> elements,
    boolean elementsTruncated,
    int totalElements,
    String digest) {
  public Observation {
    elements = List.copyOf(elements);
  }

  /** One element: its ref, kind ({@code button}, {@code a}, {@code input:text}), ARIA role, accessible name. */
  public record ObservedElement(
      String ref, String kind, String role, String name, boolean disabled, String inputType, int priority) {}
}
