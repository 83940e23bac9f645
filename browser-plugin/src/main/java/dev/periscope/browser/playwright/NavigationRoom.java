package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.LoadState;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.CallDeadline;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.policy.PolicyProxy;
import java.net.URI;
import java.util.List;

/**
 * Where the current tab goes: an open (the policy's judgement first, then the navigation, once and,
 * for a page that keeps navigating itself, again on a fresh page), the history buttons, and the
 * reopening of a restored checkpoint's tabs. Each through the environment's pipelines ({@link
 * PlaywrightEnvironment#guarded}).
 */
final class NavigationRoom {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PlaywrightEnvironment.class);

  private final PlaywrightEnvironment env;

  /** The tabs the checkpoint the environment was restored from held, until they are reopened. */
  private BrowserStorage.SavedTabs saved;

  NavigationRoom(PlaywrightEnvironment env, BrowserStorage.SavedTabs saved) {
    this.env = env;
    this.saved = saved;
  }

  /**
   * Gives tab {@code t} a fresh page in place of one that is given up (it kept navigating itself,
   * or got no response headers), keeping the tab's number and place. The old page is closed if it
   * closes within {@value #OLD_PAGE_CLOSE_MS} ms; else it is left to close with the context, listed
   * as no tab. Chromium can hold a page's close for as long as the call has left (seen with a page
   * that loads many cross-site frames, as the open's deadline ran out), and the call has a page to
   * open meanwhile. On the lane's thread.
   */
  void replacePage(Tab t) {
    Page old = env.tabs().replacePage(t);
    try {
      env.lane()
          .briefly(
              OLD_PAGE_CLOSE_MS,
              () -> {
                old.close();
                return null;
              });
    } catch (PlaywrightException slow) {
      LOG.debug(
          "a page given up did not close within {} ms: {}", OLD_PAGE_CLOSE_MS, slow.toString());
    }
  }

  /** How long the replacement of a page waits for the old one to close. */
  private static final long OLD_PAGE_CLOSE_MS = 2_000;

  /** The page kept navigating itself while it was asked to go elsewhere, once and again. */
  private static final class SelfNavigating extends RuntimeException {
    SelfNavigating(PlaywrightException cause) {
      super(cause.getMessage(), cause);
    }
  }

  void navigate(BrowserAction.Navigate action) {
    refuseBeforeNavigating(action.url());
    navigateAdmitted(action.url());
  }

  /** Opens {@code url}, which the policy admitted, in the current tab. */
  void navigateAdmitted(String url) {
    // The response headers and the load share the step's one timeout.
    long timeoutEnds = env.deadline().timeoutEnds();
    try {
      navigateOnce(url, timeoutEnds);
    } catch (SelfNavigating e) {
      // A page that keeps navigating itself (a script redirecting in a loop) cut the navigation
      // short twice: it is given up for a fresh page, on which the navigation starts over within
      // the same timeout. Leaving it is bounded by that timeout too, so a browser slow to let it go
      // fails the open, not the browser.
      env.call(
          "leaving a page that keeps navigating",
          () -> {
            replacePage(env.tab());
            return null;
          });
      try {
        navigateOnce(url, timeoutEnds);
      } catch (SelfNavigating again) {
        throw BrowserException.of(
            ErrorCode.BROWSER_ACTION_FAILED,
            "opening " + url + " failed: " + ChromiumLog.summary(again.getMessage()),
            again.getCause());
      }
    }
  }

  /**
   * Policy first: a destination the policy proxy would refuse, or a name that does not resolve, is
   * refused here, as the proxy would refuse it, without Chromium: a refusal costs a judgement, not
   * a navigation. An admitted one is judged again by the proxy as Chromium connects, and so is
   * every redirect and subresource.
   */
  void refuseBeforeNavigating(String url) {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      return; // Chromium reads it its own way, through the proxy
    }
    String scheme = String.valueOf(uri.getScheme()).toLowerCase(java.util.Locale.ROOT);
    if (uri.getHost() == null || !(scheme.equals("http") || scheme.equals("https"))) {
      return;
    }
    int port = uri.getPort() > 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
    String host = NavigationOutcomes.host(url);
    DestinationPolicy.Verdict v = env.proxy().judgeNavigation(uri.getHost(), port);
    switch (v.outcome()) {
      case DENIED ->
          throw BrowserException.of(
              ErrorCode.BROWSER_POLICY_DENIED,
              "the project's network policy denies " + host + ": " + v.reason());
      case UNRESOLVED -> throw NavigationFailures.failed(host, PolicyProxy.unresolvedCause());
      case ADMITTED -> {}
    }
  }

  private void navigateOnce(String url, long timeoutEnds) {
    // The navigation ends with the timeout; the call's waits after it (a navigation the page
    // started
    // as it loaded) end within the call's deadline, and a call held past it fails the open before
    // the runtime stops it: not the browser.
    env.guarded(
        "opening " + url,
        false,
        () -> {
          try {
            for (int attempt = 1; ; attempt++) {
              try {
                var response =
                    env.tab()
                        .page
                        .navigate(
                            url,
                            new Page.NavigateOptions()
                                .setWaitUntil(
                                    com.microsoft.playwright.options.WaitUntilState.COMMIT)
                                .setTimeout(CallDeadline.msLeft(timeoutEnds)));
                if (response != null) {
                  env.tab().navigations.document(response);
                }
                break;
              } catch (PlaywrightException e) {
                if (e instanceof com.microsoft.playwright.TimeoutError
                    || !String.valueOf(e.getMessage())
                        .contains("is interrupted by another navigation")) {
                  throw e;
                }
                if (attempt == 2) {
                  throw new SelfNavigating(e);
                }
              }
            }
          } catch (com.microsoft.playwright.TimeoutError e) {
            // No response headers in time: this page is given up, and a fresh one takes its place.
            replacePage(env.tab());
            throw BrowserException.of(
                ErrorCode.BROWSER_NAVIGATION_FAILED,
                url
                    + " sent no response headers within "
                    + env.policy().timeouts().navigationMs()
                    + " ms; that page was closed and a fresh one opened",
                e);
          } catch (PlaywrightException e) {
            if (String.valueOf(e.getMessage()).contains("Cannot navigate to invalid URL")) {
              throw BrowserException.of(
                  ErrorCode.BROWSER_INVALID_URL,
                  "Chromium cannot navigate to " + url + ": it is not a valid URL");
            }
            if (String.valueOf(e.getMessage()).contains("net::ERR_")) {
              // Chromium commits its error page a moment after the navigation failed; wait for it,
              // so that it
              // cannot cut the next navigation short.
              try {
                env.tab()
                    .page
                    .waitForURL(
                        u -> u.startsWith("chrome-error:"),
                        new Page.WaitForURLOptions()
                            .setTimeout(2000)
                            .setWaitUntil(com.microsoft.playwright.options.WaitUntilState.COMMIT));
              } catch (PlaywrightException settled) {
                e.addSuppressed(settled);
              }
            }
            throw e;
          }
          try {
            // Not the whole navigation timeout: what follows (the guards' check, the observation)
            // must fit in the same call, and a page still loading then is observed as it stands.
            long loadDeadline =
                timeoutEnds - loadReserveMs(env.policy().timeouts().navigationMs()) * 1_000_000L;
            env.tab()
                .page
                .waitForLoadState(
                    LoadState.LOAD,
                    new Page.WaitForLoadStateOptions()
                        .setTimeout(Math.max(1, (loadDeadline - System.nanoTime()) / 1_000_000)));
          } catch (PlaywrightException e) {
            // Headers came; a page still loading is for the after-observation to show.
          }
          return null;
        });
  }

  /**
   * How much of an open's navigation timeout its wait for the load event leaves to what follows it
   * in the same call: a fifth, at most 5 s. A page whose subresources never finish would otherwise
   * take the whole timeout, and the call would overrun its deadline and cost the session its
   * browser.
   */
  static long loadReserveMs(long navigationTimeoutMs) {
    return Math.min(5_000, navigationTimeoutMs / 5);
  }

  void history(BrowserAction.History action) {
    BrowserAction.History.Move move = action.move();
    env.guarded(
        move.id(),
        () -> {
          if (move == BrowserAction.History.Move.RELOAD) {
            if (env.tab().page.url().equals("about:blank")) {
              throw BrowserException.of(
                      ErrorCode.BROWSER_POLICY_DENIED, "there is no page to reload")
                  .withUrl(env.tab().page.url());
            }
            env.tab().page.reload();
            return null;
          }
          String before = env.tab().page.url();
          Object response =
              move == BrowserAction.History.Move.BACK
                  ? env.tab().page.goBack()
                  : env.tab().page.goForward();
          boolean moved = response != null || !env.tab().page.url().equals(before);
          if (!moved) {
            throw BrowserException.of(
                    ErrorCode.BROWSER_POLICY_DENIED,
                    "there is no history entry to go " + move.id() + " to")
                .withUrl(env.tab().page.url());
          }
          return null;
        });
  }

  /**
   * Opens the tabs a restored checkpoint held, each at its URL (http and https only) through the
   * policy as any open, within {@value #REOPEN_BUDGET_MS} ms (or the navigation timeout, if
   * shorter) for them all: the one that was current first, in the page that holds the session
   * storage the checkpoint kept (it was that tab's), and current again; the others after it in
   * their order. A tab that cannot be reopened stays blank, and the next observation's page events
   * say why. Called once, by the runtime, right after the open ({@code
   * BrowserEnvironment.reopenSaved}), once the environment's egress guard is armed.
   */
  void reopenSaved() {
    BrowserStorage.SavedTabs saved = this.saved;
    this.saved = null;
    if (saved == null || saved.urls().isEmpty()) {
      return;
    }
    int current = Math.min(Math.max(0, saved.current()), saved.urls().size() - 1);
    List<String> urls = new java.util.ArrayList<>(saved.urls());
    urls.add(0, urls.remove(current));
    // The navigations share one deadline, as a step's would.
    CallDeadline reopen =
        CallDeadline.startingNow(
            Math.min(env.policy().timeouts().navigationMs(), REOPEN_BUDGET_MS),
            env.timeoutMarginMs());
    Tab first = env.tab();
    List<String> reopening = urls.subList(0, Math.min(urls.size(), env.tabs().max()));
    for (int i = 0; i < reopening.size(); i++) {
      String url = reopening.get(i);
      if (i > 0) {
        try {
          env.call("reopening a tab", env.tabs()::openBlank);
        } catch (BrowserException full) {
          // The checkpoint's page events say which tabs were left out.
          reopenReport(url + " was not reopened: " + full.getMessage());
          continue;
        }
      }
      if (!(url.startsWith("http://") || url.startsWith("https://"))) {
        continue;
      }
      try {
        if (CallDeadline.passed(reopen.timeoutEnds())) {
          throw new BrowserException(
              ErrorCode.BROWSER_NAVIGATION_FAILED, "no time was left to reopen it");
        }
        refuseBeforeNavigating(url);
        env.within(
            reopen,
            () -> {
              navigateOnce(url, reopen.timeoutEnds());
              return null;
            });
      } catch (BrowserException | SelfNavigating e) {
        reopenReport("tab " + env.tab().id + " was not reopened at " + url + ": " + e.getMessage());
      }
    }
    env.call(
        "reopening the tabs",
        () -> {
          env.tabs().select(first.id);
          return null;
        });
  }

  private void reopenReport(String line) {
    env.call(
        "reopening the tabs",
        () -> {
          env.tabs().report(line);
          return null;
        });
  }

  /** How long a restore may spend reopening its tabs at most. */
  static final long REOPEN_BUDGET_MS = 20_000;
}
