package dev.periscope.browser.playwright;

/** Makes Playwright's launch failures readable: its first line and Chromium's first fatal line, no call log. */
final class ChromiumLog {
  private ChromiumLog() {}

  static String summary(String message) {
    if (message == null) {
      return "no reason given";
    }
    String[] lines = message.split("\n");
    String first = lines[0].replaceFirst("^Error \\{\\s*message='", "").trim();
    for (String line : lines) {
      int fatal = line.indexOf("FATAL:");
      if (fatal >= 0) {
        return first + " (" + line.substring(fatal).trim() + ")";
      }
    }
    return first;
  }
}
