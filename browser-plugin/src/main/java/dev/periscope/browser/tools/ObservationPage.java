package dev.periscope.browser.tools;

import dev.periscope.api.browser.Observation;
import java.util.List;

/**
 * One page of an observation as the model sees it: a slice of its text and of its ranked elements,
 * from the given offsets, and the continuation token when more remains within the retained
 * observation.
 */
record ObservationPage(
    Observation observation,
    Mode mode,
    int textOffset,
    String text,
    int elementOffset,
    List<Observation.ObservedElement> elements,
    String continuation) {

  /** The page of {@code o} that starts at the offsets and holds at most the given sizes. */
  static ObservationPage of(
      Observation o,
      Mode mode,
      int textOffset,
      int textChars,
      int elementOffset,
      int elements,
      String continuationIfMore) {
    int textEnd = Math.min(o.text().length(), textOffset + textChars);
    int elementEnd = Math.min(o.elements().size(), elementOffset + elements);
    boolean moreText = textChars > 0 && textEnd < o.text().length();
    boolean moreElements = elements > 0 && elementEnd < o.elements().size();
    return new ObservationPage(
        o,
        mode,
        textOffset,
        o.text().substring(Math.min(textOffset, o.text().length()), textEnd),
        elementOffset,
        o.elements().subList(Math.min(elementOffset, o.elements().size()), elementEnd),
        moreText || moreElements ? continuationIfMore : null);
  }

  int textEnd() {
    return textOffset + text.length();
  }

  int elementEnd() {
    return elementOffset + elements.size();
  }

  /** More text remains in the retained observation, or the browser held more than it retained. */
  boolean textTruncated() {
    return textEnd() < observation.text().length() || observation.textTruncated();
  }

  boolean elementsTruncated() {
    return elementEnd() < observation.elements().size() || observation.elementsTruncated();
  }
}
