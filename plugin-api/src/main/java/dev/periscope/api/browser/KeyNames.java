package dev.periscope.api.browser;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The names of keys {@link KeyChord} reads: the US keyboard's, as Playwright knows them. */
final class KeyNames {
  private KeyNames() {}

  /** The common keys ({@link BrowserAction#KEYS}). */
  static final List<String> COMMON =
      List.of(
          "Enter",
          "Escape",
          "Tab",
          "Backspace",
          "Delete",
          "Space",
          "ArrowUp",
          "ArrowDown",
          "ArrowLeft",
          "ArrowRight",
          "Home",
          "End",
          "PageUp",
          "PageDown");

  /** The named keys of the US keyboard as Playwright knows them, by their lower-case spelling. */
  static Map<String, String> byLowerCase() {
    // The common keys first (Enter, Escape, Tab, the arrows, ...), then the rest of the keyboard.
    List<String> names = new ArrayList<>(COMMON);
    names.addAll(
        List.of(
            "Insert",
            "Shift",
            "Control",
            "Alt",
            "Meta",
            "ShiftLeft",
            "ShiftRight",
            "ControlLeft",
            "ControlRight",
            "AltLeft",
            "AltRight",
            "MetaLeft",
            "MetaRight",
            "CapsLock",
            "ContextMenu",
            "Backquote",
            "Minus",
            "Equal",
            "Backslash",
            "BracketLeft",
            "BracketRight",
            "Semicolon",
            "Quote",
            "Comma",
            "Period",
            "Slash",
            "NumLock",
            "ScrollLock",
            "Pause",
            "PrintScreen",
            "NumpadDivide",
            "NumpadMultiply",
            "NumpadSubtract",
            "NumpadAdd",
            "NumpadDecimal",
            "NumpadEnter",
            "NumpadEqual",
            "BrowserBack",
            "BrowserForward",
            "BrowserRefresh",
            "AudioVolumeMute",
            "AudioVolumeDown",
            "AudioVolumeUp",
            "MediaTrackNext",
            "MediaTrackPrevious",
            "MediaStop",
            "MediaPlayPause"));
    for (int i = 1; i <= 12; i++) {
      names.add("F" + i);
    }
    for (char c = 'A'; c <= 'Z'; c++) {
      names.add("Key" + c);
    }
    for (int i = 0; i <= 9; i++) {
      names.add("Digit" + i);
      names.add("Numpad" + i);
    }
    Map<String, String> byLower = new TreeMap<>();
    for (String n : names) {
      byLower.put(n.toLowerCase(Locale.ROOT), n);
    }
    byLower.put("esc", "Escape");
    byLower.put("return", "Enter");
    byLower.put("del", "Delete");
    byLower.put("spacebar", "Space");
    byLower.put("up", "ArrowUp");
    byLower.put("down", "ArrowDown");
    byLower.put("left", "ArrowLeft");
    byLower.put("right", "ArrowRight");
    return Map.copyOf(byLower);
  }
}
