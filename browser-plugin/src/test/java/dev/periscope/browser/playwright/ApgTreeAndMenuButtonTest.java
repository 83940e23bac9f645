package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.element;
import static dev.periscope.browser.playwright.LocalBrowser.elements;
import static dev.periscope.browser.playwright.LocalBrowser.names;
import static dev.periscope.browser.playwright.LocalBrowser.observation;
import static dev.periscope.browser.playwright.LocalBrowser.state;
import static dev.periscope.browser.playwright.LocalBrowser.target;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The W3C ARIA Authoring Practices' file directory tree and actions menu button, as an agent uses
 * them on real Chromium: a folder opened by a click or ArrowRight lists its files as targets and
 * hides them again when closed, a file clicked or chosen with Enter is selected as the example
 * shows it; the menu button lists its actions only while its menu is open, and an action clicked or
 * chosen with keys is performed and closes the menu, as Escape does.
 */
class ApgTreeAndMenuButtonTest {
  static final String TREE = "/pages/apg/tree.html";
  static final String MENU = "/pages/apg/menu-button.html";
  static final String SELECTED = "File or Folder Selected:";
  static final String LAST_ACTION = "Last Action:";
  static final List<String> PROJECTS_FILES =
      List.of("project-1.docx", "project-2.docx", "Project 3", "project-4.docx", "Project 5");
  static final List<String> ACTIONS = List.of("Action 1", "Action 2", "Action 3", "Action 4");

  static LocalBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = LocalBrowser.withCorpus(Map.of());
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  @Test
  void clickingAFolderListsItsFilesAndClickingAFileSelectsIt() {
    ToolResult page = browser.open("tree-click", TREE, "interactive");
    assertEquals(List.of("Projects", "Reports", "Letters", SELECTED), words(page), page.text());
    Map<String, Object> projects = item(page, "Projects");
    assertEquals("treeitem", projects.get("role"), page.text());
    assertEquals(List.of("collapsed"), stateOf(projects), page.text());
    assertEquals("", element(page, SELECTED).getOrDefault("value", ""), page.text());

    ToolResult opened = browser.call("tree-click", "browser_click", at(page, projects));
    assertFalse(opened.isError(), opened.text());
    assertEquals(List.of("expanded", "selected"), stateOf(sameAs(opened, projects)), opened.text());
    for (String file : PROJECTS_FILES) {
      Map<String, Object> child = item(opened, file);
      assertEquals("treeitem", child.get("role"), opened.text());
      assertNotNull(child.get("ref"), opened.text());
    }
    assertEquals(List.of("collapsed"), stateOf(item(opened, "Project 3")), opened.text());
    assertFalse(words(opened).contains("project-3A.docx"), "Project 3 stays closed");
    assertFalse(words(opened).contains("report-1"), "Reports stays closed");
    assertEquals("Projects", element(opened, SELECTED).get("value"), opened.text());

    ToolResult chosen =
        browser.call("tree-click", "browser_click", at(opened, item(opened, "project-2.docx")));
    assertFalse(chosen.isError(), chosen.text());
    assertEquals(List.of("selected"), stateOf(item(chosen, "project-2.docx")), chosen.text());
    assertEquals(List.of("expanded"), stateOf(sameAs(chosen, projects)), chosen.text());
    assertEquals("project-2.docx", element(chosen, SELECTED).get("value"), chosen.text());
  }

  /**
   * A person closes an open folder by clicking it, on its own row ("Projects"), not on one of the
   * files listed below it in its box.
   */
  @Test
  void clickingAnOpenFolderClosesItAndItsFilesAreNoLongerListed() {
    ToolResult page = browser.open("tree-close", TREE, "interactive");
    Map<String, Object> projects = item(page, "Projects");
    ToolResult opened = browser.call("tree-close", "browser_click", at(page, projects));
    assertEquals(List.of("expanded", "selected"), stateOf(sameAs(opened, projects)), opened.text());

    ToolResult closed =
        browser.call("tree-close", "browser_click", at(opened, sameAs(opened, projects)));
    assertFalse(closed.isError(), closed.text());
    assertEquals(
        List.of("collapsed", "selected"), stateOf(sameAs(closed, projects)), closed.text());
    assertEquals(List.of("Projects", "Reports", "Letters", SELECTED), words(closed), closed.text());
    assertEquals("Projects", element(closed, SELECTED).get("value"), closed.text());
  }

