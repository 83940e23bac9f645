package dev.periscope.api.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class KeyChordTest {
  @Test
  void readsPlaywrightsSyntaxAndTheCommonSpellingsOfModifiersAndKeys() {
    assertEquals("Enter", KeyChord.parse("Enter").playwright());
    assertEquals("Enter", KeyChord.parse("return").playwright());
    assertEquals("Escape", KeyChord.parse("Esc").playwright());
    assertEquals("F2", KeyChord.parse("f2").playwright());
    assertEquals("?", KeyChord.parse("?").playwright());
    assertEquals("Space", KeyChord.parse(" ").playwright());
    assertEquals("é", KeyChord.parse("é").playwright());
    assertEquals("Control+a", KeyChord.parse("ctrl+a").playwright());
    assertEquals("Control+a", KeyChord.parse("Control+A").playwright(), "the letter's key");
    assertEquals("Shift+A", KeyChord.parse("Shift+a").playwright());
    assertEquals("A", KeyChord.parse("A").playwright(), "alone, the character itself");
    assertEquals("Shift+ß", KeyChord.parse("Shift+ß").playwright(), "ß stays one key");
    assertEquals("Shift+Tab", KeyChord.parse("Shift+Tab").playwright());
    assertEquals("Alt+ArrowDown", KeyChord.parse("alt+down").playwright());
    assertEquals("Meta+Enter", KeyChord.parse("Cmd+Enter").playwright());
    assertEquals("Control+Shift+KeyZ", KeyChord.parse("Shift+Control+KeyZ").playwright());
    assertEquals("ControlOrMeta+a", KeyChord.parse("ControlOrMeta+a").playwright());
    assertEquals(new KeyChord(List.of(), "+"), KeyChord.parse("+"));
    assertEquals(new KeyChord(List.of("Shift"), "+"), KeyChord.parse("Shift++"));
    assertEquals(new KeyChord(List.of(), "Shift"), KeyChord.parse("Shift"));
  }

  @Test
  void refusesWhatDoesNotParseNamingTheFieldAndTheRule() {
    assertRefused("", "a key is required");
    assertRefused(null, "a key is required");
    assertRefused("Control+", "ends without a key");
    assertRefused("+a", "no modifier before its '+'");
    assertRefused("Hyper+A", "'Hyper' in 'Hyper+A' is no modifier");
    assertRefused("Control+Ctrl+A", "names Control twice");
    assertRefused("Foo", "'Foo' is no key");
    assertRefused("F13", "'F13' is no key");
    assertRefused("\n", "control character");
    assertRefused("Control+" + "a".repeat(80), "at most 64 characters");
  }

  @Test
  void refusesChordsThatActOnTheBrowserNamingTheToolToUseInstead() {
    assertRefused("Control+W", "closes the tab; use browser_tabs");
    assertRefused("Meta+w", "closes the tab");
    assertRefused("Control+T", "opens a tab or window");
    assertRefused("Control+Shift+N", "opens a tab or window");
    assertRefused("Control+L", "address bar; use browser_open");
    assertRefused("Control+P", "prints the page");
    assertRefused("Control+S", "saves the page");
    assertRefused("Control+O", "opens a file");
    assertRefused("F5", "reloads the page; use browser_reload");
    assertRefused("Control+R", "use browser_reload");
    assertRefused("Alt+ArrowLeft", "goes back; use browser_back");
    assertRefused("Control+Tab", "switches tabs");
    assertRefused("Control+2", "switches tabs");
    assertRefused("Control+Shift+I", "developer tools");
    assertRefused("F12", "developer tools");
    assertRefused("Control+Minus", "zooms");
    assertRefused("Control+KeyW", "closes the tab");
    assertRefused("Control+Shift+KeyI", "developer tools");
    assertRefused("Control+_", "zooms");
    assertRefused("Control+)", "zooms");
    assertRefused("Control+!", "switches tabs");
    assertRefused("Control+Numpad3", "switches tabs");
    assertRefused("Control+Digit4", "switches tabs");
    assertRefused("F10", "browser's menu");
    assertRefused("Meta+Alt+I", "developer tools");
  }

  @Test
  void keepsTheChordsPagesUseThemselves() {
    for (String page :
        List.of(
            "Control+A",
            "Control+C",
            "Control+V",
            "Control+X",
            "Control+Z",
            "Control+F",
            "Control+B",
            "Control+Enter",
            "Control+ArrowLeft",
            "Control+Backspace",
            "Shift+ArrowRight",
            "Alt+ArrowDown",
            "Alt+S",
            "F2",
            "Escape",
            "Shift+F10")) {
      assertEquals(null, KeyChord.parse(page).browserShortcut(), page);
    }
  }

  private static void assertRefused(String key, String rule) {
    BrowserException e = assertThrows(BrowserException.class, () -> KeyChord.parse(key));
    assertEquals(ErrorCode.BROWSER_INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().startsWith("/key: "), e.getMessage());
    assertTrue(e.getMessage().contains(rule), e.getMessage());
  }
}
