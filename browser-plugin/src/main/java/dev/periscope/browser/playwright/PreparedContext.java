package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.Proxy;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.browser.Cleanup;
import dev.periscope.browser.policy.PolicyProxy;

/**
 * A browser context ready for an environment: every connection through its own policy proxy, whose
 * credentials it has been taught ({@link ProxyBootstrap}), the page guards installed under a random
 * registry key, and its one page blank with no history (with the tabs a checkpoint would have
 * reopened, if it was restored from one). A lane keeps one made ahead of need (with an unassigned
 * proxy that refuses everything until an environment takes it), so a new session does not wait for
 * it. Made and discarded on the lane's thread.
 */
record PreparedContext(
    BrowserContext context,
    Page page,
    PolicyProxy proxy,
    String registryKey,
    BrowserStorage.SavedTabs tabs,
    UserTabs user,
    EgressRoutes egress) {

  /**
   * Makes one on {@code browser}, owning {@code proxy} (closed if this fails), with the storage
   * state of a checkpoint when {@code storageState} is not null; its guards let a download link
   * through when {@code downloadsAllowed} (the environment keeps what an action downloads) (its
   * session storage restored into the page, {@link BrowserStorage#restoreSession}).
   */
  static PreparedContext make(
      Browser browser,
      PolicyProxy proxy,
      EnvironmentPolicy.Viewport viewport,
      String storageState,
      boolean downloadsAllowed) {
    BrowserContext context = null;
    try {
      // No credentials here: Playwright would pause every request to answer proxy challenges.
      // ProxyBootstrap teaches the context the credentials once instead. Every connection,
      // loopback included, goes through this proxy.
      var options =
          new Browser.NewContextOptions()
              .setViewportSize(viewport.width(), viewport.height())
              .setProxy(new Proxy(proxy.server()));
      if (viewport.deviceScaleFactor() != 1) {
        // Only when asked: left unset, Chromium's own ratio of 1 is not emulated.
        options.setDeviceScaleFactor(viewport.deviceScaleFactor());
      }
      BrowserStorage.Stored stored =
          storageState == null ? null : BrowserStorage.split(storageState);
      if (stored != null) {
        options.setStorageState(stored.playwrightState());
      }
      context = browser.newContext(options);
      String registryKey = newRegistryKey();
      context.addInitScript(PageScripts.guards(registryKey, downloadsAllowed));
      // Its WebSockets pass through the egress guard's route from the first document on.
      EgressRoutes egress = EgressRoutes.onContext(context);
      Page page = context.newPage();
      // The browser learns the proxy's credentials from the proxy itself, before any page of the
      // agent loads.
      ProxyBootstrap.prime(page, proxy);
      if (stored != null) {
        BrowserStorage.restoreSession(context, page, stored.sessionStorage());
      }
      return new PreparedContext(
          context, page, proxy, registryKey, stored == null ? null : stored.tabs(), null, egress);
    } catch (RuntimeException e) {
      BrowserContext made = context;
      try {
        new Cleanup()
            .run(
                () -> {
                  if (made != null) {
                    made.close();
                  }
                })
            .run(proxy::close)
            .done();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /**
   * A tab of its own in the default context of {@code browser}, a Chromium the user runs (the cdp
   * provider), with {@code proxy} to judge its requests ({@link UserTabs}); the context stays the
   * user's. Closes {@code proxy} if this fails.
   */
  static PreparedContext attached(
      Browser browser,
      java.net.URI discovery,
      PolicyProxy proxy,
      EnvironmentPolicy.Viewport viewport,
      boolean requestLevelPolicy) {
    try {
      String registryKey = newRegistryKey();
      UserTabs user =
          new UserTabs(browser, discovery, registryKey, proxy, requestLevelPolicy, viewport);
      return new PreparedContext(
          user.context(), user.newTab(), proxy, registryKey, null, user, null);
    } catch (RuntimeException e) {
      try {
        proxy.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /** The page-global name of an environment's registry: random, so pages cannot rely on it. */
  private static String newRegistryKey() {
    return "__periscope_" + java.util.UUID.randomUUID().toString().replace("-", "");
  }

  /**
   * Closes the context (only its tab, when the context is the user's) and its proxy: an environment
   * never took it.
   */
  void discard() {
    new Cleanup().run(user == null ? context::close : page::close).run(proxy::close).done();
  }
}