  @Test
  void arrowRightOpensAFolderEnterSelectsAFileAndArrowLeftClosesTheFolder() {
    ToolResult page = browser.open("tree-keys", TREE, "interactive");
    Map<String, Object> reports = item(page, "Reports");
    ToolResult opened = press("tree-keys", page, reports, "ArrowRight");
    assertFalse(opened.isError(), opened.text());
    assertEquals(List.of("expanded"), stateOf(sameAs(opened, reports)), opened.text());
    for (String folder : List.of("report-1", "report-2", "report-3")) {
      assertEquals(List.of("collapsed"), stateOf(item(opened, folder)), opened.text());
    }
    assertFalse(words(opened).contains("report-1A.docx"), opened.text());
    assertEquals("", element(opened, SELECTED).getOrDefault("value", ""), "keys move, not select");

    Map<String, Object> report1 = item(opened, "report-1");
    ToolResult inner = press("tree-keys", opened, report1, "ArrowRight");
    assertEquals(List.of("expanded"), stateOf(sameAs(inner, report1)), inner.text());
    assertTrue(
        words(inner).containsAll(List.of("report-1A.docx", "report-1B.docx", "report-1C.docx")),
        inner.text());

    // Focus stays on report-1: ArrowDown moves it to the first file, Enter selects that file.
    ToolResult down = browser.call("tree-keys", "browser_press", Map.of("key", "ArrowDown"));
    assertFalse(down.isError(), down.text());
    ToolResult entered = browser.call("tree-keys", "browser_press", Map.of("key", "Enter"));
    assertFalse(entered.isError(), entered.text());
    assertEquals(List.of("selected"), stateOf(item(entered, "report-1A.docx")), entered.text());
    assertEquals("report-1A.docx", element(entered, SELECTED).get("value"), entered.text());

    ToolResult closed = press("tree-keys", entered, sameAs(entered, reports), "ArrowLeft");
    assertFalse(closed.isError(), closed.text());
    assertEquals(List.of("collapsed"), stateOf(sameAs(closed, reports)), closed.text());
    assertEquals(List.of("Projects", "Reports", "Letters", SELECTED), words(closed), closed.text());
  }

  /**
   * A person reads an open folder as "Projects" with a folder icon before it, and its files below
   * it: the folder's name is its own words. The files of its open group are not part of it
   * (Chromium's own accessibility tree names it "Projects" after the glyph U+F07C, without them),
   * and the icon font's private-use glyph, drawn by tree.css's ::before, is no word (observe.js
   * already names an element whose name is only such glyphs by none).
   */
  @Test
  void aTreeitemIsNamedByItsOwnWordsNotItsIconGlyphOrTheFilesOfItsOpenGroup() {
    ToolResult page = browser.open("tree-names", TREE, "interactive");
    ToolResult opened =
        browser.call("tree-names", "browser_click", at(page, item(page, "Projects")));
    assertFalse(opened.isError(), opened.text());
    assertEquals(
        List.of(
            "Projects",
            "project-1.docx",
            "project-2.docx",
            "Project 3",
            "project-4.docx",
            "Project 5",
            "Reports",
            "Letters"),
        names(opened).stream()
            .filter(n -> !n.equals(SELECTED))
            .map(ApgTreeAndMenuButtonTest::escaped)
            .toList(),
        opened.text());
  }

  @Test
  void clickingTheMenuButtonListsItsActionsAndClickingOnePerformsItAndClosesTheMenu() {
    ToolResult page = browser.open("menu-click", MENU, "interactive");
    assertEquals(List.of("Actions", LAST_ACTION), names(page), page.text());
    assertEquals("button", element(page, "Actions").get("role"), page.text());
    assertEquals(List.of("collapsed"), state(page, "Actions"), page.text());
    assertEquals("none", element(page, LAST_ACTION).get("value"), page.text());

    ToolResult opened = browser.call("menu-click", "browser_click", target(page, "Actions"));
    assertFalse(opened.isError(), opened.text());
    assertEquals(List.of("expanded"), state(opened, "Actions"), opened.text());
    for (String action : ACTIONS) {
      assertEquals("menuitem", element(opened, action).get("role"), opened.text());
      assertNotNull(element(opened, action).get("ref"), opened.text());
    }

    ToolResult done = browser.call("menu-click", "browser_click", target(opened, "Action 3"));
    assertFalse(done.isError(), done.text());
    assertEquals("Action 3", element(done, LAST_ACTION).get("value"), done.text());
    assertTrue(done.text().contains("Last Action: = \"Action 3\""), done.text());
    assertEquals(List.of("collapsed"), state(done, "Actions"), done.text());
    assertEquals(List.of("Actions", LAST_ACTION), names(done), "the menu closed: " + done.text());
  }

