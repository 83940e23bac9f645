package dev.periscope.browser.tools;

import java.util.Set;

/**
 * What one page of an observation shows: {@code summary} (controls, navigation and record titles plus a text
 * lead), {@code interactive} (every element, no text), {@code document} (text plus controls and navigation).
 */
enum Mode {
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

  String id() {
    return name().toLowerCase();
  }
}
