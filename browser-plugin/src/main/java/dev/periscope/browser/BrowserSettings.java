package dev.periscope.browser;

import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.browser.Persistence;
import java.util.Optional;

/**
 * The plugin's settings, read once from the project's {@code plugins.browser} section (already validated
 * against the schema in plugin.yaml), with the defaults for what the section leaves out.
 */
public record BrowserSettings(
    Optional<String> provider,
    Optional<String> chromiumExecutable,
    Optional<String> nodeExecutable,
    boolean headless,
    Persistence persistence,
    int observeMaxTextChars,
    int observeMaxElements,
    int actionTimeoutMs,
    int navigationTimeoutMs,
    int viewportWidth,
    int viewportHeight) {

  public static BrowserSettings from(PluginConfiguration config) {
    return new BrowserSettings(
        config.string("provider"),
        config.string("chromium.executable"),
        config.string("node.executable"),
        config.at("chromium.headless").map(v -> (Boolean) v).orElse(true),
        config.string("persistence").map(p -> Persistence.valueOf(p.toUpperCase())).orElse(Persistence.RESUME),
        config.at("observeMaxTextChars").map(v -> ((Number) v).intValue()).orElse(4000),
        config.at("observeMaxElements").map(v -> ((Number) v).intValue()).orElse(40),
        10_000,
        30_000,
        1280,
        720);
  }
}