  @Test
  void enterOrArrowDownOpensTheMenuEscapeClosesItAndEnterPerformsTheFocusedAction() {
    ToolResult page = browser.open("menu-keys", MENU, "interactive");
    ToolResult opened = press("menu-keys", page, element(page, "Actions"), "Enter");
    assertFalse(opened.isError(), opened.text());
    assertEquals(List.of("expanded"), state(opened, "Actions"), opened.text());
    assertTrue(names(opened).containsAll(ACTIONS), opened.text());

    // Focus is on "Action 1" now; Escape closes the menu without an action.
    ToolResult escaped = browser.call("menu-keys", "browser_press", Map.of("key", "Escape"));
    assertFalse(escaped.isError(), escaped.text());
    assertEquals(List.of("collapsed"), state(escaped, "Actions"), escaped.text());
    assertEquals(List.of("Actions", LAST_ACTION), names(escaped), escaped.text());
    assertEquals("none", element(escaped, LAST_ACTION).get("value"), escaped.text());

    ToolResult down = press("menu-keys", escaped, element(escaped, "Actions"), "ArrowDown");
    assertEquals(List.of("expanded"), state(down, "Actions"), down.text());
    assertTrue(names(down).containsAll(ACTIONS), down.text());
    ToolResult next = browser.call("menu-keys", "browser_press", Map.of("key", "ArrowDown"));
    assertFalse(next.isError(), next.text());
    ToolResult chosen = browser.call("menu-keys", "browser_press", Map.of("key", "Enter"));
    assertFalse(chosen.isError(), chosen.text());
    assertEquals("Action 2", element(chosen, LAST_ACTION).get("value"), chosen.text());
    assertEquals(List.of("collapsed"), state(chosen, "Actions"), chosen.text());
    assertEquals(List.of("Actions", LAST_ACTION), names(chosen), chosen.text());
  }

  /**
   * An element's name without the icon font's private-use glyphs (U+E000 to U+F8FF) and with its
   * spaces collapsed: the words a person reads on it.
   */
  static String words(String name) {
    return name.replaceAll("[\\uE000-\\uF8FF]", "").replaceAll("\\s+", " ").strip();
  }

  /** The words of the result's elements, in ranked order. */
  static List<String> words(ToolResult r) {
    return names(r).stream().map(ApgTreeAndMenuButtonTest::words).toList();
  }

  /** The first element whose words are {@code words}. */
  static Map<String, Object> item(ToolResult r, String words) {
    return elements(r).stream()
        .filter(e -> words.equals(words((String) e.get("name"))))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no element reading " + words + " in " + r.text()));
  }

  /** The element of {@code r} with the same ref as {@code e} from an earlier observation. */
  static Map<String, Object> sameAs(ToolResult r, Map<String, Object> e) {
    return elements(r).stream()
        .filter(x -> e.get("ref").equals(x.get("ref")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + e.get("ref") + " in " + r.text()));
  }

  static List<String> stateOf(Map<String, Object> e) {
    String state = (String) e.getOrDefault("state", "");
    return state.isEmpty() ? List.of() : List.of(state.split(", "));
  }

  static Map<String, Object> at(ToolResult r, Map<String, Object> e) {
    return Map.of("observation_id", observation(r).get("id"), "element_ref", e.get("ref"));
  }

  private static ToolResult press(String agent, ToolResult r, Map<String, Object> e, String key) {
    Map<String, Object> args = new HashMap<>(at(r, e));
    args.put("key", key);
    return browser.call(agent, "browser_press", args);
  }

  /** A name with each private-use character written as its code point, to be read in a failure. */
  private static String escaped(String name) {
    StringBuilder b = new StringBuilder();
    name.codePoints()
        .forEach(
            c ->
                b.append(
                    c >= 0xE000 && c <= 0xF8FF
                        ? String.format("<U+%04X>", c)
                        : Character.toString(c)));
    return b.toString();
  }
}
