package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Everything a person can click has a ref: elements without interactive semantics that a handler
 * (attribute, property or listener), a tabindex or a pointer cursor makes clickable are observed,
 * named from their text, deduplicated and clicked by ref, on pages that reproduce the patterns of
 * real sites. Real Chromium, pages on 127.0.0.1. Each page writes what a click did into {@code
 * #log}, which the click's after-observation shows.
 */
class ClickablesTest {
  static LocalBrowser browser;

  /** A page whose clicks write into #log. */
  static String page(String title, String body) {
    return "<!doctype html><html><head><title>"
        + title
        + "</title><style>.hand{cursor:pointer} .link{color:#06c;text-decoration:underline}</style>"
        + "</head><body>"
        + body
        + "<p id=\"log\">nothing yet</p><script>const log = (t) => {"
        + " document.getElementById('log').textContent = t; };</script></body></html>";
  }

  @BeforeAll
  static void start() throws Exception {
    Map<String, String> pages = new HashMap<>();
    pages.put(
        "/links",
        page(
            "links",
            """
            <p>Read the <span class="link" onclick="log('span link followed')">terms of use</span> first.</p>
            <p><a onclick="log('bare anchor followed')">Anchor without href</a></p>
            <p><span class="link" id="listened">Listened link</span></p>
            <script>document.getElementById('listened').addEventListener('click', () => log('listener link followed'));</script>
            """));
    pages.put(
        "/buttons",
        page(
            "buttons",
            """
            <div class="hand" style="display:inline-block;padding:6px;background:#eee" id="save"><span>Save draft</span></div>
            <div id="plain" style="padding:6px">Plain div with a listener</div>
            <div tabindex="0" id="tab">Focusable tile</div>
            <script>
              document.getElementById('save').addEventListener('click', () => log('draft saved'));
              document.getElementById('plain').addEventListener('mousedown', () => log('plain div pressed'));
              document.getElementById('tab').addEventListener('click', () => log('tile chosen'));
            </script>
            """));
    pages.put(
        "/overlay",
        page(
            "overlay",
            """
            <div id="cover" style="position:fixed;inset:0;background:#ddd;z-index:10;display:flex;align-items:center;justify-content:center">
              <div style="font-size:40px">START</div></div>
            <button id="go" onclick="log('go pressed')">Go</button>
            <script>document.getElementById('cover').addEventListener('click', (e) => {
              e.currentTarget.remove(); log('task started'); });</script>
            """));
    pages.put(
        "/tree",
        page(
            "tree",
            """
            <ul id="tree"><li><span class="folder">src</span><ul style="display:none">
              <li><span class="file">Main.java</span></li><li><span class="file">Util.java</span></li></ul></li>
            <li><span class="folder">docs</span><ul style="display:none"><li><span class="file">guide.md</span></li></ul></li></ul>
            <script>
              for (const f of document.querySelectorAll('.folder')) f.addEventListener('click', () => {
                f.nextElementSibling.style.display = ''; log('opened ' + f.textContent); });
              for (const f of document.querySelectorAll('.file')) f.addEventListener('click', () => log('selected ' + f.textContent));
            </script>
            """));
    pages.put(
        "/inbox",
        page(
            "inbox",
            """
            <div id="inbox">
              <div class="row hand" data-id="1"><b>Alice</b> Lunch on Friday? <span class="icon star" title="Star">&#9734;</span> <span class="icon trash" title="Delete">&#128465;</span></div>
              <div class="row hand" data-id="2"><b>Bob</b> Quarterly report <span class="icon star" title="Star">&#9734;</span> <span class="icon trash" title="Delete">&#128465;</span></div>
              <div class="row hand" data-id="3"><b>Carol</b> Holiday plans <span class="icon star" title="Star">&#9734;</span> <span class="icon trash" title="Delete">&#128465;</span></div>
            </div>
            <script>
              for (const row of document.querySelectorAll('.row')) {
                row.addEventListener('click', () => log('opened ' + row.querySelector('b').textContent));
                row.querySelector('.trash').addEventListener('click', (e) => { e.stopPropagation();
                  log('deleted ' + row.querySelector('b').textContent); row.remove(); });
                row.querySelector('.star').addEventListener('click', (e) => { e.stopPropagation();
                  log('starred ' + row.querySelector('b').textContent); });
              }
            </script>
            """));
    pages.put(
        "/autocomplete",
        page(
            "autocomplete",
            """
            <label for="fruit">Fruit</label> <input id="fruit" autocomplete="off">
            <ul id="menu" class="ui-menu" style="list-style:none;padding:0"></ul>
            <style>.ui-menu li { cursor: pointer; }</style>
            <script>
              const fruits = ['Apple', 'Apricot', 'Avocado', 'Banana'];
              const menu = document.getElementById('menu');
              document.getElementById('fruit').addEventListener('input', (e) => {
                menu.innerHTML = '';
                for (const f of fruits.filter((f) => f.toLowerCase().startsWith(e.target.value.toLowerCase()))) {
                  const li = document.createElement('li'); li.className = 'ui-menu-item';
                  const a = document.createElement('a'); a.tabIndex = -1; a.textContent = f; li.append(a); menu.append(li);
                }
              });
              // The menu delegates its items' clicks, as jQuery UI's does.
              menu.addEventListener('click', (e) => { const li = e.target.closest('li');
                if (li) { document.getElementById('fruit').value = li.textContent; menu.innerHTML = '';
                  log('chose ' + li.textContent); } });
            </script>
            """));
    pages.put(
        "/datepicker",
        page(
            "datepicker",
            """
            <input id="date" aria-label="Date">
            <div id="picker"><a class="prev" title="Prev"><span class="icon">Prev</span></a> <span id="month">March 2026</span>
              <a class="next" title="Next"><span class="icon">Next</span></a>
              <table><tr><td><a class="day">14</a></td><td><a class="day">15</a></td><td><a class="day">16</a></td></tr></table></div>
            <style>#picker a { cursor: pointer; }</style>
            <script>
              const months = ['January 2026', 'February 2026', 'March 2026', 'April 2026'];
              let m = 2;
              const show = () => { document.getElementById('month').textContent = months[m]; };
              document.querySelector('.prev').addEventListener('click', () => { m--; show(); log('month ' + months[m]); });
              document.querySelector('.next').addEventListener('click', () => { m++; show(); log('month ' + months[m]); });
              for (const d of document.querySelectorAll('.day')) d.addEventListener('click', () => {
                document.getElementById('date').value = months[m] + ' ' + d.textContent; log('picked ' + d.textContent); });
            </script>
            """));
    StringBuilder feed = new StringBuilder();
    for (int i = 1; i <= 5; i++) {
      feed.append("<div class=\"card\"><h4>Post ")
          .append(i)
          .append("</h4><p>Something worth sharing, number ")
          .append(i)
          .append(".</p><div class=\"actions\"><span class=\"act\" data-act=\"Like\">Like</span>")
          .append(" <span class=\"act\" data-act=\"Reply\">Reply</span>")
          .append(" <span class=\"act\" data-act=\"Share\">Share</span></div></div>");
    }
    pages.put(
        "/feed",
        page(
            "feed",
            feed
                + """
                <style>.act { cursor: pointer; }</style>
                <script>
                  document.addEventListener('click', (e) => { const a = e.target.closest('.act');
                    if (a) log(a.dataset.act + ' on ' + a.closest('.card').querySelector('h4').textContent); });
                </script>
                """));
    pages.put(
        "/covered",
        page(
            "covered",
            """
            <button id="pay" onclick="log('paid')">Pay now</button>
            <label><input type="checkbox" id="remember"> Remember me</label>
            <div id="banner" style="position:fixed;top:0;left:0;right:0;height:120px;background:#fc0;z-index:5">
              We use cookies. <button onclick="document.getElementById('banner').remove(); log('cookies accepted')">Accept cookies</button></div>
            """));
    pages.put(
        "/quiet",
        page(
            "quiet",
            """
            <button id="a" class="hand">Alpha</button> <span class="hand" id="s">Beta</span>
            <script>
              let mutations = 0;
              addEventListener('load', () => new MutationObserver((list) => { mutations += list.length; }).observe(document,
                { attributes: true, childList: true, subtree: true, characterData: true }));
              document.getElementById('s').addEventListener('click', () => { document.title = 'mutations seen: ' + mutations; });
            </script>
            """));
    pages.put(
        "/sticky",
        page(
            "sticky",
            """
            <header style="position:fixed;top:0;left:0;right:0;height:90px;background:#fff;z-index:3">Site header</header>
            <div style="height:1000px"></div><button id="under" onclick="log('under pressed')">Under the header</button>
            <div style="height:3000px"></div>
            <script>addEventListener('load', () => window.scrollTo(0, 980));</script>
            """));
    pages.put(
        "/late",
        page(
            "late",
            """
            <div id="first">First tile</div><div id="second">Second tile</div>
            <button onclick="document.getElementById('second').addEventListener('click', () => log('second chosen'))">Arm the second</button>
            <button onclick="document.getElementById('first').removeEventListener('click', chooseFirst)">Disarm the first</button>
            <script>function chooseFirst() { log('first chosen'); }
            document.getElementById('first').addEventListener('click', chooseFirst);</script>
            """));
    pages.put(
        "/regions",
        page(
            "regions",
            """
            <div id="root"><div tabindex="0" id="region" style="height:600px">Latest news.
            LINKS</div>
            <label><input type="checkbox"> Remember for <input type="password" role="spinbutton" value="canary-7f3a"> days</label></div>
            <script>document.getElementById('root').onclick = () => {};</script>
            """
                .replace("LINKS", REGION_LINKS)));
    // An action timeout far above what a refusal takes, so that "fast" is not a race with the
    // machine.
    browser =
        new LocalBrowser(
            pages,
            Map.of(),
            dev.periscope.browser.runtime.CredentialChannel.none(),
            LocalBrowser.withLoopback(Map.of("actionTimeoutMs", ACTION_TIMEOUT_MS)));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static final int ACTION_TIMEOUT_MS = 60_000;

  static final String REGION_LINKS =
      "<a href=\"/a0\">Article 0</a> <a href=\"/a1\">Article 1</a> <a href=\"/a2\">Article 2</a> <a href=\"/a3\">Article 3</a> <a href=\"/a4\">Article 4</a> <a href=\"/a5\">Article 5</a> <a href=\"/a6\">Article 6</a> <a href=\"/a7\">Article 7</a> <a href=\"/a8\">Article 8</a> <a href=\"/a9\">Article 9</a> <a href=\"/a10\">Article 10</a> <a href=\"/a11\">Article 11</a> ";

  static ToolResult open(String agent, String path) {
    ToolResult r =
        browser.call(
            agent, "browser_open", Map.of("url", browser.url(path), "mode", "interactive"));
    assertFalse(r.isError(), r.text());
    return r;
  }

  static ToolResult click(String agent, ToolResult seen, String name) {
    return browser.call(agent, "browser_click", LocalBrowser.target(seen, name));
  }

  /** Clicks the element named {@code name} and expects #log to say {@code effect} afterwards. */
  static ToolResult clickFor(String agent, ToolResult seen, String name, String effect) {
    ToolResult r = click(agent, seen, name);
    assertFalse(r.isError(), r.text());
    ToolResult after = browser.call(agent, "browser_observe", Map.of("mode", "document"));
    assertTrue(
        after.text().contains(effect),
        "expected '" + effect + "' after clicking " + name + ":\n" + after.text());
    return after;
  }

  static ToolResult interactive(String agent) {
    ToolResult r = browser.call(agent, "browser_observe", Map.of("mode", "interactive"));
    assertFalse(r.isError(), r.text());
    return r;
  }

  static Map<String, Object> element(ToolResult r, String name) {
    return LocalBrowser.element(r, name);
  }

  static List<String> names(ToolResult r) {
    return LocalBrowser.elements(r).stream().map(e -> (String) e.get("name")).toList();
  }

  @Test
  void spanLinksAndAnchorsWithoutHrefAreLinksAClickFollows() {
    ToolResult r = open("links", "/links");
    assertEquals("link", element(r, "terms of use").get("role"), r.text());
    assertEquals("clickable span", element(r, "terms of use").get("kind"));
    assertEquals("link", element(r, "Anchor without href").get("role"));
    assertEquals("link", element(r, "Listened link").get("role"));
    clickFor("links", r, "terms of use", "span link followed");
    clickFor("links", interactive("links"), "Anchor without href", "bare anchor followed");
    clickFor("links", interactive("links"), "Listened link", "listener link followed");
  }

  @Test
  void divsWithAHandlerAPointerOrATabindexAreButtonsOnceEach() {
    ToolResult r = open("buttons", "/buttons");
    assertEquals("button", element(r, "Save draft").get("role"), r.text());
    assertEquals(
        1,
        names(r).stream().filter("Save draft"::equals).count(),
        "the div and the span inside it that inherits its pointer are one target: " + r.text());
    assertEquals("button", element(r, "Plain div with a listener").get("role"));
    assertEquals("button", element(r, "Focusable tile").get("role"));
    clickFor("buttons", r, "Save draft", "draft saved");
    clickFor("buttons", interactive("buttons"), "Plain div with a listener", "plain div pressed");
    clickFor("buttons", interactive("buttons"), "Focusable tile", "tile chosen");
    assertTrue(
        names(browser.call("buttons", "browser_observe", Map.of("mode", "document")))
            .contains("Save draft"),
        "ranked with the buttons, which a document observation lists, not with body links");
  }

  @Test
  void aFullPageStartOverlayIsClickedAndWhatItCoversIsMarkedAndRefusedFast() {
    ToolResult r = open("overlay", "/overlay");
    assertEquals(true, element(r, "Go").get("covered"), r.text());
    assertTrue(r.text().contains("covered — Go"), r.text());
    long start = System.nanoTime();
    ToolResult refused = click("overlay", r, "Go");
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertTrue(refused.isError(), refused.text());
    assertTrue(refused.text().contains("BROWSER_TARGET_COVERED"), refused.text());
    String startRef = (String) element(r, "START").get("ref");
    assertTrue(
        refused.text().contains("START") && refused.text().contains("[" + startRef + "]"),
        "names what covers it, with its ref: " + refused.text());
    assertTrue(
        tookMs < ACTION_TIMEOUT_MS / 4,
        "failed without waiting for the action timeout (" + ACTION_TIMEOUT_MS + " ms): " + tookMs);
    System.out.println("covered click refused in " + tookMs + " ms");
    ToolResult after = clickFor("overlay", interactive("overlay"), "START", "task started");
    clickFor("overlay", interactive("overlay"), "Go", "go pressed");
    assertFalse(after.isError());
  }

  @Test
  void treeNodesOpenAndTheirChildrenAreClickable() {
    ToolResult r = open("tree", "/tree");
    assertTrue(names(r).containsAll(List.of("src", "docs")), r.text());
    assertFalse(names(r).contains("Main.java"), "hidden until its folder opens: " + r.text());
    clickFor("tree", r, "src", "opened src");
    clickFor("tree", interactive("tree"), "Util.java", "selected Util.java");
  }

  @Test
  void inboxRowsAndTheirIconsAreSeparateTargets() {
    ToolResult r = open("inbox", "/inbox");
    List<String> names = names(r);
    assertEquals(3, names.stream().filter("Delete"::equals).count(), r.text());
    assertEquals(3, names.stream().filter("Star"::equals).count(), r.text());
    assertTrue(names.stream().anyMatch(n -> n.startsWith("Bob Quarterly report")), r.text());
    clickFor(
        "inbox",
        r,
        names.stream().filter(n -> n.startsWith("Bob")).findFirst().get(),
        "opened Bob");
    ToolResult again = interactive("inbox");
    @SuppressWarnings("unchecked")
    Map<String, Object> secondDelete =
        LocalBrowser.elements(again).stream()
            .filter(e -> "Delete".equals(e.get("name")))
            .skip(1)
            .findFirst()
            .orElseThrow();
    ToolResult deleted =
        browser.call(
            "inbox",
            "browser_click",
            Map.of(
                "observation_id",
                LocalBrowser.observation(again).get("id"),
                "element_ref",
                secondDelete.get("ref")));
    assertFalse(deleted.isError(), deleted.text());
    ToolResult after = browser.call("inbox", "browser_observe", Map.of("mode", "document"));
    assertTrue(after.text().contains("deleted Bob"), after.text());
  }

  @Test
  void autocompleteSuggestionsDelegatedToTheirMenuAreChosenByRef() {
    ToolResult r = open("auto", "/autocomplete");
    ToolResult typed =
        browser.call(
            "auto",
            "browser_fill",
            new HashMap<>(
                Map.of(
                    "observation_id",
                    LocalBrowser.observation(r).get("id"),
                    "element_ref",
                    element(r, "Fruit").get("ref"),
                    "value",
                    "Ap")));
    assertFalse(typed.isError(), typed.text());
    ToolResult menu = interactive("auto");
    assertTrue(names(menu).containsAll(List.of("Apple", "Apricot")), menu.text());
    assertFalse(
        names(menu).stream().anyMatch(n -> n.contains("Apple Apricot")),
        "the menu that delegates its items' clicks is not a target of its own: " + menu.text());
    clickFor("auto", menu, "Apricot", "chose Apricot");
  }

  @Test
  void datePickerArrowsAndDaysWithoutHrefAreClickable() {
    ToolResult r = open("date", "/datepicker");
    clickFor("date", r, "Prev", "month February 2026");
    clickFor("date", interactive("date"), "15", "picked 15");
  }

  @Test
  void aFeedWhoseActionsAreSpansListsEveryAction() {
    ToolResult r = open("feed", "/feed");
    assertEquals(5, names(r).stream().filter("Like"::equals).count(), r.text());
    assertEquals(5, names(r).stream().filter("Share"::equals).count(), r.text());
    @SuppressWarnings("unchecked")
    Map<String, Object> thirdShare =
        LocalBrowser.elements(r).stream()
            .filter(e -> "Share".equals(e.get("name")))
            .skip(2)
            .findFirst()
            .orElseThrow();
    ToolResult shared =
        browser.call(
            "feed",
            "browser_click",
            Map.of(
                "observation_id",
                LocalBrowser.observation(r).get("id"),
                "element_ref",
                thirdShare.get("ref")));
    assertFalse(shared.isError(), shared.text());
    ToolResult after = browser.call("feed", "browser_observe", Map.of("mode", "document"));
    assertTrue(after.text().contains("Share on Post 3"), after.text());
  }

  @Test
  void aCoveredButtonIsMarkedRefusedWithItsCoverAndClickableOnceUncovered() {
    ToolResult r = open("covered", "/covered");
    assertEquals(true, element(r, "Pay now").get("covered"), r.text());
    assertEquals(false, element(r, "Accept cookies").getOrDefault("covered", false), r.text());
    ToolResult refused = click("covered", r, "Pay now");
    assertTrue(refused.text().contains("BROWSER_TARGET_COVERED"), refused.text());
    assertTrue(refused.text().contains("recommended_action=browser_click"), refused.text());
    @SuppressWarnings("unchecked")
    Map<String, Object> error = (Map<String, Object>) refused.structured().get("error");
    assertEquals("valid", error.get("observation"), "nothing happened: the refs still hold");
    Map<String, Object> check = new HashMap<>(LocalBrowser.target(r, "Remember me"));
    check.put("checked", true);
    ToolResult unchecked = browser.call("covered", "browser_check", check);
    assertTrue(unchecked.text().contains("BROWSER_TARGET_COVERED"), unchecked.text());
    ToolResult unhovered =
        browser.call("covered", "browser_hover", LocalBrowser.target(r, "Pay now"));
    assertTrue(unhovered.text().contains("which would take the pointer"), unhovered.text());
    clickFor("covered", r, "Accept cookies", "cookies accepted");
    clickFor("covered", interactive("covered"), "Pay now", "paid");
  }

  @Test
  void listenersAddedOrRemovedBetweenObservationsAreSeenByTheNext() {
    ToolResult r = open("late", "/late");
    assertTrue(names(r).contains("First tile"), r.text());
    assertFalse(names(r).contains("Second tile"), r.text());
    ToolResult armed = click("late", r, "Arm the second");
    assertFalse(armed.isError(), armed.text());
    ToolResult seen = interactive("late");
    assertTrue(names(seen).containsAll(List.of("First tile", "Second tile")), seen.text());
    clickFor("late", seen, "Second tile", "second chosen");
    ToolResult disarmed = click("late", interactive("late"), "Disarm the first");
    assertFalse(disarmed.isError(), disarmed.text());
    ToolResult after = interactive("late");
    assertFalse(names(after).contains("First tile"), after.text());
    assertTrue(names(after).contains("Second tile"), after.text());
  }

  @Test
  void observingWritesNothingIntoThePage() {
    ToolResult r = open("quiet", "/quiet");
    interactive("quiet");
    clickFor("quiet", interactive("quiet"), "Beta", "Title: mutations seen: 0");
    assertTrue(names(r).contains("Alpha"), r.text());
  }

  @Test
  void anElementUnderAStickyHeaderIsScrolledClearOfItAndClicked() {
    ToolResult r = open("sticky", "/sticky");
    clickFor("sticky", r, "Under the header", "under pressed");
  }

  @Test
  void aFrameworksRootOrARegionWithATabindexIsNotATargetOfItsOwn() {
    ToolResult r = open("regions", "/regions");
    assertTrue(names(r).contains("Article 11"), r.text());
    assertFalse(
        names(r).stream().anyMatch(n -> n.startsWith("Latest news")),
        "the region holds a dozen links: " + r.text());
    assertEquals(
        12 + 1 + 1,
        names(r).size(),
        "the links, the checkbox and the spin button, no container: " + r.text());
    assertFalse(r.text().contains("canary-7f3a"), "a password's value is in no name: " + r.text());
  }

  @Test
  void interactiveModeSaysThePageHoldsMoreOnlyWhenSomethingWasLeftOut() {
    ToolResult r = open("flag", "/buttons");
    assertFalse(r.text().contains("holds more"), r.text());
    assertEquals(false, LocalBrowser.observation(r).getOrDefault("elements_truncated", false));
  }
}
