package dev.periscope.browser;

import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.api.browser.spi.NetworkPolicy;
import dev.periscope.browser.playwright.PlaywrightSettings;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.runtime.CredentialSettings;
import dev.periscope.browser.runtime.RecordingSettings;
import dev.periscope.browser.runtime.RuntimeSettings;
import dev.periscope.browser.tools.Mode;
import dev.periscope.browser.tools.ToolSettings;
import java.util.Optional;

/**
 * The plugin's settings, read once from the project's {@code plugins.browser} section, with the
 * defaults for what it leaves out, and handed out per package: the runtime's (with the policy every
 * environment is opened under), the Playwright provider's, the tools' and the credential channel's.
 * The host checks the section against plugin.yaml's schema; every value is checked here too, so a
 * host that skips the schema still cannot start the plugin with a bad one: a {@link
 * ConfigurationException} names it.
 */
public record BrowserSettings(
    RuntimeSettings runtime,
    PlaywrightSettings playwright,
    ToolSettings tools,
    CredentialSettings credentials,
    dev.periscope.browser.handoff.LiveViewServer.Settings handoff,
    boolean scriptingEnabled,
    RecordingSettings recording) {

  public static final SettingBound OBSERVE_MAX_TEXT_CHARS =
      new SettingBound("observeMaxTextChars", 12_000, 1, 60_000);
  public static final SettingBound OBSERVE_MAX_ELEMENTS =
      new SettingBound("observeMaxElements", 100, 1, 500);
  public static final SettingBound ACTION_TIMEOUT_MS =
      new SettingBound("actionTimeoutMs", 10_000, 100, 120_000);
  public static final SettingBound NAVIGATION_TIMEOUT_MS =
      new SettingBound("navigationTimeoutMs", 30_000, 100, 300_000);
  public static final SettingBound CLEANUP_TIMEOUT_MS =
      new SettingBound("cleanupTimeoutMs", 10_000, 100, 120_000);

  /**
   * How long past its own timeout a step of a call may run before the runtime stops it and discards
   * the browser.
   */
  public static final SettingBound TIMEOUT_MARGIN_MS =
      new SettingBound("timeoutMarginMs", 2_000, 100, 60_000);

  /** How long the page has to answer a liveness check. */
  public static final SettingBound LIVENESS_TIMEOUT_MS =
      new SettingBound("livenessTimeoutMs", 5_000, 200, 60_000);

  /** How long a dialog an action opened waits for the model's answer before it is dismissed. */
  public static final SettingBound DIALOG_TIMEOUT_MS =
      new SettingBound("dialogTimeoutMs", 60_000, 1_000, 600_000);

  /** The most tabs one environment keeps open. */
  public static final SettingBound MAX_TABS = new SettingBound("maxTabs", 8, 1, 32);

  /** The most bytes of IndexedDB and session storage one checkpoint keeps. */
  public static final SettingBound MAX_CHECKPOINT_STORAGE_BYTES =
      new SettingBound("maxCheckpointStorageBytes", 16 * 1024 * 1024, 0, 256 * 1024 * 1024);

  /** The most bytes of attachments one upload takes. */
  public static final SettingBound UPLOAD_MAX_BYTES =
      new SettingBound("uploads.maxBytes", 10 * 1024 * 1024, 1, 100 * 1024 * 1024);

  /** The most bytes one download may take. */
  public static final SettingBound DOWNLOAD_MAX_BYTES =
      new SettingBound("downloads.maxBytes", 25 * 1024 * 1024, 1, 1024 * 1024 * 1024);

  /** The most bytes one agent session's downloads may take in the attachment store together. */
  public static final SettingBound DOWNLOAD_SESSION_BUDGET_BYTES =
      new SettingBound("downloads.sessionBudgetBytes", 100 * 1024 * 1024, 1, Integer.MAX_VALUE);

  /** How many browsers (a driver and a Chromium each) the project's sessions share at most. */
  public static final SettingBound POOL_BROWSERS =
      new SettingBound("pool.browsers", PlaywrightSettings.defaultBrowsers(), 1, 8);

  public static final SettingBound MAX_SCREENSHOT_PIXELS =
      new SettingBound("maxScreenshotPixels", 16_000_000, 1, 100_000_000);
  public static final SettingBound MAX_SCREENSHOT_BYTES =
      new SettingBound("maxScreenshotBytes", 16 * 1024 * 1024, 1, 64 * 1024 * 1024);
  public static final SettingBound MAX_TRANSITIONS_IN_MEMORY =
      new SettingBound("maxTransitionsInMemory", 500, 1, 100_000);
  public static final SettingBound CHECKPOINT_TTL_HOURS =
      new SettingBound("checkpointTtlHours", 720, 1, 87_600);
  public static final SettingBound MAX_CHECKPOINTS =
      new SettingBound("maxCheckpoints", 200, 1, 100_000);

  public static final SettingBound VIEWPORT_WIDTH =
      new SettingBound("viewport.width", 1280, 320, 3840);
  public static final SettingBound VIEWPORT_HEIGHT =
      new SettingBound("viewport.height", 720, 240, 2160);

  /** Device pixels per CSS pixel, a fraction allowed (a 1.5 laptop screen): the default. */
  static final double DEVICE_SCALE_FACTOR = 1;

  /** Its bounds. */
  static final double MIN_DEVICE_SCALE_FACTOR = 1;

  static final double MAX_DEVICE_SCALE_FACTOR = 4;

  static double deviceScaleFactor(PluginConfiguration config) {
    Object raw = config.at("viewport.deviceScaleFactor").orElse(DEVICE_SCALE_FACTOR);
    if (!(raw instanceof Number n)
        || !(n.doubleValue() >= MIN_DEVICE_SCALE_FACTOR)
        || n.doubleValue() > MAX_DEVICE_SCALE_FACTOR) {
      throw new ConfigurationException(
          "plugins.browser.viewport.deviceScaleFactor",
          "plugins.browser.viewport.deviceScaleFactor must be a number from 1 to 4 (found "
              + raw
              + ")");
    }
    return n.doubleValue();
  }

  public static BrowserSettings from(PluginConfiguration config) {
    Optional<String> provider = config.string("provider");
    int actionTimeoutMs = ACTION_TIMEOUT_MS.read(config);
    int navigationTimeoutMs = NAVIGATION_TIMEOUT_MS.read(config);
    int cleanupTimeoutMs = CLEANUP_TIMEOUT_MS.read(config);
    int timeoutMarginMs = TIMEOUT_MARGIN_MS.read(config);
    EnvironmentPolicy environment =
        new EnvironmentPolicy(
            DestinationPolicy.read(config),
            new EnvironmentPolicy.Timeouts(actionTimeoutMs, navigationTimeoutMs),
            new EnvironmentPolicy.Viewport(
                VIEWPORT_WIDTH.read(config),
                VIEWPORT_HEIGHT.read(config),
                deviceScaleFactor(config)),
            new EnvironmentPolicy.ScreenshotLimits(
                MAX_SCREENSHOT_PIXELS.read(config), MAX_SCREENSHOT_BYTES.read(config)));
    RuntimeSettings runtime =
        new RuntimeSettings(
            provider,
            cleanupTimeoutMs,
            MAX_TRANSITIONS_IN_MEMORY.read(config),
            java.time.Duration.ofHours(CHECKPOINT_TTL_HOURS.read(config)),
            MAX_CHECKPOINTS.read(config),
            RuntimeSettings.Timeouts.of(
                actionTimeoutMs,
                navigationTimeoutMs,
                timeoutMarginMs,
                LIVENESS_TIMEOUT_MS.read(config)),
            environment);
    boolean downloads =
        config
            .at("downloads.enabled")
            .map(v -> (Boolean) v)
            .orElse(environment.network().mode() != NetworkPolicy.Mode.STRICT);
    PlaywrightSettings playwright =
        new PlaywrightSettings(
            config.string("chromium.executable"),
            config.string("node.executable"),
            config.at("chromium.headless").map(v -> (Boolean) v).orElse(true),
            cleanupTimeoutMs,
            timeoutMarginMs,
            POOL_BROWSERS.read(config),
            config.at("pool.prelaunch").map(v -> (Boolean) v).orElse(true),
            config.at("pool.spare").map(v -> (Boolean) v).orElse(true),
            DIALOG_TIMEOUT_MS.read(config),
            MAX_CHECKPOINT_STORAGE_BYTES.read(config),
            MAX_TABS.read(config),
            new PlaywrightSettings.Downloads(downloads, DOWNLOAD_MAX_BYTES.read(config)),
            config
                .string("pageEvents.console")
                .map(PlaywrightSettings.Console::of)
                .orElse(PlaywrightSettings.Console.ERRORS),
            dev.periscope.browser.playwright.GridSettings.read(config),
            dev.periscope.browser.playwright.CdpSettings.read(config));
    ToolSettings tools =
        new ToolSettings(
            provider,
            config
                .string("persistence")
                .map(p -> Persistence.valueOf(p.toUpperCase(java.util.Locale.ROOT)))
                .orElse(Persistence.RESUME),
            config.string("persistence").isPresent(),
            Mode.of(config.string("observeMode").orElse("summary")),
            OBSERVE_MAX_TEXT_CHARS.read(config),
            OBSERVE_MAX_ELEMENTS.read(config),
            actionTimeoutMs,
            new ToolSettings.Uploads(
                config
                    .at("uploads.enabled")
                    .map(v -> (Boolean) v)
                    .orElse(environment.network().mode() != NetworkPolicy.Mode.STRICT),
                config.at("uploads.enabled").isPresent(),
                UPLOAD_MAX_BYTES.read(config),
                uploadRoots(config)),
            new ToolSettings.Downloads(downloads, DOWNLOAD_SESSION_BUDGET_BYTES.read(config)));
    CredentialSettings credentials =
        new CredentialSettings(
            credentialRefs(config),
            config.at("credentials.requireApproval").map(v -> (Boolean) v).orElse(true),
            modelTypedPasswords(config));
    return new BrowserSettings(
        runtime,
        playwright,
        tools,
        credentials,
        handoff(config),
        config.at("scripting.enabled").map(v -> (Boolean) v).orElse(false),
        recording(config));
  }

  /** The most bytes one session's recording takes (its frames' images and text). */
  public static final SettingBound RECORDING_BUDGET_BYTES =
      new SettingBound("recording.budgetBytes", 16 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024);

  /** {@code recording.mode}: off, on-failure (the default) or always; and its budget. */
  private static RecordingSettings recording(PluginConfiguration config) {
    String mode = config.string("recording.mode").orElse("on-failure");
    try {
      return new RecordingSettings(
          RecordingSettings.Mode.of(mode), RECORDING_BUDGET_BYTES.read(config));
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(
          "plugins.browser.recording.mode",
          "plugins.browser.recording.mode must be off, on-failure or always (found " + mode + ")");
    }
  }

  /**
   * {@code uploads.roots}: the directories {@code browser_attach_file} reads from, each an absolute
   * path; none by default. A root need not exist yet: a call under one that does not is refused.
   */
  private static java.util.List<java.nio.file.Path> uploadRoots(PluginConfiguration config) {
    Object raw = config.at("uploads.roots").orElse(java.util.List.of());
    if (!(raw instanceof java.util.List<?> list)) {
      throw new ConfigurationException(
          "plugins.browser.uploads.roots",
          "plugins.browser.uploads.roots must be a list of absolute directory paths (found "
              + raw
              + ")");
    }
    java.util.List<java.nio.file.Path> roots = new java.util.ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      Object root = list.get(i);
      java.nio.file.Path path = null;
      if (root instanceof String s && !s.isEmpty() && s.indexOf('\0') < 0) {
        try {
          path = java.nio.file.Path.of(s);
        } catch (java.nio.file.InvalidPathException e) {
          path = null;
        }
      }
      if (path == null || !path.isAbsolute()) {
        throw new ConfigurationException(
            "plugins.browser.uploads.roots[" + i + "]",
            "plugins.browser.uploads.roots["
                + i
                + "] must be an absolute directory path (found "
                + root
                + ")");
      }
      roots.add(path.normalize());
    }
    return roots;
  }

  /** Where the live view of a handoff listens: one address, never every interface's. */
  private static dev.periscope.browser.handoff.LiveViewServer.Settings handoff(
      PluginConfiguration config) {
    String address = config.string("handoff.address").orElse("127.0.0.1");
    if (!dev.periscope.browser.policy.PolicyProxy.oneAddress(address)) {
      throw new ConfigurationException(
          "plugins.browser.handoff.address",
          "plugins.browser.handoff.address must be one address of this machine, not every"
              + " interface's (found "
              + address
              + ")");
    }
    return new dev.periscope.browser.handoff.LiveViewServer.Settings(
        address, HANDOFF_PORT.read(config));
  }

  public static final SettingBound HANDOFF_PORT = new SettingBound("handoff.port", 0, 0, 65_535);

  /** {@code credentials.modelTypedPasswords}: {@code allow} or {@code refuse} (the default). */
  private static boolean modelTypedPasswords(PluginConfiguration config) {
    String value = config.string("credentials.modelTypedPasswords").orElse("refuse");
    return switch (value) {
      case "allow" -> true;
      case "refuse" -> false;
      default ->
          throw new ConfigurationException(
              "plugins.browser.credentials.modelTypedPasswords",
              "plugins.browser.credentials.modelTypedPasswords must be allow or refuse (found "
                  + value
                  + ")");
    };
  }

  private static java.util.Map<String, String> credentialRefs(PluginConfiguration config) {
    Object raw = config.at("credentials.refs").orElse(java.util.Map.of());
    if (!(raw instanceof java.util.Map<?, ?> map)) {
      throw new ConfigurationException(
          "plugins.browser.credentials.refs",
          "plugins.browser.credentials.refs must map references to environment variable names");
    }
    java.util.Map<String, String> refs = new java.util.TreeMap<>();
    map.forEach(
        (ref, variable) -> {
          if (!(variable instanceof String name) || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new ConfigurationException(
                "plugins.browser.credentials.refs." + ref,
                "plugins.browser.credentials.refs."
                    + ref
                    + " must name an environment variable (found "
                    + variable
                    + ")");
          }
          refs.put(String.valueOf(ref), name);
        });
    return refs;
  }
}
