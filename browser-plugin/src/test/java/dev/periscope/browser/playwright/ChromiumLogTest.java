package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ChromiumLogTest {
  @Test
  void keepsTheMessageAndChromiumsFatalLineButNoStackOrPaths() {
    String playwright =
        """
        Error {
          message='Target page, context or browser has been closed
        Browser logs:
        [pid=1][err] [1:1:1130/082222.014159:FATAL:chrome/browser/process_singleton_posix.cc:315] Socket path too long: /tmp/x/SingletonSocket.
          name='TargetClosedError
          stack='TargetClosedError: Target page, context or browser has been closed
            at DispatcherConnection.dispatch (/tmp/periscope-1/playwright-java-2/package/lib/coreBundle.js:18786:19)
        }""";
    assertEquals(
        "Target page, context or browser has been closed (Chromium: Socket path too long:"
            + " /tmp/x/SingletonSocket.)",
        ChromiumLog.summary(playwright));
  }

  @Test
  void keepsTheFirstLineOfAnUnformattedMessage() {
    assertEquals(
        "Timeout 10000ms exceeded.",
        ChromiumLog.summary("Timeout 10000ms exceeded.\nCall log:\n  - waiting"));
    assertEquals("no reason given", ChromiumLog.summary(null));
  }
}
