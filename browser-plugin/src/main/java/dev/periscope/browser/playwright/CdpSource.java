package dev.periscope.browser.playwright;

import com.microsoft.playwright.PlaywrightException;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.policy.PolicyProxy;
import dev.periscope.browser.policy.Resolver;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The cdp provider's browsers: each environment a tab of its own in the Chromium the user runs at
 * {@link PlaywrightSettings#cdp()}, over a connection of its own made over CDP, which closing only
 * ends ({@link BrowserPlace.User}). The browser's state and downloads are the user's; the network
 * policy holds only where the project accepts request-level enforcement ({@link UserTabs}).
 */
final class CdpSource implements BrowserSource {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PlaywrightProvider.class);

  /** How long the Chromium the cdp provider attaches to may take to say its version. */
  private static final long ATTACH_CHECK_MS = 5_000;

  private final PlaywrightSettings settings;
  private final Executables.Lookup node;
  private final Resolver resolver;

  CdpSource(PlaywrightSettings settings, Executables.Lookup node, Resolver resolver) {
    this.settings = settings;
    this.node = node;
    this.resolver = resolver;
  }

  @Override
  public String id() {
    return PlaywrightProvider.CDP_ID;
  }

  @Override
  public void logStart() {
    settings
        .cdp()
        .ifPresent(
            c ->
                LOG.info(
                    "browser provider {}: the Chromium at {}, network policy {}, Node.js {}",
                    PlaywrightProvider.CDP_ID,
                    c.url(),
                    c.requestLevelPolicy() ? "checked per request" : "not enforced",
                    node.path().map(Path::toString).orElse("not found")));
  }

  @Override
  public Optional<String> unavailableReason() {
    return settings.cdp().isEmpty()
        ? Optional.of(
            "no running Chromium is configured: set plugins.browser.cdp.url in the project")
        : Optional.empty();
  }

  /** Only by interception, where the project accepts that: the browser is not ours to proxy. */
  @Override
  public boolean enforcesPolicy() {
    return settings.cdp().map(CdpSettings::requestLevelPolicy).orElse(false);
  }

  /** The project may accept request-level enforcement. */
  @Override
  public Optional<String> policyRemedy() {
    return Optional.of(
        "choose a provider that enforces the policy, or accept request-level enforcement, which is weaker (no DNS pinning; WebRTC, service"
            + " workers, worker WebSockets and redirects in cross-site frames are not covered), with"
            + " plugins.browser.cdp.requestLevelPolicy: true");
  }

  /** The Chromium must say what it is first ({@link CdpCheck}); else the open fails at once. */
  @Override
  public Obtain obtain() {
    CdpCheck check = CdpCheck.of(settings.cdp().orElseThrow(), ATTACH_CHECK_MS);
    if (!check.ok()) {
      throw new BrowserException(
          ErrorCode.BROWSER_PROVIDER_UNAVAILABLE,
          check.detail() + (check.remedy() == null ? "" : ": " + check.remedy()));
    }
    return lane -> Optional.of(attach(lane, check));
  }

  /**
   * On the lane's thread: a connection of its own to the Chromium the user runs, for one
   * environment; {@code check} said what it is.
   */
  private Lane.Remote attach(Lane lane, CdpCheck check) {
    CdpSettings cdp = settings.cdp().orElseThrow();
    try {
      return new Lane.Remote(
          lane.attach(cdp.url(), ATTACH_CHECK_MS * 2),
          Optional.empty(),
          Optional.of("attached to " + check.browser() + " at " + cdp.url()));
    } catch (PlaywrightException e) {
      throw new BrowserException(
          ErrorCode.BROWSER_PROVIDER_UNAVAILABLE,
          "could not attach to the Chromium at "
              + cdp.url()
              + ": "
              + ChromiumLog.summary(String.valueOf(e.getMessage()))
              + " (is it still running, and is its DevTools port open to this host?)",
          e);
    }
  }

  @Override
  public PreparedContext prepare(
      Lane lane,
      Optional<Lane.Remote> remote,
      EnvironmentPolicy policy,
      DestinationPolicy destinations,
      String storageState) {
    return PreparedContext.attached(
        remote.orElseThrow().browser(),
        settings.cdp().orElseThrow().url(),
        // The user's Chromium judges its own requests (UserTabs): the proxy only judges.
        PolicyProxy.judgeOnly(destinations, resolver),
        policy.viewport(),
        settings.cdp().orElseThrow().requestLevelPolicy());
  }

  @Override
  public BrowserPlace place(Optional<Lane.Remote> remote, PreparedContext prepared) {
    return new BrowserPlace.User(remote.orElseThrow(), prepared.user());
  }

  /** The user's browser downloads as the user set it; nothing here keeps it. */
  @Override
  public PlaywrightSettings.Downloads downloads() {
    return new PlaywrightSettings.Downloads(false, 0);
  }

  /** A Chromium the user runs goes through no policy proxy: nothing to warm. */
  @Override
  public boolean warmsProxies() {
    return false;
  }

  @Override
  public boolean attaches() {
    return true;
  }
}
