package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.PlaywrightException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import dev.periscope.api.tool.ToolResult;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Accessible names against the WPT accname suite (its {@code data-expectedlabel} tests and the
 * expectations of its manual ATTAcomm tests), through the observation itself, with Playwright's own
 * name of each element as a reference; and the hint an unnamed field gets, as the tools render it.
 * The suite is a copy in the test resources ({@code corpora/wpt-accname}), served on 127.0.0.1, its
 * harness scripts answered by stubs.
 */
class AccessibleNamesTest {
  private static final Path CORPUS = corpus();

  private static Path corpus() {
    try {
      return Path.of(
              AccessibleNamesTest.class.getResource("/corpora/wpt-accname/LICENSE.md").toURI())
          .getParent();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The harness scripts the suite's pages load: stubs that run nothing and record what to test. */
  private static final Map<String, String> STUBS =
      Map.of(
          "/resources/testharness.js",
          "window.setup = () => {}; window.test = () => {}; window.promise_test = () => {};"
              + " window.done = () => {};",
          "/resources/testharnessreport.js",
          "",
          "/resources/testdriver.js",
          "",
          "/resources/testdriver-vendor.js",
          "",
          "/resources/testdriver-actions.js",
          "",
          "/wai-aria/scripts/ATTAcomm.js",
          "window.ATTAcomm = function (spec) { window.__attacomm = spec; };",
          "/wai-aria/scripts/aria-utils.js",
          "window.AriaUtils = new Proxy({}, { get: () => () => {} });");

  /**
   * Every element under test on the page: its expectation, how to find it again (its index among
   * the elements with an expected label, or its id), and names.js's name for it, computed directly.
   */
  private static final String CASES =
      """
      () => {
        const NAMES = __NAMES__;
        let cases;
        if (window.__attacomm) {
          cases = window.__attacomm.steps.filter((s) => s.type === 'test').map((s) => {
            const atk = Object.values(s.test).flat().find((a) => a[0] === 'property'
              && ['name', 'accName', 'AXDescription', 'Name'].includes(a[1]) && a[2] === 'is');
            return atk ? { el: document.getElementById(s.element), expected: atk[3], id: s.element,
              title: s.title } : null;
          }).filter((c) => c);
        } else {
          cases = Array.from(document.querySelectorAll('[data-expectedlabel]')).map((el, index) => ({
            el, expected: el.getAttribute('data-expectedlabel'), index,
            title: el.getAttribute('data-testname') }));
        }
        return cases.map((c) => ({ expected: c.expected, title: c.title || '',
          index: c.index === undefined ? -1 : c.index, id: c.id || '',
          direct: c.el ? NAMES.name(c.el) : '' }));
      }""";

  record Outcome(
      String file, String title, String expected, boolean listed, String ours, String playwright) {
    boolean oursMatch() {
      return norm(ours).equals(norm(expected));
    }

    boolean playwrightMatches() {
      return norm(playwright).equals(norm(expected));
    }
  }

  static String norm(String s) {
    return s == null ? "\u0000none" : s.replaceAll("[ \\t\\n\\f\\r]+", " ").strip();
  }

  static String namesScript() {
    return "(" + PageScripts.script("names") + ")()";
  }

  static HttpServer server;
  static Path driverDir;
  static Playwright playwright;
  static Browser browser;

  @BeforeAll
  static void start() throws IOException {
    server = corpusServer();
    driverDir = Files.createTempDirectory("accessible-names-");
    playwright = playwright(driverDir);
    browser = RawPlaywright.launch(playwright);
  }

  @AfterAll
  static void stop() {
    try {
      if (playwright != null) {
        playwright.close();
      }
    } finally {
      server.stop(0);
      PlaywrightProvider.deleteTree(driverDir);
    }
  }

  static String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
  }

  @Test
  void namesFollowTheAccessibleNameComputationOfTheWptAccnameSuite() throws Exception {
    assertTrue(Files.isDirectory(CORPUS.resolve("accname")), "no WPT accname corpus at " + CORPUS);
    long started = System.nanoTime();
    List<String> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(CORPUS.resolve("accname/name"))) {
      walk.filter(p -> p.toString().endsWith(".html"))
          .map(p -> CORPUS.relativize(p).toString())
          .sorted()
          .forEach(files::add);
    }
    try (Stream<Path> manual = Files.list(CORPUS.resolve("accname/manual"))) {
      manual
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("name_") && n.endsWith(".html"))
          .sorted()
          .forEach(n -> files.add("accname/manual/" + n));
    }
    String cases = CASES.replace("__NAMES__", namesScript());
    List<Outcome> outcomes = new ArrayList<>();
    try (Page page = browser.newPage()) {
      page.setDefaultTimeout(10_000);
      for (String file : files) {
        page.navigate(base() + file);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> found = (List<Map<String, Object>>) page.evaluate(cases);
        ProviderObservation observed =
            PageScripts.observe(
                page,
                "__names_test",
                new ObservationBudget(0, 10_000),
                new ArrayList<>(),
                guardsRead -> {});
        Map<Integer, String> listed = new HashMap<>();
        for (ProviderElement e : observed.elements()) {
          if (!e.target().contains("|")) {
            listed.put(Integer.parseInt(e.target()), e.name());
          }
        }
        // Each element under test by its identity in the observation's registry (0: never
        // observed).
        @SuppressWarnings("unchecked")
        List<Number> identities =
            (List<Number>)
                page.evaluate(
                    "([key, cases]) => cases.map((c) => { const el = c.index >= 0"
                        + " ? document.querySelectorAll('[data-expectedlabel]')[c.index]"
                        + " : document.getElementById(c.id);"
                        + " return (el && window[key].ids.get(el)) || 0; })",
                    List.of("__names_test", found));
        for (int i = 0; i < found.size(); i++) {
          Map<String, Object> c = found.get(i);
          int identity = identities.get(i).intValue();
          int index = ((Number) c.get("index")).intValue();
          Locator locator =
              index >= 0
                  ? page.locator("[data-expectedlabel]").nth(index)
                  : page.locator("[id=\"" + c.get("id") + "\"]").first();
          boolean isListed = listed.containsKey(identity);
          outcomes.add(
              new Outcome(
                  file,
                  (String) c.get("title"),
                  (String) c.get("expected"),
                  isListed,
                  isListed ? listed.get(identity) : (String) c.get("direct"),
                  playwrightName(locator)));
        }
      }
      assertNothingWritten(page, base() + "accname/name/comp_name_from_content.html", cases);
    }
    report(outcomes, (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * A page of a thousand links and two hundred fields (most of them unnamed, in table rows): every
   * candidate named and every field hinted in one evaluation, as an observation does. Prints the
   * time it took; asserts none.
   */
  @Test
  void namesAndHintsEveryCandidateOfALargePageInOneEvaluation() throws Exception {
    StringBuilder form = new StringBuilder("<form><table>");
    for (int i = 0; i < 100; i++) {
      form.append("<tr><td>Field ").append(i).append("</td><td><input name=f").append(i);
      form.append("></td><td><input type=radio name=r")
          .append(i)
          .append("> Yes <input type=radio name=r");
      form.append(i).append("> No</td></tr>");
    }
    String html =
        ObservationTest.listing(250)
            .replace(
                "<ul class=\"results\">",
                form.append("</table></form><ul class=\"results\">").toString());
    try (Page page = browser.newPage()) {
      page.setContent(html);
      String timed =
          """
          (selector) => {
            const NAMES = __NAMES__;
            const candidates = Array.from(document.querySelectorAll(selector));
            const started = performance.now();
            let named = 0;
            let hinted = 0;
            for (const el of candidates) if (NAMES.name(el)) named++;
            const namesMs = performance.now() - started;
            for (const el of candidates) if (NAMES.hint(el)) hinted++;
            return { candidates: candidates.length, named, hinted, namesMs,
              ms: performance.now() - started };
          }"""
              .replace("__NAMES__", namesScript());
      @SuppressWarnings("unchecked")
      Map<String, Object> r = (Map<String, Object>) page.evaluate(timed, PageScripts.CANDIDATES);
      System.out.printf(
          "names.js: %s candidates, %s named, %s hinted in %.0f ms (names %.0f ms)%n",
          r.get("candidates"),
          r.get("named"),
          r.get("hinted"),
          ((Number) r.get("ms")).doubleValue(),
          ((Number) r.get("namesMs")).doubleValue());
      assertTrue(((Number) r.get("candidates")).intValue() >= 1300, r.toString());
      assertEquals(300, ((Number) r.get("hinted")).intValue(), "every field in the table");
    }
  }

  /** Playwright's accessible name of the element: the name on the first line of its snapshot. */
  static String playwrightName(Locator locator) {
    String snapshot;
    try {
      snapshot = locator.ariaSnapshot(new Locator.AriaSnapshotOptions().setTimeout(2_000));
    } catch (PlaywrightException e) {
      return null;
    }
    String first = snapshot.lines().findFirst().orElse("").strip();
    int quote = first.indexOf('"');
    if (!first.startsWith("- ") || quote < 0 || first.substring(2, quote).strip().contains(" ")) {
      return "";
    }
    StringBuilder name = new StringBuilder();
    for (int i = quote + 1; i < first.length(); i++) {
      char ch = first.charAt(i);
      if (ch == '"') {
        break;
      }
      if (ch == '\\' && i + 1 < first.length()) {
        char next = first.charAt(++i);
        switch (next) {
          case 'n' -> name.append('\n');
          case 't' -> name.append('\t');
          case 'u' -> {
            name.append((char) Integer.parseInt(first.substring(i + 1, i + 5), 16));
            i += 4;
          }
          default -> name.append(next);
        }
      } else {
        name.append(ch);
      }
    }
    return name.toString();
  }

  /** names.js leaves the page as it found it: no new global, no attribute, no node. */
  static void assertNothingWritten(Page page, String url, String cases) {
    page.navigate(url);
    String before =
        (String)
            page.evaluate(
                "() => Object.getOwnPropertyNames(window).join(',') + document.documentElement.outerHTML");
    page.evaluate(cases);
    String after =
        (String)
            page.evaluate(
                "() => Object.getOwnPropertyNames(window).join(',') + document.documentElement.outerHTML");
    assertEquals(before, after, "computing names changed the page");
  }

  static void report(List<Outcome> outcomes, long millis) {
    List<Outcome> listed = outcomes.stream().filter(Outcome::listed).toList();
    long oursListed = listed.stream().filter(Outcome::oursMatch).count();
    long playwrightListed = listed.stream().filter(Outcome::playwrightMatches).count();
    long oursAll = outcomes.stream().filter(Outcome::oursMatch).count();
    long playwrightAll = outcomes.stream().filter(Outcome::playwrightMatches).count();
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "WPT accname: %d elements under test, %d listed by the observation%n",
            outcomes.size(), listed.size()));
    b.append("failures (file | expected | ours | Playwright's | listed):\n");
    for (Outcome o : outcomes) {
      if (!o.oursMatch()) {
        b.append(
            String.format(
                "  %s | \"%s\" | \"%s\" | \"%s\" | %s  (%s)%n",
                o.file().replace("accname/", ""),
                o.expected(),
                o.ours(),
                o.playwright(),
                o.listed() ? "listed" : "not listed",
                o.title()));
      }
    }
    double listedRate = listed.isEmpty() ? 0 : 100.0 * oursListed / listed.size();
    b.append(
        String.format(
            "WPT accname: %d/%d listed elements named as expected (%.1f%%); Playwright %d/%d%n",
            oursListed, listed.size(), listedRate, playwrightListed, listed.size()));
    b.append(
        String.format(
            "WPT accname: %d/%d of all elements under test named as expected (%.1f%%); Playwright %d/%d%n",
            oursAll,
            outcomes.size(),
            100.0 * oursAll / outcomes.size(),
            playwrightAll,
            outcomes.size()));
    b.append(
        String.format(
            "WPT accname: %d pages in %.1f s%n",
            outcomes.stream().map(Outcome::file).distinct().count(), millis / 1000.0));
    System.out.print(b);
    assertTrue(listed.size() >= 100, "the observation listed only " + listed.size());
    assertTrue(listedRate >= 95.0, b.toString());
  }

