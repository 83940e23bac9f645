package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.Request;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.browser.policy.PolicyProxy;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;

/**
 * Tells whether an action's main-document navigation was denied by the environment's policy proxy:
 * an http navigation gets the proxy's 403 (marked with {@link PolicyProxy#DENIAL_HEADER}), an https
 * or WebSocket one a refused tunnel, which counts as a denial only when the proxy recorded one for
 * that host during the action (else it is a transport failure, as is the proxy's 502 for a name
 * that does not resolve). Subresources the proxy denied are only blocked. Events arrive on the
 * driver's thread.
 */
final class NavigationDenials {
  private final Page page;
  private final PolicyProxy proxy;
  private long mark;
  private String deniedHost;
  private String transportFailure;

  NavigationDenials(Page page, PolicyProxy proxy) {
    this.page = page;
    this.proxy = proxy;
    page.onResponse(
        response -> {
          if (!mainNavigation(response.request())) {
            return;
          }
          var headers = response.headers();
          if (headers.containsKey(PolicyProxy.DENIAL_HEADER.toLowerCase(Locale.ROOT))) {
            deniedHost = host(response.url());
          } else if (headers.containsKey(PolicyProxy.TRANSPORT_HEADER.toLowerCase(Locale.ROOT))) {
            transportFailure = host(response.url());
          }
        });
    page.onRequestFailed(
        request -> {
          if (mainNavigation(request)) {
            String host = host(request.url());
            if (proxy.deniedSince(mark).stream().anyMatch(d -> d.host().equals(host))) {
              deniedHost = host;
            }
          }
        });
  }

  private boolean mainNavigation(Request request) {
    try {
      return request.isNavigationRequest() && request.frame() == page.mainFrame();
    } catch (RuntimeException detached) {
      return false;
    }
  }

  /**
   * Runs one action and fails it with the denial of its main document, if the policy denied it: a
   * navigation the proxy refused fails as a policy denial, not as the transport error it caused.
   */
  <T> T watch(java.util.concurrent.Callable<T> action) throws Exception {
    start();
    T result;
    try {
      result = action.call();
    } catch (com.microsoft.playwright.PlaywrightException | BrowserException e) {
      throw denial().map(d -> (Exception) d).orElse(e);
    }
    Optional<BrowserException> denied = denial();
    if (denied.isPresent()) {
      throw denied.get();
    }
    return result;
  }

  /** Starts watching one action. */
  private void start() {
    mark = proxy.denialMark();
    deniedHost = null;
    transportFailure = null;
  }

  /** The denial of this action's main document, naming the host and the reason. */
  private Optional<BrowserException> denial() {
    if (deniedHost == null && transportFailure != null) {
      return Optional.of(
          BrowserException.of(
              ErrorCode.BROWSER_ACTION_FAILED,
              transportFailure
                  + " could not be reached (it does not resolve, or the connection was refused)"));
    }
    if (deniedHost == null) {
      return Optional.empty();
    }
    String host = deniedHost;
    String reason =
        proxy.deniedSince(mark).stream()
            .filter(d -> d.host().equals(host))
            .map(PolicyProxy.Denial::reason)
            .findFirst()
            .orElse("denied");
    return Optional.of(
        BrowserException.of(
            ErrorCode.BROWSER_POLICY_DENIED,
            "the project's network policy denies " + host + ": " + reason));
  }

  static String host(String url) {
    try {
      String h = URI.create(url).getHost();
      return h == null ? "" : h.toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      return "";
    }
  }
}
