package dev.periscope.api.browser;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A key, or a chord of modifiers and one key, in Playwright's syntax: {@code Enter}, {@code F2},
 * {@code a}, {@code Control+A}, {@code Shift+Tab}, {@code Alt+ArrowDown}, {@code Meta+Enter}. The
 * key is a single character or a named key of the US keyboard; modifiers are Control, Alt, Shift,
 * Meta and ControlOrMeta (Ctrl, Cmd, Option and a lower-case spelling are read as their names).
 *
 * <p>A chord that acts on the browser rather than the page (closing or opening a tab or window, the
 * address bar, reloading, printing, saving, zoom, history moves, developer tools) is refused by
 * {@link #parse}: {@link #browserShortcut()} says which and what to use instead.
 */
public record KeyChord(List<String> modifiers, String key) {
  /** The modifiers, in the order a chord presses them. */
  public static final List<String> MODIFIERS =
      List.of("Control", "Alt", "Shift", "Meta", "ControlOrMeta");

  private static final Map<String, String> NAMED = KeyNames.byLowerCase();

  public KeyChord {
    modifiers = List.copyOf(modifiers);
  }

  /**
   * The chord {@code text} spells, else {@code BROWSER_INVALID_ARGUMENT} naming {@code /key} and
   * the rule it broke: one that does not parse, a key the keyboard does not have, a modifier twice,
   * or a chord that acts on the browser.
   */
  public static KeyChord parse(String text) {
    if (text == null || text.isEmpty()) {
      throw invalid("a key is required (Enter, F2, a, Control+A, Shift+Tab)");
    }
    if (text.length() > 64) {
      throw invalid("a key is at most 64 characters (found " + text.length() + ")");
    }
    String last;
    String rest;
    if (text.equals("+")) {
      last = "+";
      rest = "";
    } else if (text.endsWith("++")) {
      last = "+";
      rest = text.substring(0, text.length() - 2);
    } else {
      int plus = text.lastIndexOf('+');
      last = text.substring(plus + 1);
      rest = plus < 0 ? "" : text.substring(0, plus);
      if (plus >= 0 && rest.isEmpty()) {
        throw invalid("'" + text + "' has no modifier before its '+'");
      }
    }
    Set<String> modifiers = new LinkedHashSet<>();
    if (!rest.isEmpty()) {
      for (String part : rest.split("\\+", -1)) {
        String modifier = modifier(part);
        if (modifier == null) {
          throw invalid(
              "'"
                  + part
                  + "' in '"
                  + text
                  + "' is no modifier: a chord is modifiers ("
                  + String.join(", ", MODIFIERS)
                  + ") joined by '+' before one key");
        }
        if (!modifiers.add(modifier)) {
          throw invalid("'" + text + "' names " + modifier + " twice");
        }
      }
    }
    String key = keyOf(last, text);
    List<String> ordered = new ArrayList<>();
    for (String m : MODIFIERS) {
      if (modifiers.contains(m)) {
        ordered.add(m);
      }
    }
    // A letter in a chord is the letter's key, as a person presses it: Control+A is 'a' with
    // Control held (a page's handler reads key 'a'), Shift+a is 'A'.
    if (!ordered.isEmpty() && key.length() == 1 && Character.isLetter(key.charAt(0))) {
      String folded =
          ordered.contains("Shift") ? key.toUpperCase(Locale.ROOT) : key.toLowerCase(Locale.ROOT);
      // Only where case folding keeps one character (not ß to SS): Playwright knows single keys.
      if (folded.codePointCount(0, folded.length()) == 1) {
        key = folded;
      }
    }
    KeyChord chord = new KeyChord(ordered, key);
    String shortcut = chord.browserShortcut();
    if (shortcut != null) {
      throw invalid("'" + text + "' acts on the browser, not the page: " + shortcut);
    }
    return chord;
  }

  /**
   * Whether the chord types a character into the focused field: one character, with no modifier but
   * Shift.
   */
  public boolean types() {
    return key.codePointCount(0, key.length()) == 1
        && (modifiers.isEmpty() || modifiers.equals(List.of("Shift")));
  }

  /** As Playwright's keyboard takes it: {@code Control+Shift+A}; a space key is {@code Space}. */
  public String playwright() {
    String k = key.equals(" ") ? "Space" : key;
    return modifiers.isEmpty() ? k : String.join("+", modifiers) + "+" + k;
  }

  @Override
  public String toString() {
    return playwright();
  }

  /**
   * What the chord would do to the browser instead of the page, and the tool to use, or null when
   * it is the page's. Control and Meta count alike (Linux and Windows spell with one, macOS with
   * the other).
   */
  public String browserShortcut() {
    boolean command =
        modifiers.contains("Control")
            || modifiers.contains("Meta")
            || modifiers.contains("ControlOrMeta");
    boolean alt = modifiers.contains("Alt");
    // Chromium matches its shortcuts on the physical key: KeyW and w are one key, and so are _ and
    // Minus (what Shift turns it into), ) and Digit0, Numpad1 and 1.
    String upper = physical(key);
    if (modifiers.isEmpty() || modifiers.equals(List.of("Shift"))) {
      return switch (key) {
        case "F5" -> "it reloads the page; use browser_reload";
        case "F6" -> "it moves to the address bar; use browser_open";
        case "F10" -> modifiers.isEmpty() ? "it opens the browser's menu" : null;
        case "F11" -> "it switches the window to full screen";
        case "F12" -> "it opens the developer tools";
        case "BrowserBack" -> "it goes back; use browser_back";
        case "BrowserForward" -> "it goes forward; use browser_forward";
        case "BrowserRefresh" -> "it reloads the page; use browser_reload";
        default -> null;
      };
    }
    if (alt && !command) {
      return switch (key) {
        case "ArrowLeft" -> "it goes back; use browser_back";
        case "ArrowRight" -> "it goes forward; use browser_forward";
        case "Home" -> "it opens the home page; use browser_open";
        case "F4" -> "it closes the window; use browser_tabs to close a tab";
        default -> null;
      };
    }
    if (!command) {
      return null;
    }
    if (upper.matches("[1-9]")) {
      return "it switches tabs; use browser_tabs";
    }
    if (alt && (upper.equals("I") || upper.equals("J") || upper.equals("C") || upper.equals("U"))) {
      return "it opens the developer tools";
    }
    return switch (upper) {
      case "W", "F4" -> "it closes the tab; use browser_tabs to close a tab";
      case "T", "N" -> "it opens a tab or window; use browser_tabs or browser_open";
      case "L", "K", "E" -> "it moves to the address bar; use browser_open";
      case "R", "F5" -> "it reloads the page; use browser_reload";
      case "P" -> "it prints the page";
      case "S" -> "it saves the page";
      case "O" -> "it opens a file from disk";
      case "Q" -> "it quits the browser";
      case "H", "Y" -> "it opens the browser's history";
      case "J" -> "it opens the browser's downloads";
      case "D" -> "it bookmarks the page";
      case "U" -> "it shows the page's source";
      case "Tab", "PageUp", "PageDown" -> "it switches tabs; use browser_tabs";
      case "=", "-", "0", "NumpadAdd", "NumpadSubtract" -> "it zooms the page";
      case "[", "]" -> "it goes back or forward; use browser_back or browser_forward";
      case "ArrowLeft", "ArrowRight" ->
          alt ? "it goes back or forward; use browser_back or browser_forward" : null;
      case "I", "C" -> modifiers.contains("Shift") ? "it opens the developer tools" : null;
      case "Delete", "Backspace" ->
          modifiers.contains("Shift") ? "it clears the browser's data" : null;
      default -> null;
    };
  }

  /**
   * The key as Chromium's shortcuts see it, upper case for a letter: KeyW and w are W, Digit1,
   * Numpad1 and ! are 1, Minus and _ are -, Equal and + are =, BracketLeft and { are [.
   */
  private static String physical(String key) {
    if (key.matches("Key[A-Z]")) {
      return key.substring(3);
    }
    if (key.matches("(?:Digit|Numpad)[0-9]")) {
      return key.substring(key.length() - 1);
    }
    switch (key) {
      case "Minus", "_":
        return "-";
      case "Equal", "+":
        return "=";
      case "BracketLeft", "{":
        return "[";
      case "BracketRight", "}":
        return "]";
      default:
        break;
    }
    int shifted = ")!@#$%^&*(".indexOf(key);
    if (key.length() == 1 && shifted >= 0) {
      return String.valueOf(shifted);
    }
    return key.length() == 1 ? key.toUpperCase(Locale.ROOT) : key;
  }

  private static String keyOf(String last, String text) {
    if (last.isEmpty()) {
      throw invalid("'" + text + "' ends without a key");
    }
    if (last.codePointCount(0, last.length()) == 1) {
      int c = last.codePointAt(0);
      if (Character.isISOControl(c)) {
        throw invalid("'" + text + "' is a control character: name the key (Enter, Tab)");
      }
      return last;
    }
    String named = NAMED.get(last.toLowerCase(Locale.ROOT));
    if (named == null) {
      throw invalid(
          "'"
              + last
              + "' is no key: use a single character or a named key (Enter, Escape, Tab,"
              + " Backspace, Delete, Space, ArrowUp, Home, PageDown, F1 to F12, KeyA, Digit1,"
              + " Numpad0, ...)");
    }
    return named;
  }

  private static String modifier(String part) {
    return switch (part.toLowerCase(Locale.ROOT)) {
      case "control", "ctrl" -> "Control";
      case "alt", "option" -> "Alt";
      case "shift" -> "Shift";
      case "meta", "cmd", "command" -> "Meta";
      case "controlormeta" -> "ControlOrMeta";
      default -> null;
    };
  }

  private static BrowserException invalid(String rule) {
    return ActionChecks.invalid("/key: " + rule);
  }
}
