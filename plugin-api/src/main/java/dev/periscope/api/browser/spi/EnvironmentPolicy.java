package dev.periscope.api.browser.spi;

import java.util.Objects;

/**
 * Everything an environment is opened under that its provider must enforce: the project's network
 * policy, the timeouts of its actions and navigations, its viewport and the budgets of its
 * screenshots. The runtime builds it from the project's configuration and hands it to {@link
 * BrowserProvider#open} in each {@link BrowserProvider.OpenRequest}, so a provider contributed by
 * another plugin keeps the same rules as the built-in one without reading any configuration of its
 * own.
 *
 * <p>Immutable and thread-safe.
 */
public record EnvironmentPolicy(
    NetworkPolicy network, Timeouts timeouts, Viewport viewport, ScreenshotLimits screenshots) {
  public EnvironmentPolicy {
    Objects.requireNonNull(network, "network");
    Objects.requireNonNull(timeouts, "timeouts");
    Objects.requireNonNull(viewport, "viewport");
    Objects.requireNonNull(screenshots, "screenshots");
  }

  /**
   * The default of each setting, in {@link NetworkPolicy.Mode#STRICT} mode: what a project that
   * configures nothing gets.
   */
  public static EnvironmentPolicy defaults() {
    return new EnvironmentPolicy(
        NetworkPolicy.strict(),
        new Timeouts(10_000, 30_000),
        new Viewport(1280, 720),
        new ScreenshotLimits(16_000_000, 16L * 1024 * 1024));
  }

  /** This policy with another network policy. */
  public EnvironmentPolicy with(NetworkPolicy other) {
    return new EnvironmentPolicy(other, timeouts, viewport, screenshots);
  }

  /**
   * How long an action ({@code actionMs}) and a navigation ({@code navigationMs}) may take in the
   * browser. The runtime stops a step that runs past its timeout by more than its own margin, and
   * discards the environment.
   */
  public record Timeouts(long actionMs, long navigationMs) {
    public Timeouts {
      if (actionMs <= 0 || navigationMs <= 0) {
        throw new IllegalArgumentException(
            "timeouts must be positive: " + actionMs + ", " + navigationMs);
      }
    }

    /**
     * The longer of the two: what bounds a call made outside any step of the runtime's (the
     * runtime's margin is added by whoever bounds it). Since host API 2.11.0.
     */
    public long longerMs() {
      return Math.max(actionMs, navigationMs);
    }
  }

  /**
   * The page's viewport in CSS pixels, and its device scale factor (device pixels per CSS pixel;
   * since host API 2.5.0, 1 before).
   */
  public record Viewport(int width, int height, double deviceScaleFactor) {
    public Viewport {
      if (width <= 0 || height <= 0) {
        throw new IllegalArgumentException("a viewport must be positive: " + width + "x" + height);
      }
      if (!(deviceScaleFactor > 0) || Double.isInfinite(deviceScaleFactor)) {
        throw new IllegalArgumentException(
            "a device scale factor must be positive: " + deviceScaleFactor);
      }
    }

    /** A viewport of scale factor 1 (host API 2.4.0's). */
    public Viewport(int width, int height) {
      this(width, height, 1);
    }
  }

  /** The most device pixels a screenshot may cover, and the most bytes its PNG may take. */
  public record ScreenshotLimits(long maxPixels, long maxBytes) {
    public ScreenshotLimits {
      if (maxPixels <= 0 || maxBytes <= 0) {
        throw new IllegalArgumentException(
            "screenshot limits must be positive: " + maxPixels + ", " + maxBytes);
      }
    }
  }
}
