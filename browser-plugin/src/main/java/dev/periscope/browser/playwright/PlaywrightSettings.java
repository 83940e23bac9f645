package dev.periscope.browser.playwright;

import java.util.Optional;

/**
 * What the Playwright provider is configured with: the Chromium and Node.js executables (else found
 * on the host), whether Chromium runs headless, and how long closing an environment may take. What
 * an environment must keep (its network policy, timeouts, viewport, screenshot limits) comes with
 * each request to open one.
 */
public record PlaywrightSettings(
    Optional<String> chromiumExecutable,
    Optional<String> nodeExecutable,
    boolean headless,
    long closeTimeoutMs) {}
