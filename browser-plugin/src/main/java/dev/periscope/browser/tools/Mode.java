package dev.periscope.browser.tools;

import java.util.Set;

/**
 * What one page of an observation shows: {@code summary} (controls, navigation and record titles
 * plus a text lead), {@code interactive} (every element, no text), {@code document} (text plus
 * controls and navigation).
 */
public enum Mode {
  SUMMARY(4000, 40, Set.of(1, 2, 3)),
  INTERACTIVE(0, 100, Set.of(1, 2, 3, 4, 5)),
  DOCUMENT(12_000, 20, Set.of(1, 2));

  final int textChars;
  final int elements;
  final Set<Integer> tiers;

  Mode(int textChars, int elements, Set<Integer> tiers) {
    this.textChars = textChars;
    this.elements = elements;
    this.tiers = tiers;
  }

  /** The mode as configuration and tools spell it. */
  public String id() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** The mode named {@code id}; an unknown one is refused, naming the ones there are. */
  public static Mode of(String id) {
    for (Mode m : values()) {
      if (m.id().equals(id)) {
        return m;
      }
    }
    throw new dev.periscope.api.ConfigurationException(
        "plugins.browser.observeMode",
        "plugins.browser.observeMode must be summary, interactive or document (found " + id + ")");
  }
}
