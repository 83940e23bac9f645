package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.PlaywrightException;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.policy.PolicyProxy;
import dev.periscope.browser.policy.Resolver;
import dev.periscope.browser.policy.Upstream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;

/**
 * The playwright provider's browsers: a context of each environment's own, with its policy proxy,
 * on the Chromium its lane launched here, which other environments share; a lane keeps a spare
 * context made ahead of need.
 */
final class LocalSource implements BrowserSource {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PlaywrightProvider.class);

  /** The viewport of the contexts lanes make ahead of need: the one sessions get by default. */
  static final EnvironmentPolicy.Viewport SPARE_VIEWPORT =
      new EnvironmentPolicy.Viewport(1280, 720);

  private final PlaywrightSettings settings;
  private final Executables.Lookup chromium;
  private final Executables.Lookup node;
  private final Resolver resolver;
  private final Upstream upstream;

  LocalSource(
      PlaywrightSettings settings,
      Executables.Lookup chromium,
      Executables.Lookup node,
      Resolver resolver,
      Upstream upstream) {
    this.settings = settings;
    this.chromium = chromium;
    this.node = node;
    this.resolver = resolver;
    this.upstream = upstream;
  }

  @Override
  public String id() {
    return PlaywrightProvider.ID;
  }

  @Override
  public void logStart() {
    LOG.info(
        "browser provider {}: Chromium {} ({}), Node.js {}",
        PlaywrightProvider.ID,
        chromium.path().map(Path::toString).orElse("not found"),
        settings.headless() ? "headless" : "headed",
        node.path().map(Path::toString).orElse("not found"));
  }

  @Override
  public Optional<String> unavailableReason() {
    return chromium.path().isEmpty() ? Optional.of(chromium.reason()) : Optional.empty();
  }

  @Override
  public boolean enforcesPolicy() {
    return true;
  }

  /**
   * On the lane's thread: the lane's spare context, given this environment's policy, when the
   * environment starts empty; else a context made now (a restore's, with the checkpoint's storage).
   */
  @Override
  public PreparedContext prepare(
      Lane lane,
      Optional<Lane.Remote> remote,
      EnvironmentPolicy policy,
      DestinationPolicy destinations,
      String storageState) {
    // A spare's viewport is its browser context's, fixed when it was made (a page resized later
    // would leave the context's next pages, a popup's, at the old size).
    if (storageState == null && policy.viewport().equals(SPARE_VIEWPORT)) {
      PreparedContext spare = lane.takeSpare();
      if (spare != null && !answers(spare)) {
        // Its renderer died while it waited: it is no one's loss, and a fresh one is made.
        try {
          spare.discard();
        } catch (RuntimeException gone) {
          // its context went with its renderer
        }
        spare = null;
      }
      if (spare != null) {
        spare.proxy().assign(destinations);
        return spare;
      }
    }
    return PreparedContext.make(
        lane.browser(),
        new PolicyProxy(destinations, resolver, upstream),
        policy.viewport(),
        storageState,
        settings.downloads().enabled());
  }

  private static boolean answers(PreparedContext spare) {
    try {
      spare.page().evaluate("1");
      return true;
    } catch (PlaywrightException e) {
      return false;
    }
  }

  @Override
  public PlaywrightSettings.Downloads downloads() {
    return settings.downloads();
  }

  /** The lane's own browser died as the open began: the pool retires it, another lane serves. */
  @Override
  public boolean reopensOnDeadLane() {
    return true;
  }

  @Override
  public Optional<Function<Browser, PreparedContext>> spares() {
    return settings.spare()
        ? Optional.of(
            browser ->
                PreparedContext.make(
                    browser,
                    PolicyProxy.unassigned(resolver, upstream),
                    SPARE_VIEWPORT,
                    null,
                    settings.downloads().enabled()))
        : Optional.empty();
  }
}