  /**
   * A Playwright of its own, its driver unpacked under {@code driverDir}: like the provider's,
   * never the one Playwright caches for the class loader.
   */
  static Playwright playwright(Path driverDir) {
    Map<String, String> env = new java.util.HashMap<>(RawPlaywright.DRIVER_ENV);
    env.put("TMPDIR", driverDir.toString());
    return Lane.unpackingUnder(
        driverDir,
        () ->
            com.microsoft.playwright.impl.PlaywrightImpl.createImpl(
                new Playwright.CreateOptions().setEnv(env), true));
  }

  /** The corpus as a web root on 127.0.0.1, with the harness stubs. */
  static HttpServer corpusServer() throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", AccessibleNamesTest::serve);
    server.start();
    return server;
  }

  private static void serve(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    byte[] body;
    String type;
    if (STUBS.containsKey(path)) {
      body = STUBS.get(path).getBytes(StandardCharsets.UTF_8);
      type = "text/javascript";
    } else {
      Path file = CORPUS.resolve(path.substring(1)).normalize();
      if (!file.startsWith(CORPUS) || !Files.isRegularFile(file)) {
        exchange.sendResponseHeaders(404, -1);
        exchange.close();
        return;
      }
      body = Files.readAllBytes(file);
      String name = file.getFileName().toString();
      type =
          name.endsWith(".html")
              ? "text/html; charset=utf-8"
              : name.endsWith(".css")
                  ? "text/css"
                  : name.endsWith(".js") ? "text/javascript" : "application/octet-stream";
    }
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  // ---- Hints ---------------------------------------------------------------------------------

  static final String FORM =
      """
      <!doctype html><html><head><title>Booking</title></head><body><form>
      <table>
        <tr><td>Username</td><td><input name="user"></td></tr>
        <tr><td>Newsletter</td><td><input type="radio" name="news" value="y"> Yes
          <input type="radio" name="news" value="n"> No</td></tr>
        <tr><td><input name="first" value="Ada"></td><td><input name="last"></td></tr>
      </table>
      <div class="row"><span>Arrival date</span> <input type="date" name="arrival"></div>
      <div class="row"><input type="date" name="departure" placeholder="Departure"></div>
      <div class="row"><textarea name="note">draft words</textarea><input name="after"></div>
      <p><input name="q" placeholder="Search the catalogue"></p>
      <div><label for="email">Email</label> <input id="email" name="email"></div>
      <button>Book</button>
      </form></body></html>""";

  @Test
  void anUnnamedFieldGetsWhatIsBesideItAsAHintNeverItsValue() throws Exception {
    try (LocalBrowser browser = new LocalBrowser(Map.of("/form", FORM))) {
      ToolResult r =
          browser.call(
              "hints", "browser_open", Map.of("url", browser.url("/form"), "mode", "interactive"));
      assertFalse(r.isError(), r.text());
      List<Map<String, Object>> elements = LocalBrowser.elements(r);
      assertEquals(
          List.of("", "", "", "", "", "", "", "", "", "Search the catalogue", "Email", "Book"),
          elements.stream().map(e -> e.getOrDefault("name", "")).toList(),
          r.text());
      List<Object> hints = elements.stream().map(e -> e.getOrDefault("hint", "")).toList();
      assertEquals("Username", hints.get(0), r.text());
      assertEquals("Yes", hints.get(1), r.text());
      assertEquals("No", hints.get(2), r.text());
      assertEquals("", hints.get(3), "nothing is beside it in its row: " + r.text());
      assertEquals("", hints.get(4), "another field's value is no hint: " + r.text());
      assertEquals("Arrival date", hints.get(5), r.text());
      assertEquals("Departure", hints.get(6), "a placeholder the name does not use: " + r.text());
      assertEquals("", hints.get(7), "a textarea's text is its value: " + r.text());
      assertEquals("", hints.get(8), "a textarea's text is its value: " + r.text());
      assertEquals(List.of("", "", ""), hints.subList(9, 12), "a named element has no hint");
      assertTrue(
          r.text().contains("— (unnamed) (not its name; beside it: \"Username\")"), r.text());
      assertTrue(r.text().contains("(unnamed) (not its name; beside it: \"Yes\")"), r.text());
      assertTrue(
          r.text().contains("(unnamed) (not its name; beside it: \"Arrival date\")"), r.text());
      // A field's value is its state, shown as such: never its name or its hint.
      assertTrue(r.text().contains("[e4] input:text — (unnamed) = \"Ada\"\n"), r.text());
      assertTrue(r.text().contains("[e8] textarea — (unnamed) = \"draft words\"\n"), r.text());
      assertEquals("Ada", elements.get(3).get("value"), r.text());
    }
  }
}
