package dev.periscope.browser;

import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.api.browser.spi.NetworkPolicy;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.runtime.RuntimeSettings;
import java.util.Optional;

/**
 * The plugin's settings, read once from the project's {@code plugins.browser} section, with the defaults for what
 * it leaves out. The host checks the section against plugin.yaml's schema; every number is checked against its
 * bounds here too, so a host that skips the schema still cannot start the plugin with a bad value.
 */
public record BrowserSettings(
    Optional<String> provider,
    Optional<String> chromiumExecutable,
    Optional<String> nodeExecutable,
    boolean headless,
    Persistence persistence,
    String observeMode,
    int observeMaxTextChars,
    int observeMaxElements,
    int actionTimeoutMs,
    int navigationTimeoutMs,
    int cleanupTimeoutMs,
    int timeoutMarginMs,
    int livenessTimeoutMs,
    int maxTransitionsInMemory,
    long maxScreenshotPixels,
    long maxScreenshotBytes,
    int viewportWidth,
    int viewportHeight,
    int checkpointTtlHours,
    int maxCheckpoints,
    boolean persistenceConfigured,
    boolean requireApproval,
    java.util.Map<String, String> credentialRefs,
    NetworkPolicy network) {

  public BrowserSettings {
    credentialRefs = java.util.Map.copyOf(credentialRefs);
  }

  /** A numeric setting: its name in {@code plugins.browser}, its default and its bounds. */
  public record Bound(String name, int defaultValue, int min, int max) {
    int read(PluginConfiguration config) {
      Object raw = config.at(name).orElse(defaultValue);
      if (!(raw instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
          || n.longValue() < min || n.longValue() > max) {
        throw new ConfigurationException("plugins.browser." + name,
            "plugins.browser." + name + " must be an integer from " + min + " to " + max + " (found " + raw + ")");
      }
      return n.intValue();
    }
  }

  public static final Bound OBSERVE_MAX_TEXT_CHARS = new Bound("observeMaxTextChars", 12_000, 1, 60_000);
  public static final Bound OBSERVE_MAX_ELEMENTS = new Bound("observeMaxElements", 100, 1, 500);
  public static final Bound ACTION_TIMEOUT_MS = new Bound("actionTimeoutMs", 10_000, 100, 120_000);
  public static final Bound NAVIGATION_TIMEOUT_MS = new Bound("navigationTimeoutMs", 30_000, 100, 300_000);
  public static final Bound CLEANUP_TIMEOUT_MS = new Bound("cleanupTimeoutMs", 10_000, 100, 120_000);
  /** How long past its own timeout a step of a call may run before the runtime stops it and discards the browser. */
  public static final Bound TIMEOUT_MARGIN_MS = new Bound("timeoutMarginMs", 2_000, 100, 60_000);
  /** How long the page has to answer a liveness check. */
  public static final Bound LIVENESS_TIMEOUT_MS = new Bound("livenessTimeoutMs", 5_000, 200, 60_000);
  public static final Bound MAX_SCREENSHOT_PIXELS = new Bound("maxScreenshotPixels", 16_000_000, 1, 100_000_000);
  public static final Bound MAX_SCREENSHOT_BYTES = new Bound("maxScreenshotBytes", 16 * 1024 * 1024, 1, 64 * 1024 * 1024);
  public static final Bound MAX_TRANSITIONS_IN_MEMORY = new Bound("maxTransitionsInMemory", 500, 1, 100_000);
  public static final Bound CHECKPOINT_TTL_HOURS = new Bound("checkpointTtlHours", 720, 1, 87_600);
  public static final Bound MAX_CHECKPOINTS = new Bound("maxCheckpoints", 200, 1, 100_000);

  public static BrowserSettings from(PluginConfiguration config) {
    return new BrowserSettings(
        config.string("provider"),
        config.string("chromium.executable"),
        config.string("node.executable"),
        config.at("chromium.headless").map(v -> (Boolean) v).orElse(true),
        config.string("persistence").map(p -> Persistence.valueOf(p.toUpperCase())).orElse(Persistence.RESUME),
        config.string("observeMode").orElse("summary"),
        OBSERVE_MAX_TEXT_CHARS.read(config),
        OBSERVE_MAX_ELEMENTS.read(config),
        ACTION_TIMEOUT_MS.read(config),
        NAVIGATION_TIMEOUT_MS.read(config),
        CLEANUP_TIMEOUT_MS.read(config),
        TIMEOUT_MARGIN_MS.read(config),
        LIVENESS_TIMEOUT_MS.read(config),
        MAX_TRANSITIONS_IN_MEMORY.read(config),
        MAX_SCREENSHOT_PIXELS.read(config),
        MAX_SCREENSHOT_BYTES.read(config),
        1280,
        720,
        CHECKPOINT_TTL_HOURS.read(config),
        MAX_CHECKPOINTS.read(config),
        config.string("persistence").isPresent(),
        config.at("credentials.requireApproval").map(v -> (Boolean) v).orElse(true),
        credentialRefs(config),
        DestinationPolicy.read(config));
  }

  private static java.util.Map<String, String> credentialRefs(PluginConfiguration config) {
    Object raw = config.at("credentials.refs").orElse(java.util.Map.of());
    if (!(raw instanceof java.util.Map<?, ?> map)) {
      throw new ConfigurationException("plugins.browser.credentials.refs",
          "plugins.browser.credentials.refs must map references to environment variable names");
    }
    java.util.Map<String, String> refs = new java.util.TreeMap<>();
    map.forEach((ref, variable) -> {
      if (!(variable instanceof String name) || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new ConfigurationException("plugins.browser.credentials.refs." + ref, "plugins.browser.credentials.refs."
            + ref + " must name an environment variable (found " + variable + ")");
      }
      refs.put(String.valueOf(ref), name);
    });
    return refs;
  }

  /** What every environment of this project is opened under, whichever provider opens it. */
  public EnvironmentPolicy environment() {
    return new EnvironmentPolicy(network, new EnvironmentPolicy.Timeouts(actionTimeoutMs, navigationTimeoutMs),
        new EnvironmentPolicy.Viewport(viewportWidth, viewportHeight),
        new EnvironmentPolicy.ScreenshotLimits(maxScreenshotPixels, maxScreenshotBytes));
  }

  public RuntimeSettings runtime() {
    return new RuntimeSettings(provider, cleanupTimeoutMs, maxTransitionsInMemory,
        java.time.Duration.ofHours(checkpointTtlHours), maxCheckpoints, RuntimeSettings.Timeouts.of(actionTimeoutMs,
            navigationTimeoutMs, timeoutMarginMs, livenessTimeoutMs), environment());
  }
}
