package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.CDPSession;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Route;
import com.microsoft.playwright.WebSocketRoute;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.policy.PolicyProxy;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An environment's share of a Chromium the user runs (the cdp provider): its tabs are its own,
 * opened in the background of the user's browsing context, and everything else there is the user's.
 * Its tabs get the page guards as they load, the viewport of the project, and, when the project
 * accepts request-level enforcement, every request and WebSocket they make judged by the
 * environment's policy before it leaves (a refusal recorded as the policy proxy records its own, so
 * a refused navigation fails {@code BROWSER_POLICY_DENIED} as it would elsewhere). Used on the
 * lane's thread only.
 */
final class UserTabs {
  private final Browser browser;
  private final BrowserContext context;
  private final String registryKey;
  private final PolicyProxy judge;
  private final boolean requestLevel;
  private final EnvironmentPolicy.Viewport viewport;
  private final Set<Page> equipped = Collections.newSetFromMap(new IdentityHashMap<>());

  private static final Pattern EVERY_URL = Pattern.compile(".*");

  /**
   * The share of {@code browser} (a connection over CDP) in its default context; {@code judge}
   * judges every request when {@code requestLevel}, and keeps the record of its refusals.
   */
  UserTabs(
      Browser browser,
      String registryKey,
      PolicyProxy judge,
      boolean requestLevel,
      EnvironmentPolicy.Viewport viewport) {
    if (browser.contexts().isEmpty()) {
      throw new IllegalStateException("the attached Chromium has no browsing context to share");
    }
    this.browser = browser;
    this.context = browser.contexts().get(0);
    this.registryKey = registryKey;
    this.judge = judge;
    this.requestLevel = requestLevel;
    this.viewport = viewport;
  }

  /** The user's browsing context, which the environment's tabs are in. */
  BrowserContext context() {
    return context;
  }

  /**
   * A blank tab of the environment's own, in a window of its own opened in the background: the
   * user's window and the tab they look at stay in front, and the tab is its window's current one,
   * which Chromium paints (a background tab of the user's window it would not, and a screenshot of
   * it would wait in vain).
   */
  Page newTab() {
    CDPSession cdp = browser.newBrowserCDPSession();
    try {
      com.google.gson.JsonObject params = new com.google.gson.JsonObject();
      params.addProperty("url", "about:blank");
      params.addProperty("newWindow", true);
      params.addProperty("background", true);
      Page page =
          context.waitForPage(
              new BrowserContext.WaitForPageOptions()
                  .setPredicate(p -> !equipped.contains(p) && "about:blank".equals(p.url())),
              () -> cdp.send("Target.createTarget", params));
      equip(page);
      return page;
    } finally {
      cdp.detach();
    }
  }

  /**
   * Whether {@code page}, which appeared in the user's context, is one an environment's tab opened
   * ({@code ours} holds the environment's pages): a page the user opens is none of its business.
   */
  static boolean openedBy(Page page, java.util.function.Predicate<Page> ours) {
    Page opener = page.opener();
    return opener != null && ours.test(opener);
  }

  /**
   * Whether its pages may open new windows: not under request-level enforcement, where a window's
   * first request would leave before its checks are in place. The guards refuse them, and one that
   * opens all the same is closed as it appears.
   */
  boolean windowsAllowed() {
    return !requestLevel;
  }

  /** Gives a tab of the environment its guards, viewport and request checks, once. */
  void equip(Page page) {
    if (!equipped.add(page)) {
      return;
    }
    page.setViewportSize(viewport.width(), viewport.height());
    // Its next document and every one after it; a popup's first is already loading.
    page.addInitScript(PageScripts.guards(registryKey, false, windowsAllowed()));
    if (requestLevel) {
      page.route(EVERY_URL, this::judged);
      page.routeWebSocket(EVERY_URL, this::judged);
    }
  }

  /** A request of an environment's tab, let through or refused by the policy. */
  private void judged(Route route) {
    Verdict v = verdict(route.request().url());
    switch (v) {
      case ADMITTED -> route.resume();
      case UNRESOLVED -> route.abort("namenotresolved");
      default -> route.abort("blockedbyclient");
    }
  }

  /** A WebSocket of an environment's tab: connected to its server only if the policy admits it. */
  private void judged(WebSocketRoute socket) {
    if (verdict(socket.url()) == Verdict.ADMITTED) {
      socket.connectToServer();
    } else {
      socket.close(new WebSocketRoute.CloseOptions().setCode(1008).setReason("policy"));
    }
  }

  private enum Verdict {
    ADMITTED,
    DENIED,
    UNRESOLVED
  }

  /**
   * What the policy says of a request to {@code url}: a page's own data and blob URLs stay in the
   * page; every other scheme than http(s) and ws(s) is refused.
   */
  private Verdict verdict(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return Verdict.DENIED;
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (scheme.equals("data") || scheme.equals("blob") || scheme.equals("about")) {
      return Verdict.ADMITTED;
    }
    boolean secure = scheme.equals("https") || scheme.equals("wss");
    if (!(secure || scheme.equals("http") || scheme.equals("ws")) || uri.getHost() == null) {
      return Verdict.DENIED;
    }
    int port = uri.getPort() == -1 ? (secure ? 443 : 80) : uri.getPort();
    DestinationPolicy.Verdict v = judge.judgeNavigation(uri.getHost(), port);
    return switch (v.outcome()) {
      case ADMITTED -> Verdict.ADMITTED;
      case UNRESOLVED -> Verdict.UNRESOLVED;
      default -> Verdict.DENIED;
    };
  }
}
