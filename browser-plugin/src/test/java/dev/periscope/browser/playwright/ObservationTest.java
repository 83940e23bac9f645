package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ranked, grouped and paged observations through the tools, on real Chromium and pages served on
 * 127.0.0.1.
 */
class ObservationTest {
  static LocalBrowser browser;
  static final Map<String, String> PAGES = new ConcurrentHashMap<>();
  static final Map<String, Boolean> SIGNALS = new ConcurrentHashMap<>();
  static final Map<String, CountDownLatch> ACKS = new ConcurrentHashMap<>();

  static void respond(com.sun.net.httpserver.HttpExchange exchange, String text)
      throws java.io.IOException {
    LocalBrowser.respond(exchange, text);
  }

  /** Tells the page to change itself, and waits until it has, while no tool call runs. */
  static void signal(String name) throws InterruptedException {
    CountDownLatch ack = ACKS.computeIfAbsent(name, k -> new CountDownLatch(1));
    SIGNALS.put(name, true);
    assertTrue(
        ack.await(20, java.util.concurrent.TimeUnit.SECONDS), "the page never changed: " + name);
  }

  static String listing(int records) {
    return listing(records, true);
  }

  /**
   * A listing of {@code records} records, each a title link, an author link, two format links and a
   * summary, with a search form, pagination and a footer. With {@code headings} each title link is
   * in a heading; without, the record's line reads "title by author [PDF] [PS]" and its summary is
   * a paragraph long.
   */
  static String listing(int records, boolean headings) {
    StringBuilder b =
        new StringBuilder(
            """
        <!doctype html><html><head><title>Papers</title></head><body>
        <header><nav><a href="/">Home</a> <a href="/about">About</a></nav>
        <form role="search"><input name="q" aria-label="Search papers"><button>Search</button></form></header>
        <p>Results for browsers.</p><ul class="results">""");
    for (int i = 1; i <= records; i++) {
      String title = "<a href=\"/paper/" + i + "\">Paper number " + i;
      String author = "<a href=\"/author/" + i + "\">Author " + i + "</a>";
      String formats = "<a href=\"/pdf/" + i + "\">PDF</a>] [<a href=\"/ps/" + i + "\">PS</a>";
      if (headings) {
        b.append("<li><h3>").append(title).append("</a></h3>").append(author).append(' ');
        b.append(formats.replace("] [", " ")).append("<p>Summary of paper ").append(i);
        b.append(" about browsing.</p></li>");
      } else {
        b.append("<li>").append(title).append(": how agents browse</a> by ").append(author);
        b.append(" [").append(formats).append("]<p>Summary of paper ").append(i);
        b.append(". We measure how software agents read and act on web pages, which parts of a");
        b.append(" page they need, and what they can leave out when a page is long.</p></li>");
      }
    }
    b.append(
            "</ul><div class=\"pages\"><a href=\"?p=1\">1</a> <a href=\"?p=2\">2</a> <a href=\"?p=3\">3</a>")
        .append(" <a href=\"?p=2\">Next</a></div>")
        .append("<p>See also <a href=\"/more\">more</a> reading.</p>")
        .append("<footer><a href=\"/legal\">Legal</a></footer></body></html>");
    return b.toString();
  }

