package dev.periscope.browser.playwright;

import static dev.periscope.browser.playwright.LocalBrowser.element;
import static dev.periscope.browser.playwright.LocalBrowser.state;
import static dev.periscope.browser.playwright.LocalBrowser.target;
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
 * Each control shows its state as a person sees it (a field's value, checked, chosen options,
 * expanded, pressed, selected, current, required, invalid with the page's message, read-only)
 * before and after the action that changes it, on component libraries' own demo pages (the W3C ARIA
 * Authoring Practices examples, Bootstrap's and jQuery UI's) on real Chromium.
 */
class ElementStatesTest {
  static LocalBrowser browser;

  static final String PASSWORD =
      """
      <!doctype html><html><head><title>Sign in</title></head><body>
      <label>Password <input type="password" value="hunter2-canary-value"></label>
      <input type="hidden" name="csrf" value="hidden-canary-value">
      <label>Empty password <input type="password"></label></body></html>""";

  @BeforeAll
  static void start() throws Exception {
    browser = LocalBrowser.withCorpus(Map.of("/password", PASSWORD));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static ToolResult open(String agent, String page) {
    return browser.open(agent, page, "interactive");
  }

  /**
   * Acts on the element named {@code name} in a fresh observation (so a look at the text between
   * leaves no stale refs), then observes.
   */
  static ToolResult act(String agent, String tool, String name, Object... more) {
    ToolResult fresh = browser.call(agent, "browser_observe", Map.of("mode", "interactive"));
    Map<String, Object> args = new HashMap<>(target(fresh, name));
    for (int i = 0; i < more.length; i += 2) {
      args.put((String) more[i], more[i + 1]);
    }
    ToolResult r = browser.call(agent, tool, args);
    assertFalse(r.isError(), r.text());
    return browser.call(agent, "browser_observe", Map.of("mode", "interactive"));
  }

  /** The page's text, as a document observation reads it. */
  static String readText(String agent) {
    return LocalBrowser.text(browser.call(agent, "browser_observe", Map.of("mode", "document")));
  }

  @Test
  void aFieldShowsWhatItHoldsAndTheFillShowsInTheObservationAfterIt() {
    ToolResult r = open("fields", "/pages/bootstrap/forms.html");
    assertEquals("Grace", element(r, "Name").get("value"), r.text());
    assertTrue(r.text().contains("input:text — Name = \"Grace\"\n"), r.text());
    assertEquals(List.of("read-only"), state(r, "Readonly input"));
    assertEquals(true, element(r, "Disabled input").get("disabled"));
    Map<String, Object> fill = new HashMap<>(target(r, "Name"));
    fill.put("value", "Grace Hopper");
    ToolResult filled = browser.call("fields", "browser_fill", fill);
    assertFalse(filled.isError(), filled.text());
    // The action's own observation shows what it changed.
    assertEquals("Grace Hopper", element(filled, "Name").get("value"), filled.text());
    assertTrue(filled.text().contains("Name = \"Grace Hopper\""), filled.text());
  }

  @Test
  void checkboxesRadiosSwitchesTogglesAndSelectsShowWhatIsChosenBeforeAndAfter() {
    ToolResult r = open("choices", "/pages/bootstrap/forms.html");
    assertEquals(List.of("unchecked"), state(r, "Default checkbox"));
    assertEquals(List.of("checked"), state(r, "Checked checkbox"));
    assertEquals(List.of("checked"), state(r, "Default checked radio"));
    assertEquals(List.of("M"), element(r, "Size").get("options"));
    assertEquals(List.of("Cheese", "Peppers"), element(r, "Toppings").get("options"));
    assertTrue(r.text().contains("select — Size = \"M\"\n"), r.text());
    // A select's options are its state, not loose lines of the page's text.
    List<String> lines = List.of(readText("choices").split("\n"));
    assertFalse(
        lines.contains("S") || lines.contains("M") || lines.contains("Olives"), lines.toString());

    r = act("choices", "browser_check", "Default checkbox", "checked", true);
    assertEquals(List.of("checked"), state(r, "Default checkbox"));
    r = act("choices", "browser_check", "Default radio", "checked", true);
    assertEquals(List.of("checked"), state(r, "Default radio"));
    assertEquals(List.of("unchecked"), state(r, "Default checked radio"));
    r = act("choices", "browser_check", "Default switch checkbox input", "checked", true);
    assertEquals(List.of("checked"), state(r, "Default switch checkbox input"));
    r = act("choices", "browser_select", "Size", "values", List.of("L"));
    assertEquals(List.of("L"), element(r, "Size").get("options"));
    r = act("choices", "browser_select", "Toppings", "values", List.of("Olives", "Onions"));
    assertEquals(List.of("Olives", "Onions"), element(r, "Toppings").get("options"));
    // Bootstrap's toggle buttons: an input clipped to nothing, drawn as its label.
    assertEquals(List.of("unchecked"), state(r, "Single toggle"));
    r = act("choices", "browser_check", "Single toggle", "checked", true);
    assertEquals(List.of("checked"), state(r, "Single toggle"));
    r = act("choices", "browser_click", "Danger radio");
    assertEquals(List.of("checked"), state(r, "Danger radio"));
    assertEquals(List.of("unchecked"), state(r, "Checked success radio"));
  }

  @Test
  void ariaStatesOfTheAuthoringPracticesExamplesFollowTheirActions() {
    ToolResult r = open("aria", "/pages/apg/checkbox-mixed.html");
    assertEquals(List.of("mixed"), state(r, "All condiments"));
    assertEquals(List.of("checked"), state(r, "Tomato"));
    r = act("aria", "browser_click", "All condiments");
    assertEquals(List.of("checked"), state(r, "All condiments"));
    assertEquals(List.of("checked"), state(r, "Lettuce"));

    r = open("aria", "/pages/apg/disclosure.html");
    String question = "Is there free parking on holidays?";
    assertEquals(List.of("collapsed"), state(r, question));
    assertFalse(readText("aria").contains("restricted from 2:00 am"));
    r = act("aria", "browser_click", question);
    assertEquals(List.of("expanded"), state(r, question));
    assertTrue(readText("aria").contains("restricted from 2:00 am"));

    r = open("aria", "/pages/apg/button-toggle.html");
    assertEquals(List.of("not pressed"), state(r, "Mute"));
    r = act("aria", "browser_click", "Mute");
    assertEquals(List.of("pressed"), state(r, "Mute"));

    r = open("aria", "/pages/apg/tabs.html");
    assertEquals(List.of("selected"), state(r, "Maria Ahlefeldt"));
    assertFalse(readText("aria").contains("Ida Henriette da Fonseca"));
    r = act("aria", "browser_click", "Ida da Fonseca");
    assertEquals(List.of("selected"), state(r, "Ida da Fonseca"));
    assertEquals(List.of(), state(r, "Maria Ahlefeldt"));
    assertTrue(readText("aria").contains("Ida Henriette da Fonseca"));

    r = open("aria", "/pages/apg/switch.html");
    assertEquals(List.of("unchecked"), state(r, "Notifications"));
    r = act("aria", "browser_click", "Notifications");
    assertEquals(List.of("checked"), state(r, "Notifications"));

    r = open("aria", "/pages/apg/breadcrumb.html");
    assertEquals(List.of("current page"), state(r, "Breadcrumb Example"));
    assertEquals(List.of(), state(r, "Patterns"));

    r = open("aria", "/pages/apg/listbox.html");
    r = act("aria", "browser_click", "Plutonium");
    assertEquals(List.of("selected"), state(r, "Plutonium"));
    assertEquals(List.of("Plutonium"), element(r, "Transuranium elements:").get("options"));
    assertTrue(r.text().contains("listbox — Transuranium elements: = \"Plutonium\""), r.text());
  }

  @Test
  void jqueryUisWidgetsShowTheStateOfTheInputsTheyHide() {
    ToolResult r = open("jquery", "/pages/jquery-ui/checkboxradio.html");
    assertEquals(List.of("unchecked"), state(r, "Paris"));
    // The radio button is hidden behind its styled label: checking it presses the label.
    r = act("jquery", "browser_check", "Paris", "checked", true);
    assertEquals(List.of("checked"), state(r, "Paris"));
    r = act("jquery", "browser_click", "4 Star");
    assertEquals(List.of("checked"), state(r, "4 Star"));
    r = act("jquery", "browser_check", "1 King", "checked", true);
    assertEquals(List.of("checked"), state(r, "1 King"));

    r = open("jquery", "/pages/jquery-ui/accordion.html");
    assertTrue(state(r, "Section 1").contains("expanded"), r.text());
    assertTrue(state(r, "Section 2").contains("collapsed"), r.text());
    r = act("jquery", "browser_click", "Section 3");
    assertTrue(state(r, "Section 3").contains("expanded"), r.text());
    assertTrue(state(r, "Section 1").contains("collapsed"), r.text());
  }

  @Test
  void anInvalidFieldShowsTheMessageThePageShowsBesideIt() {
    ToolResult r = open("invalid", "/pages/bootstrap/forms.html");
    assertEquals(List.of("required"), state(r, "Username"), "not invalid before anyone checked it");
    r = act("invalid", "browser_click", "Submit form");
    assertEquals(List.of("required", "invalid"), state(r, "Username"), r.text());
    assertEquals("Please choose a username.", element(r, "Username").get("message"));
    assertTrue(
        r.text().contains("Username (required, invalid: \"Please choose a username.\")"), r.text());
    assertEquals(List.of("required"), state(r, "First name"), "a valid field is not invalid");
  }

  @Test
  void aPasswordOrHiddenFieldNeverShowsItsValue() {
    ToolResult r = open("secret", "/password");
    assertEquals(List.of("filled"), state(r, "Password"));
    assertFalse(element(r, "Password").containsKey("value"));
    assertEquals(List.of(), state(r, "Empty password"));
    String all = r.text() + r.structured();
    assertFalse(all.contains("hunter2-canary-value") || all.contains("hidden-canary-value"), all);
  }

  @Test
  void aHugeValueIsCutToItsFirst200CharactersWithItsLength() {
    ToolResult r = open("huge", "/pages/shapes/huge-value.html");
    Map<String, Object> notes = element(r, "Notes");
    assertEquals(200, ((String) notes.get("value")).length());
    assertEquals(1_048_576, notes.get("value_chars"));
    assertEquals(100_000, element(r, "Token").get("value_chars"));
    assertTrue(r.text().contains("(1,048,576 chars; the first 200 shown)"), r.text());
    assertTrue(r.text().length() < 4_000, "the observation is " + r.text().length() + " chars");
  }
}
