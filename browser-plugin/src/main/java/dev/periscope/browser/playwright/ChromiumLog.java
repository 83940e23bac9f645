package dev.periscope.browser.playwright;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes Playwright's failures readable for a model: the first line of the error's message, and for
 * a launch failure Chromium's first fatal line. Never the driver's JavaScript stack, call log or
 * file paths.
 */
final class ChromiumLog {
  /**
   * Playwright 1.62 formats errors as {@code Error {\n message='...'\n name='...'\n stack='...'}}.
   */
  private static final Pattern MESSAGE = Pattern.compile("message='([^\n']*)");

  private static final Pattern FATAL = Pattern.compile("FATAL:[^\s]*\s+([^\n]*)");

  private ChromiumLog() {}

  static String summary(String message) {
    if (message == null || message.isBlank()) {
      return "no reason given";
    }
    Matcher m = MESSAGE.matcher(message);
    String first =
        m.find() ? m.group(1).trim() : message.strip().lines().findFirst().orElse("").trim();
    Matcher fatal = FATAL.matcher(message);
    return fatal.find() ? first + " (Chromium: " + fatal.group(1).trim() + ")" : first;
  }
}
