package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.sun.net.httpserver.HttpServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * labels.js finds each element's labels once for the whole page and gives every element the labels
 * Chromium's own {@code el.labels} gives it, on every page of the corpus and on a page of the HTML
 * rules' corners; and a form-associated custom element, which has no {@code el.labels}, gets the
 * label whose control it is.
 */
class LabelsTest {
  static final String CORNERS =
      """
      <!doctype html><html><head><title>Labels</title></head><body>
      <label for="a">For a</label><input id="a">
      <label>Wrapping <input id="b"></label>
      <label>Wrapping two <input id="c1"><input id="c2"></label>
      <label for="d2">For d2, wrapping d1 <input id="d1"></label><input id="d2">
      <label for="e">One of two</label><label for="e">Two of two</label><textarea id="e"></textarea>
      <label for="f">For a div</label><div id="f">not labelable</div>
      <label for="nothing">For nothing</label>
      <label for="g">Hidden field</label><input id="g" type="hidden">
      <label for="h">Meter</label><meter id="h" value="0.5"></meter>
      <label>Output <output id="i">1</output></label>
      <label>Select <select id="j"><option>x</option></select></label>
      <label for="k">Button</label><button id="k">Go</button>
      <label for="inner">Outside the shadow root</label>
      <div id="host"></div>
      <label for="face">Custom</label><x-face id="face"></x-face>
      <script>
        const root = document.getElementById('host').attachShadow({ mode: 'open' });
        root.innerHTML = '<label for="inner">Inside</label><input id="inner"><label>Wrap <input></label>';
        customElements.define('x-face', class extends HTMLElement {
          static formAssociated = true;
          constructor() { super(); this.attachInternals(); }
        });
      </script></body></html>""";

  /** Every element of the page and its open shadow roots whose labels differ from Chromium's. */
  static final String COMPARE =
      """
      () => {
        const labelsOf = (__LABELS__)();
        const all = [];
        const walk = (root) => {
          for (const el of root.querySelectorAll('*')) {
            all.push(el);
            if (el.shadowRoot) walk(el.shadowRoot);
          }
        };
        walk(document);
        const say = (el) => el.localName + (el.id ? '#' + el.id : '');
        const differ = [];
        let labelled = 0;
        for (const el of all) {
          if (!('labels' in el)) continue;
          const want = Array.from(el.labels || []);
          const got = labelsOf(el);
          if (want.length) labelled++;
          if (want.length !== got.length || want.some((l, i) => l !== got[i])) {
            differ.push(say(el) + ': ' + want.map((l) => l.textContent).join('|') + ' vs '
              + got.map((l) => l.textContent).join('|'));
          }
        }
        return { elements: all.length, labelled, differ };
      }"""
          .replace("__LABELS__", PageScripts.script("labels"));

  static HttpServer server;
  static Playwright playwright;
  static Browser browser;

  @BeforeAll
  static void start() throws Exception {
    server = RawPlaywright.serve(Map.of("/corners", CORNERS));
    server.createContext(PageCorpus.ROOT, PageCorpus.handler());
    playwright = RawPlaywright.create();
    browser = RawPlaywright.launch(playwright);
  }

  @AfterAll
  static void stop() {
    browser.close();
    playwright.close();
    server.stop(0);
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> compare(Page page, String path) {
    page.navigate(url(path));
    return (Map<String, Object>) page.evaluate(COMPARE);
  }

  @Test
  void everyElementOfTheCornersPageHasChromiumsOwnLabels() {
    try (Page page = browser.newPage()) {
      Map<String, Object> r = compare(page, "/corners");
      assertEquals(List.of(), r.get("differ"));
      // a, b, c1, d2 (d1 is wrapped by a label for another), e, h, i, j, k, inner and the shadow
      // root's wrapped field: the corners are really there.
      assertEquals(11, ((Number) r.get("labelled")).intValue(), r.toString());
      Object face =
          page.evaluate(
              "() => ("
                  + PageScripts.script("labels")
                  + ")()(document.getElementById('face'))"
                  + ".map((l) => l.textContent)");
      assertEquals(List.of("Custom"), face);
    }
  }

  @Test
  void everyPageOfTheCorpusGivesEachElementChromiumsOwnLabels() {
    List<String> differ = new ArrayList<>();
    int labelled = 0;
    try (Page page = browser.newPage()) {
      for (String path : PageCorpus.htmlPages()) {
        Map<String, Object> r = compare(page, path);
        ((List<?>) r.get("differ")).forEach(d -> differ.add(path + " " + d));
        labelled += ((Number) r.get("labelled")).intValue();
      }
    }
    assertEquals(List.of(), differ);
    assertTrue(labelled >= 20, "labelled elements in the corpus: " + labelled);
  }
}