  @BeforeAll
  static void start() throws Exception {
    PAGES.put("/list", listing(12));
    PAGES.put("/big", listing(300));
    PAGES.put("/shop", shop());
    StringBuilder mb = new StringBuilder(listing(20).replace("</body></html>", ""));
    while (mb.length() < 1_000_000) {
      mb.append("<p>").append("Filler prose about lighthouses. ".repeat(40)).append("</p>");
    }
    PAGES.put("/mb", mb.append("</body></html>").toString());
    PAGES.put(
        "/dl",
        """
        <!doctype html><html><body><dl>
        <dt><a href="/a">Alpha paper</a></dt><dd><a href="/a.pdf">pdf</a> <a href="/a.bib">bib</a></dd>
        <dt><a href="/b">Beta paper</a></dt><dd><a href="/b.pdf">pdf</a> <a href="/b.bib">bib</a></dd>
        <dt><a href="/c">Gamma paper</a></dt><dd><a href="/c.pdf">pdf</a> <a href="/c.bib">bib</a></dd>
        </dl></body></html>""");
    PAGES.put(
        "/delete",
        """
        <!doctype html><html><body><ul id="items">
        <li>Item A <button onclick="this.parentElement.remove(); window.deleted = (window.deleted||[]).concat('A')">Delete</button></li>
        <li>Item B <button onclick="this.parentElement.remove(); window.deleted = (window.deleted||[]).concat('B')">Delete</button></li>
        <li>Item C <button onclick="this.parentElement.remove(); window.deleted = (window.deleted||[]).concat('C')">Delete</button></li>
        </ul><p id="log"></p>
        <script>
          const insert = () => { const li = document.createElement('li');
            li.innerHTML = 'Item Z <button>Delete</button>'; document.getElementById('items').prepend(li); };
          const poll = () => fetch('/signal/insert').then(r => r.text()).then(t => {
            if (t === 'go') { insert(); fetch('/ack/insert'); } else { setTimeout(poll, 20); } });
          poll();
        </script></body></html>""");
    PAGES.put(
        "/replace",
        """
        <!doctype html><html><head><title>replace</title></head><body>
        <button id="b" onclick="document.title='pressed'">Save</button>
        <script>
          const poll = () => fetch('/signal/replace').then(r => r.text()).then(t => {
            if (t === 'go') { const b = document.getElementById('b'); b.replaceWith(b.cloneNode(true));
              fetch('/ack/replace'); }
            else { setTimeout(poll, 20); } });
          poll();
        </script></body></html>""");
    PAGES.put(
        "/rename",
        """
        <!doctype html><html><head><title>rename</title></head><body>
        <button id="b" onclick="document.title='pressed'">Save</button>
        <script>
          const poll = () => fetch('/signal/rename').then(r => r.text()).then(t => {
            if (t === 'go') { document.getElementById('b').textContent = 'Discard'; fetch('/ack/rename'); }
            else { setTimeout(poll, 20); } });
          poll();
        </script></body></html>""");
    PAGES.put(
        "/blocked-frame",
        """
        <!doctype html><html><head><title>Framed</title></head><body><p>Outside</p>
        <iframe src="file:///etc/passwd"></iframe>
        <iframe src="/inner"></iframe></body></html>""");
    PAGES.put(
        "/inner",
        "<!doctype html><html><head><title>inner</title></head><body><button>Inside</button></body></html>");
    browser =
        new LocalBrowser(
            PAGES,
            Map.of(
                "/signal/",
                    exchange ->
                        respond(
                            exchange,
                            SIGNALS.containsKey(exchange.getRequestURI().getPath().substring(8))
                                ? "go"
                                : "wait"),
                "/ack/",
                    exchange -> {
                      ACKS.computeIfAbsent(
                              exchange.getRequestURI().getPath().substring(5),
                              k -> new CountDownLatch(1))
                          .countDown();
                      respond(exchange, "ok");
                    }));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static String url(String path) {
    return browser.url(path);
  }

  static ToolResult call(String agent, String tool, Map<String, Object> args) {
    return browser.call(agent, tool, args);
  }

  static Map<String, Object> observation(ToolResult r) {
    return LocalBrowser.observation(r);
  }

  static List<Map<String, Object>> elements(ToolResult r) {
    return LocalBrowser.elements(r);
  }

  static List<String> names(ToolResult r) {
    return elements(r).stream().map(e -> (String) e.get("name")).toList();
  }

  @Test
  void rankingPutsControlsAndPaginationFirstThenNavigationThenRecordTitles() {
    ToolResult r = call("rank", "browser_open", Map.of("url", url("/list"), "mode", "interactive"));
    assertFalse(r.isError(), r.text());
    List<String> names = names(r);
    // First the bar at the top (its links and its form), then the main content's controls and
    // every paging link; then record titles; then body links; then the rest.
    assertEquals(
        List.of(
            "Home", "About", "Search papers", "Search", "1", "2", "3", "Next", "Paper number 1"),
        names.subList(0, 9));
    assertEquals("more", names.get(20));
    assertEquals("Legal", names.get(names.size() - 1));
    Map<String, Object> next = elements(r).get(7);
    assertEquals(true, next.get("pagination"));
    Map<String, Object> loneMore = elements(r).get(20);
    assertEquals(
        false,
        loneMore.getOrDefault("pagination", false),
        "a lone 'more' link is content, not pagination");
    Map<String, Object> title = elements(r).get(8);
    @SuppressWarnings("unchecked")
    var groups = (List<Map<String, Object>>) observation(r).get("groups");
    Map<String, Object> record =
        groups.stream()
            .filter(g -> g.get("ref").equals(title.get("group")))
            .findFirst()
            .orElseThrow();
    assertEquals(title.get("ref"), record.get("title_ref"), "the title link stands for its record");
    assertEquals("Summary of paper 1 about browsing.", record.get("detail"));
  }

  /**
   * A shop whose header is no landmark, with a menu button, a cart and an account link, 60 cards of
   * two buttons each, and a footer of 100 links.
   */
  static String shop() {
    StringBuilder b =
        new StringBuilder(
            "<!doctype html><html><head><title>Shop</title></head><body><div class=\"site-header\">"
                + "<button aria-label=\"Menu\">&#9776;</button> <a href=\"/cart\">Cart (2)</a>"
                + " <a href=\"/account\">Account</a></div><main><h1>All products</h1>");
    for (int i = 1; i <= 60; i++) {
      b.append("<div class=\"card\"><a href=\"/p/")
          .append(i)
          .append("\">Product ")
          .append(i)
          .append("</a> <span>$")
          .append(i)
          .append("</span><button>Add to cart</button><button>Save</button></div>");
    }
    b.append("</main><div class=\"footer\">");
    for (int i = 1; i <= 100; i++) {
      b.append("<a href=\"/info/").append(i).append("\">Footer link ").append(i).append("</a> ");
    }
    return b.append("</div></body></html>").toString();
  }

  @Test
  void theSummaryKeepsTheHeadersMenuCartAndAccountAheadOfEverythingElse() {
    ToolResult r = call("shop", "browser_open", Map.of("url", url("/shop")));
    List<String> names = names(r);
    assertEquals(List.of("Menu", "Cart (2)", "Account"), names.subList(0, 3), r.text());
    assertTrue(names.contains("Add to cart"), r.text());
    assertFalse(names.stream().anyMatch(n -> n.startsWith("Footer link")), r.text());
  }

  /** The elements of a group, the one that stands for it first. */
  static List<Map<String, Object>> members(ToolResult r, Map<String, Object> group) {
    List<Map<String, Object>> inside =
        new ArrayList<>(
            elements(r).stream().filter(e -> group.get("ref").equals(e.get("group"))).toList());
    inside.sort(java.util.Comparator.comparing(e -> !e.get("ref").equals(group.get("title_ref"))));
    return inside;
  }

  @Test
  void collapsesEachRecordsLinksUnderOneGroupAndTreatsADtDdPairAsOneRecord() {
    ToolResult list =
        call("group", "browser_open", Map.of("url", url("/list"), "mode", "interactive"));
    @SuppressWarnings("unchecked")
    var groups = (List<Map<String, Object>>) observation(list).get("groups");
    assertEquals(12, groups.size());
    assertEquals(
        "Summary of paper 1 about browsing.",
        groups.get(0).get("detail"),
        "the record's short line of other text, its title being its title link's name");
    assertEquals(4, members(list, groups.get(0)).size(), "title, author and two formats");
    assertTrue(list.text().contains("Records: 12"), list.text());

    ToolResult dl = call("group", "browser_open", Map.of("url", url("/dl"), "mode", "interactive"));
    @SuppressWarnings("unchecked")
    var papers = (List<Map<String, Object>>) observation(dl).get("groups");
    assertEquals(
        List.of("Alpha paper", "Beta paper", "Gamma paper"),
        papers.stream().map(g -> members(dl, g).get(0).get("name")).toList(),
        "each record is titled by its title link");
    assertEquals(3, members(dl, papers.get(0)).size(), "dt title plus dd's pdf and bib");
    assertEquals(
        List.of("Alpha paper", "Beta paper", "Gamma paper"),
        names(dl).subList(0, 3),
        "titles rank first");
  }

  @Test
  void modesChooseTiersAndText() {
    ToolResult summary = call("modes", "browser_open", Map.of("url", url("/list")));
    assertEquals("summary", observation(summary).get("mode"));
    // Tiers 1 to 3: no per-record link (tier 5) and no ordinary body link (tier 4).
    assertFalse(names(summary).contains("Author 1") || names(summary).contains("more"));
    assertTrue(names(summary).contains("Paper number 1"));
    assertTrue(((String) observation(summary).get("text")).startsWith("Home About"));
    ToolResult interactive = call("modes", "browser_observe", Map.of("mode", "interactive"));
    assertEquals("", observation(interactive).get("text"));
    assertTrue(
        interactive.text().contains("Page text: not included in interactive mode"),
        interactive.text());
    ToolResult document = call("modes", "browser_observe", Map.of("mode", "document"));
    // Tiers 1 and 2: no record title either.
    assertFalse(names(document).contains("Paper number 1") || names(document).contains("more"));
    assertTrue(names(document).contains("Search"));
    assertTrue(((String) observation(document).get("text")).contains("Summary of paper 12"));
    assertEquals(
        observation(document).get("total_elements"),
        observation(interactive).get("total_elements"),
        "every observation reports the page-wide element count");
  }

  @Test
  void pagesThroughOneObservationWithoutInvalidatingItsRefs() {
    ToolResult first =
        call(
            "paging",
            "browser_open",
            Map.of(
                "url",
                url("/list"),
                "mode",
                "interactive",
                "max_elements",
                20,
                "max_text_chars",
                100));
    String id = (String) observation(first).get("id");
    String continuation = (String) observation(first).get("continuation");
    assertTrue(
        first
            .text()
            .contains(
                "More remains. Call browser_observe_next with continuation \""
                    + continuation
                    + "\""));
    assertEquals(true, observation(first).get("elements_truncated"));
    List<String> seen = new ArrayList<>(names(first));
    ToolResult page = first;
    int pages = 1;
    while (observation(page).get("continuation") != null) {
      page =
          call(
              "paging",
              "browser_observe_next",
              Map.of("continuation", observation(page).get("continuation")));
      assertFalse(page.isError(), page.text());
      assertEquals(id, observation(page).get("id"), "paging re-observed the page");
      seen.addAll(names(page));
      pages++;
    }
    assertTrue(pages >= 3, "pages: " + pages);
    assertEquals(
        seen.size(),
        seen.stream().distinct().count()
            + seen.stream().filter("PDF"::equals).count()
            - (seen.contains("PDF") ? 1 : 0)
            + seen.stream().filter("PS"::equals).count()
            - (seen.contains("PS") ? 1 : 0),
        "an element was shown twice");
    assertTrue(seen.contains("Paper number 12") && seen.contains("Legal"));
    // A ref from the first page still acts on the observation the pages came from.
    String ref = (String) elements(first).get(1).get("ref");
    ToolResult click =
        call("paging", "browser_click", Map.of("observation_id", id, "element_ref", ref));
    assertFalse(click.isError(), click.text());

    ToolResult done = call("paging", "browser_observe_next", Map.of("continuation", "cursor-1"));
    assertTrue(done.text().contains("code=BROWSER_CONTINUATION_EXHAUSTED"), done.text());
  }

  @Test
  void aFrameWhoseDocumentNeverArrivesDoesNotHoldTheObservation() {
    ToolResult r = call("blocked-frame", "browser_open", Map.of("url", url("/blocked-frame")));
    assertFalse(r.isError(), r.text());
    assertTrue(names(r).contains("Inside"), r.text());
    ToolResult again = call("blocked-frame", "browser_observe", Map.of());
    assertTrue(names(again).contains("Inside"), again.text());
  }

  @Test
  void aNewerObservationSupersedesAnOlderContinuation() {
    ToolResult first =
        call("super", "browser_open", Map.of("url", url("/list"), "max_elements", 3));
    String old = (String) observation(first).get("continuation");
    ToolResult second = call("super", "browser_observe", Map.of("max_elements", 3));
    ToolResult stale = call("super", "browser_observe_next", Map.of("continuation", old));
    assertTrue(stale.isError());
    assertTrue(stale.text().contains("code=BROWSER_OBSERVATION_SUPERSEDED"), stale.text());
    assertFalse(
        call(
                "super",
                "browser_observe_next",
                Map.of("continuation", observation(second).get("continuation")))
            .isError());
  }

  @Test
  void keepsTheDefaultSummaryOfALargeListingSmallWithTheFormPaginationAndTitles() {
    ToolResult r = call("big", "browser_open", Map.of("url", url("/big")));
    assertTrue(
        r.text().length() <= 8000, "summary of 300 records is " + r.text().length() + " chars");
    List<String> names = names(r);
    assertTrue(
        names.containsAll(List.of("Search papers", "Search", "1", "2", "3", "Next")),
        names.toString());
    assertTrue(
        names.stream().filter(n -> n.startsWith("Paper number")).count() >= 10, names.toString());
    List<String> titles =
        new ArrayList<>(names.stream().filter(n -> n.startsWith("Paper number")).toList());
    ToolResult page = r;
    while (observation(page).get("continuation") != null) {
      page =
          call(
              "big",
              "browser_observe_next",
              Map.of("continuation", observation(page).get("continuation")));
      names(page).stream().filter(n -> n.startsWith("Paper number")).forEach(titles::add);
    }
    assertEquals(300, titles.stream().distinct().count(), "observe_next did not reach every title");
  }

  @Test
  void clicksTheVeryNodeObservedWhenAnIdenticalOneIsInsertedBeforeIt() throws Exception {
    ToolResult r =
        call("delete", "browser_open", Map.of("url", url("/delete"), "mode", "interactive"));
    String id = (String) observation(r).get("id");
    String bRef = (String) elements(r).get(1).get("ref");
    // A node inserted before the target after the observation: the ref still names item B's very
    // button, not whichever Delete button is second now.
    signal("insert");
    ToolResult click =
        call("delete", "browser_click", Map.of("observation_id", id, "element_ref", bRef));
    assertFalse(click.isError(), click.text());
    // The items are records, each told by its title in the list above the text.
    String text = call("delete", "browser_observe", Map.of("mode", "document")).text();
    assertTrue(
        text.contains("Item Z")
            && text.contains("Item A")
            && !text.contains("Item B")
            && text.contains("Item C"),
        "item B's button was pressed: " + text);
  }

  @Test
  void refusesToClickAnIdenticalButtonThatTookTheObservedOnesPlace() throws Exception {
    ToolResult r =
        call("replace", "browser_open", Map.of("url", url("/replace"), "mode", "interactive"));
    String id = (String) observation(r).get("id");
    String save = (String) elements(r).get(0).get("ref");
    signal("replace");
    ToolResult click =
        call("replace", "browser_click", Map.of("observation_id", id, "element_ref", save));
    assertTrue(click.text().contains("code=BROWSER_STALE_REFERENCE"), click.text());
    assertEquals(
        "replace",
        observation(call("replace", "browser_observe", Map.of())).get("title"),
        "the button that took its place was not pressed");
  }

  @Test
  void refusesAnElementWhoseTextChangedUnderTheSameRef() throws Exception {
    ToolResult r =
        call("rename", "browser_open", Map.of("url", url("/rename"), "mode", "interactive"));
    String id = (String) observation(r).get("id");
    String save = (String) elements(r).get(0).get("ref");
    signal("rename");
    ToolResult click =
        call("rename", "browser_click", Map.of("observation_id", id, "element_ref", save));
    assertTrue(click.text().contains("code=BROWSER_STALE_REFERENCE"), click.text());
    assertEquals(
        "rename",
        observation(call("rename", "browser_observe", Map.of())).get("title"),
        "the button was pressed");
  }

  @Test
  void reportsEachTruncationFlagAndTheTotalsOfAOneMegabytePage() {
    ToolResult page = call("mb", "browser_open", Map.of("url", url("/mb"), "mode", "document"));
    Map<String, Object> o = observation(page);
    assertTrue((int) o.get("total_text_chars") > 900_000, o.get("total_text_chars").toString());
    assertTrue(
        ((String) o.get("text")).length() <= 12_000, "a page of text holds 12,000 characters");
    assertEquals(true, o.get("text_truncated"));
    assertTrue(page.text().contains("Page text (1-12000 of "), page.text());
    assertTrue(
        page.text().length() < 20_000,
        "one page of a 1 MB page is " + page.text().length() + " chars");
    // Interactive mode on 300 records holds more elements than an observation retains: the last
    // page says so.
    ToolResult big =
        call(
            "mb",
            "browser_open",
            Map.of("url", url("/big"), "mode", "interactive", "max_elements", 100));
    assertEquals(
        false,
        observation(big).getOrDefault("text_truncated", false),
        "interactive mode shows no text by design: none of it was cut");
    assertFalse(
        big.text().contains("holds more") && !big.text().contains("More remains"),
        "the elements left out are named by a continuation: " + big.text());
    assertEquals("", observation(big).get("text"));
    assertEquals(true, observation(big).get("elements_truncated"));
    ToolResult last = big;
    while (observation(last).get("continuation") != null) {
      last =
          call(
              "mb",
              "browser_observe_next",
              Map.of("continuation", observation(last).get("continuation")));
    }
    assertEquals(
        true,
        observation(last).get("elements_truncated"),
        "the browser held more than was retained");
    assertTrue(
        last.text().contains("The page holds more than this observation retained"), last.text());
    assertTrue((int) observation(last).get("total_elements") > 1000);
  }
}
