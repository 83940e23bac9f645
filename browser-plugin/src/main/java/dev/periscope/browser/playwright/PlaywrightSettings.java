package dev.periscope.browser.playwright;

import java.util.Optional;

/**
 * What the Playwright provider is configured with: the Chromium and Node.js executables (else found
 * on the host), whether Chromium runs headless, how long closing an environment may take, how many
 * browsers its environments share at most, whether the first starts with the host, and whether each
 * keeps a context ready for the next session, and how many tabs an environment keeps at most. What
 * an environment must keep (its network policy, timeouts, viewport, screenshot limits) comes with
 * each request to open one. {@code grid} is where the grid provider opens browsers, when the
 * project names a Selenium Grid; {@code cdp} the Chromium the user runs that the cdp provider
 * attaches to, when the project names one. {@code timeoutMarginMs} is the runtime's margin past a
 * step's timeout (the setting of that name): the provider's own bounds end within it.
 */
public record PlaywrightSettings(
    Optional<String> chromiumExecutable,
    Optional<String> nodeExecutable,
    boolean headless,
    long closeTimeoutMs,
    long timeoutMarginMs,
    int browsers,
    boolean prelaunch,
    boolean spare,
    long dialogTimeoutMs,
    long maxCheckpointStorageBytes,
    int maxTabs,
    Downloads downloads,
    Console console,
    java.util.Optional<GridSettings> grid,
    java.util.Optional<CdpSettings> cdp) {
  /**
   * Whether a download an action starts is kept (in quarantine, for the attachment store) rather
   * than cancelled, and the most bytes one may take.
   */
  public record Downloads(boolean enabled, long maxBytes) {}

  /** {@code pageEvents.console}: what of a page's complaints its observations list. */
  public enum Console {
    /** Nothing. */
    OFF,
    /** Console errors and warnings, uncaught errors, failed requests. The default. */
    ERRORS,
    /** Also every other console message (log, info, debug). */
    ALL;

    /** The setting's value ({@code off}, {@code errors}, {@code all}). */
    public static Console of(String setting) {
      return valueOf(setting.toUpperCase(java.util.Locale.ROOT));
    }
  }

  /** The pool's default size: one browser per core, at least 2 and at most 4. */
  public static int defaultBrowsers() {
    return Math.min(Math.max(2, Runtime.getRuntime().availableProcessors()), 4);
  }
}
