package dev.periscope.browser.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.periscope.api.browser.Observation.ObservedElement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the element list shows is not shown again in the page text below it. */
class RenderingTest {
  static ObservedElement element(String ref, String name) {
    return new ObservedElement(
        ref, "a", "link", name, false, null, 2, false, "main", null, "", false);
  }

  @Test
  void aTextLineThatIsAListedElementsNameBecomesItsRef() {
    String text = "Results\n\nPaper number 1\nAuthor 1 PDF PS\n  Paper number 2  \nSummary";
    assertEquals(
        "Results\n\n[e9]\nAuthor 1 PDF PS\n[e10]\nSummary",
        Rendering.withRefs(
            text, List.of(element("e9", "Paper number 1"), element("e10", "Paper number 2"))));
  }

  @Test
  void sharedAndShortNamesAndPartsOfLinesStayText() {
    String text = "Download PDF\nNext\nRead the terms of use first.\nDownload PDF";
    assertEquals(
        text,
        Rendering.withRefs(
            text,
            List.of(
                element("e1", "Download PDF"),
                element("e2", "Download PDF"),
                element("e3", "Next"),
                element("e4", "terms of use"))));
  }
}
