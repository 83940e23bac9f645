package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.periscope.api.tool.ToolResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No text is said twice in one observation: a line of the page's text that is a listed element's or
 * record's own words shows its ref, and a record is told by its title and one short line, not all
 * of its text. Checked on every page of the corpus and on two shapes of a 300-record listing; and
 * the structured form stays within 1.5 times the text.
 */
class NothingTwiceTest {
  static LocalBrowser browser;

  /** A form page: every kind of field, filled in part, with labels and help text. */
  static final String FORM =
      """
      <!doctype html><html><head><title>Checkout</title></head><body><h1>Checkout</h1>
      <form><fieldset><legend>Shipping</legend>
      <p><label for="n">Full name</label><input id="n" value="Grace Hopper" required></p>
      <p><label for="e">Email</label><input id="e" type="email" required>
      <small>We send the receipt here.</small></p>
      <p><label for="a">Address</label><textarea id="a">1 Navy Way</textarea></p>
      <p><label for="c">Country</label><select id="c"><option>Norway</option><option selected>Peru</option>
      <option>Japan</option></select></p>
      <p><label><input type="checkbox" checked> Gift wrap</label>
      <label><input type="radio" name="s" checked> Standard</label>
      <label><input type="radio" name="s"> Express</label></p></fieldset>
      <button>Place order</button> <a href="/cart">Back to cart</a></form></body></html>""";

  @BeforeAll
  static void start() throws Exception {
    browser =
        new LocalBrowser(
            Map.of(
                "/listing",
                ObservationTest.listing(300),
                "/listing-without-headings",
                ObservationTest.listing(300, false),
                "/form",
                FORM),
            Map.of("/pages/", PageCorpus.handler()));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  private static final Pattern ELEMENT =
      Pattern.compile("^\\s+(?:\\[g\\d+\\] )?\\[e\\d+\\] .*? — (.*)$");
  private static final Pattern RECORD = Pattern.compile("^  \\[g\\d+\\] (?!\\[e)(.*)$");

  /**
   * What the rendering says twice: a line of its page text (not a ref) that is the name of an
   * element listed above it, or a record's title or its line of other text.
   */
  static List<String> saidTwice(String rendering) {
    int textStart = rendering.indexOf("\nPage text (");
    if (textStart < 0) {
      return List.of();
    }
    Set<String> listed = new HashSet<>();
    for (String line : rendering.substring(0, textStart).split("\n")) {
      Matcher e = ELEMENT.matcher(line);
      Matcher g = RECORD.matcher(line);
      String said = e.matches() ? e.group(1) : g.matches() ? g.group(1) : null;
      if (said == null) {
        continue;
      }
      // A name, then its state or hints in brackets; a record's title, then " · " and its line.
      said =
          said.replaceAll(
              " \\((?:icon|not its name|checked|unchecked|collapsed|expanded|selected|current|required|filled|mixed|pressed|not pressed|read-only|invalid)[^)]*\\)",
              "");
      said = said.replaceAll(" = .*$", "");
      for (String part : said.split(" · ")) {
        if (part.length() >= 4 && !part.equals("(unnamed)")) {
          listed.add(part.strip());
        }
      }
    }
    List<String> twice = new ArrayList<>();
    String text = rendering.substring(rendering.indexOf('\n', textStart + 1) + 1);
    List<String> lines = List.of(text.split("\n")).stream().map(String::strip).toList();
    for (String line : lines) {
      // A line the page itself shows more than once may be an element's or other text: which is
      // which cannot be told from the words alone, and both stay text.
      if (listed.contains(line) && java.util.Collections.frequency(lines, line) == 1) {
        twice.add(line);
      }
    }
    return twice;
  }

  @Test
  void noPageOfTheCorpusSaysAnythingTwice() throws Exception {
    List<String> failures = new ArrayList<>();
    List<String> pages = new ArrayList<>(PageCorpus.htmlPages());
    pages.addAll(List.of("/form", "/listing", "/listing-without-headings"));
    for (String page : pages) {
      for (String mode : List.of("summary", "document")) {
        ToolResult r =
            browser.call("twice", "browser_open", Map.of("url", browser.url(page), "mode", mode));
        assertFalse(r.isError(), r.text());
        List<String> twice = saidTwice(r.text());
        if (!twice.isEmpty()) {
          failures.add(page + " (" + mode + "): " + twice);
        }
      }
    }
    assertEquals(List.of(), failures);
  }

  @Test
  void aListingWithoutHeadingsSaysEachSummaryOnceAndKeepsItsSummarySmall() {
    ToolResult r =
        browser.call(
            "listing", "browser_open", Map.of("url", browser.url("/listing-without-headings")));
    String text = r.text();
    assertTrue(text.length() <= 8_000, "the summary is " + text.length() + " chars");
    List<String> names = LocalBrowser.names(r);
    assertTrue(
        names.containsAll(List.of("Search papers", "Search", "1", "2", "3", "Next")),
        names.toString());
    assertTrue(names.stream().filter(n -> n.startsWith("Paper number")).count() >= 10, text);
    for (int i = 1; i <= 12; i++) {
      String summary = "Summary of paper " + i + ". We measure";
      int count = text.split(Pattern.quote(summary), -1).length - 1;
      assertTrue(count <= 1, summary + " is said " + count + " times:\n" + text);
    }
    assertEquals(List.of(), saidTwice(text));
    Set<String> titles = new HashSet<>();
    ToolResult page = r;
    while (true) {
      LocalBrowser.names(page).stream()
          .filter(n -> n.startsWith("Paper number"))
          .forEach(titles::add);
      Object next = LocalBrowser.observation(page).get("continuation");
      if (next == null) {
        break;
      }
      page = browser.call("listing", "browser_observe_next", Map.of("continuation", next));
    }
    assertEquals(300, titles.size(), "paging reaches every title");
  }

  @Test
  void theStructuredFormIsAtMostHalfAgainTheTextsSize() throws Exception {
    ObjectMapper json = new ObjectMapper();
    for (String path :
        List.of("/listing", "/listing-without-headings", "/pages/bootstrap/forms.html")) {
      ToolResult r = browser.call("size", "browser_open", Map.of("url", browser.url(path)));
      int text = r.text().length();
      int structured = json.writeValueAsString(r.structured()).length();
      assertTrue(
          structured <= 1.5 * text,
          path + ": structured " + structured + " chars against the text's " + text);
      String all = json.writeValueAsString(r.structured());
      assertFalse(
          all.contains("\"disabled\":false")
              || all.contains("\"covered\":false")
              || all.contains("\"pagination\":false"),
          "defaults are left out: " + all);
    }
  }
}
