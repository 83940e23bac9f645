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
  private final Set<Page> equipped =
      Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

  private static final Pattern EVERY_URL = Pattern.compile(".*");
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(UserTabs.class);

  /** The browser's DevTools discovery address, which closes a tab without any driver. */
  private final java.net.URI discovery;

  /** The targets of the tabs it opened itself, so they close even once its driver is gone. */
  private final Set<String> targets = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * The share of {@code browser} (a connection over CDP) in its default context; {@code judge}
   * judges every request when {@code requestLevel}, and keeps the record of its refusals.
   */
  UserTabs(
      Browser browser,
      java.net.URI discovery,
      String registryKey,
      PolicyProxy judge,
      boolean requestLevel,
      EnvironmentPolicy.Viewport viewport) {
    if (browser.contexts().isEmpty()) {
      throw new IllegalStateException("the attached Chromium has no browsing context to share");
    }
    this.browser = browser;
    this.discovery = discovery;
    this.context = browser.contexts().get(0);
    this.registryKey = registryKey;
    this.judge = judge;
    this.requestLevel = requestLevel;
    this.viewport = viewport;
  }

  /** Every page the environment has had here, open or closed: safe to read from any thread. */
  java.util.List<Page> pages() {
    synchronized (equipped) {
      return java.util.List.copyOf(equipped);
    }
  }

  /**
   * Closes the tabs it opened itself through the browser's discovery address, which needs no
   * driver: what {@link #equip} put on them goes with their driver, and a tab left open would be
   * the page's, unchecked, with the user's logins. One already closed is no failure; each request
   * is bounded.
   */
  void closeOpened() {
    closeByDiscovery(java.util.List.copyOf(targets));
  }

  private void closeByDiscovery(java.util.List<String> ids) {
    for (String id : ids) {
      try {
        java.net.http.HttpResponse<Void> r =
            CdpCheck.HTTP
                .sendAsync(
                    java.net.http.HttpRequest.newBuilder(
                            discovery.resolve(
                                "/json/close/"
                                    + java.net.URLEncoder.encode(
                                        id, java.nio.charset.StandardCharsets.UTF_8)))
                        .timeout(java.time.Duration.ofSeconds(2))
                        .build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding())
                .get(3, java.util.concurrent.TimeUnit.SECONDS);
        if (r.statusCode() == 200 || r.statusCode() == 404) {
          targets.remove(id);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        // the browser is gone, or does not answer: nothing more to do here
      }
    }
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
    return newTab(() -> {});
  }

  /**
   * {@link #newTab()}, with {@code justBefore} run just before the tab is asked for (a test opens a
   * blank tab of the user's there, whose page comes first).
   */
  Page newTab(Runnable justBefore) {
    CDPSession cdp = browser.newBrowserCDPSession();
    try {
      com.google.gson.JsonObject params = new com.google.gson.JsonObject();
      params.addProperty("url", "about:blank");
      params.addProperty("newWindow", true);
      params.addProperty("background", true);
      java.util.concurrent.atomic.AtomicReference<String> made =
          new java.util.concurrent.atomic.AtomicReference<>();
      try {
        Page page =
            context.waitForPage(
                new BrowserContext.WaitForPageOptions()
                    .setPredicate(p -> !equipped.contains(p) && "about:blank".equals(p.url())),
                () -> {
                  justBefore.run();
                  String id = cdp.send("Target.createTarget", params).get("targetId").getAsString();
                  targets.add(id);
                  made.set(id);
                });
        if (!made.get().equals(targetId(page))) {
          // A blank tab of the user's came at the same moment (their own window.open()): it stays
          // theirs, and the environment's is found by its target.
          page = blankTab(made.get());
        }
        equip(page);
        return page;
      } catch (RuntimeException e) {
        // A tab made for nothing is not left in the user's browser.
        if (made.get() != null) {
          closeByDiscovery(java.util.List.of(made.get()));
        }
        throw e;
      }
    } finally {
      cdp.detach();
    }
  }

  /**
   * The DevTools target of {@code page}, which names it across sessions and drivers; null when the
   * page closed meanwhile (a user's tab may).
   */
  private String targetId(Page page) {
    try {
      CDPSession session = context.newCDPSession(page);
      try {
        return session
            .send("Target.getTargetInfo")
            .getAsJsonObject("targetInfo")
            .get("targetId")
            .getAsString();
      } finally {
        session.detach();
      }
    } catch (com.microsoft.playwright.PlaywrightException closed) {
      return null;
    }
  }

  /** The blank tab of target {@code id}, open now or the next to appear within 10 s. */
  private Page blankTab(String id) {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (true) {
      for (Page p : context.pages()) {
        if (!equipped.contains(p) && "about:blank".equals(p.url()) && id.equals(targetId(p))) {
          return p;
        }
      }
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        throw new IllegalStateException("the environment's new tab did not appear");
      }
      // Short waits: the page may have come while the targets above were read.
      try {
        context.waitForPage(
            new BrowserContext.WaitForPageOptions().setTimeout(Math.min(left, 100)), () -> {});
      } catch (com.microsoft.playwright.TimeoutError none) {
        // looked at again
      }
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
    CDPSession hops = context.newCDPSession(page);
    // Nothing the agent's tab downloads lands in the user's downloads (the user's own tabs download
    // as they always do).
    com.google.gson.JsonObject deny = new com.google.gson.JsonObject();
    deny.addProperty("behavior", "deny");
    try {
      hops.send("Page.setDownloadBehavior", deny);
    } catch (com.microsoft.playwright.PlaywrightException e) {
      LOG.warn(
          "the agent's tab in the attached Chromium could not refuse downloads: {}",
          e.getMessage());
    }
    if (requestLevel) {
      // Playwright's routes judge a request's first hop, in the page and in its frames' own
      // processes, and let every redirect after it through unseen; this session of the page's own
      // judges every hop of the page's process, redirects included.
      hops.on("Fetch.requestPaused", paused -> judged(hops, paused));
      com.google.gson.JsonObject every = new com.google.gson.JsonObject();
      every.addProperty("urlPattern", "*");
      every.addProperty("requestStage", "Request");
      com.google.gson.JsonArray patterns = new com.google.gson.JsonArray();
      patterns.add(every);
      com.google.gson.JsonObject enable = new com.google.gson.JsonObject();
      enable.add("patterns", patterns);
      hops.send("Fetch.enable", enable);
      page.route(EVERY_URL, this::judged);
      page.routeWebSocket(EVERY_URL, this::judged);
    }
  }

  /** A request (or a redirect's next hop) the page's own session paused: let through or failed. */
  private void judged(CDPSession hops, com.google.gson.JsonObject paused) {
    com.google.gson.JsonObject answer = new com.google.gson.JsonObject();
    answer.addProperty("requestId", paused.get("requestId").getAsString());
    Verdict v = verdict(paused.getAsJsonObject("request").get("url").getAsString());
    try {
      if (v == Verdict.ADMITTED) {
        hops.send("Fetch.continueRequest", answer);
      } else {
        answer.addProperty(
            "errorReason", v == Verdict.UNRESOLVED ? "NameNotResolved" : "BlockedByClient");
        hops.send("Fetch.failRequest", answer);
      }
    } catch (com.microsoft.playwright.PlaywrightException e) {
      // the page or its request went meanwhile
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

  /** Whether the policy admits a request to {@code url} (always, without request-level checks). */
  boolean admits(String url) {
    return !requestLevel || verdict(url) == Verdict.ADMITTED;
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
