package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.Request;
import com.microsoft.playwright.Response;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.policy.PolicyProxy;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How an action's main-document navigation ended, and the HTTP status of the document shown.
 *
 * <p>Denied by the environment's policy proxy: an http navigation gets the proxy's 403 (marked with
 * {@link PolicyProxy#DENIAL_HEADER}), an https or WebSocket one a refused tunnel, which counts as a
 * denial when the proxy recorded one for that host during the action. That fails the action with
 * {@code BROWSER_POLICY_DENIED}; subresources the proxy denied are only blocked.
 *
 * <p>Not reached: the proxy's own 502 or 504 (marked with {@link PolicyProxy#TRANSPORT_HEADER},
 * which holds the cause), a tunnel the proxy recorded as unreachable, or a Chromium network error
 * (a TLS error, say). That fails the action with {@code BROWSER_NAVIGATION_FAILED}, naming the host
 * and the cause. A site's own error status (404, 500) is no failure: it is the document's status.
 * Events arrive on the lane's thread.
 */
final class NavigationOutcomes implements ActionStage {
  private static final Pattern AT_URL = Pattern.compile(" at (\\S+)");

  private final Page page;
  private final PolicyProxy proxy;
  private long mark;
  private String deniedHost;
  private String unreachableHost;
  private String unreachableCause;

  /** The last main document's status and URL (without its fragment); 0 and null when unknown. */
  private int status;

  private String statusUrl;

  NavigationOutcomes(Page page, PolicyProxy proxy) {
    this.page = page;
    this.proxy = proxy;
    page.onResponse(
        response -> {
          if (mainNavigation(response.request())) {
            document(response);
          }
        });
    page.onRequestFailed(
        request -> {
          if (mainNavigation(request)) {
            failed(host(request.url()), request.failure());
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
   * A main document's response: the proxy's denial or transport failure, else the site's own
   * answer, whose status the observation shows.
   */
  void document(Response response) {
    // The proxy's marks count only when the proxy recorded that host: a site can send the same
    // headers.
    var headers = response.headers();
    String host = host(response.url());
    var unreachable =
        headers.containsKey(PolicyProxy.TRANSPORT_HEADER.toLowerCase(Locale.ROOT))
            ? proxy.unreachableSince(mark).stream().filter(u -> u.host().equals(host)).findFirst()
            : Optional.<PolicyProxy.Unreachable>empty();
    if (headers.containsKey(PolicyProxy.DENIAL_HEADER.toLowerCase(Locale.ROOT))
        && proxy.deniedSince(mark).stream().anyMatch(d -> d.host().equals(host))) {
      deniedHost = host;
    } else if (unreachable.isPresent()) {
      unreachableHost = host;
      unreachableCause = unreachable.get().cause();
    } else {
      status = response.status();
      statusUrl = withoutFragment(response.url());
      return;
    }
    status = 0;
    statusUrl = null;
  }

  /** A main document's request that failed, with Chromium's error text. */
  private void failed(String host, String error) {
    if (proxy.deniedSince(mark).stream().anyMatch(d -> d.host().equals(host))) {
      deniedHost = host;
      return;
    }

    var unreachable =
        proxy.unreachableSince(mark).stream().filter(u -> u.host().equals(host)).findFirst();
    Optional<String> cause =
        unreachable.map(PolicyProxy.Unreachable::cause).or(() -> NavigationFailures.cause(error));
    if (cause.isPresent()) {
      unreachableHost = host;
      unreachableCause = cause.get();
    }
  }

  /** The HTTP status of the document at {@code url}, if it is the last one answered; else 0. */
  int status(String url) {
    return statusUrl != null && statusUrl.equals(withoutFragment(url)) ? status : 0;
  }

  /**
   * Runs one action and fails it with how its main document's navigation failed, if it did: a
   * navigation the proxy refused fails as a policy denial, one that reached no site as a navigation
   * failure, not as the transport error either caused.
   */
  @Override
  public <T> T around(String what, java.util.concurrent.Callable<T> action) throws Exception {
    start();
    T result;
    try {
      result = action.call();
    } catch (com.microsoft.playwright.PlaywrightException e) {
      throw denial().or(() -> fromMessage(e.getMessage())).map(d -> (Exception) d).orElse(e);
    } catch (BrowserException e) {
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
    unreachableHost = null;
    unreachableCause = null;
  }

  /** A navigation's own failure, "net::ERR_... at URL", when no event told of it. */
  private Optional<BrowserException> fromMessage(String message) {
    Matcher at = AT_URL.matcher(String.valueOf(message));
    String host = at.find() ? host(at.group(1)) : "";
    failed(host, message);
    var refused = proxy.deniedSince(mark);
    if (deniedHost == null
        && String.valueOf(message).contains("ERR_BLOCKED_BY_CLIENT")
        && !refused.isEmpty()) {
      // The main document refused by request-level checks (a tab of a person's own browser) at a
      // redirect's next hop: the navigation fails under its first address, the refusal names the
      // one it led to.
      deniedHost = refused.get(refused.size() - 1).host();
    }
    return denial();
  }

  /** The denial or the navigation failure of this action's main document. */
  private Optional<BrowserException> denial() {
    if (deniedHost == null && unreachableHost != null) {
      return Optional.of(NavigationFailures.failed(unreachableHost, unreachableCause));
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

  /** The URL's host as the policy proxy records it. */
  static String host(String url) {
    try {
      String h = URI.create(url).getHost();
      return h == null ? "" : DestinationPolicy.normalizeHost(h);
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  private static String withoutFragment(String url) {
    int hash = url.indexOf('#');
    return hash < 0 ? url : url.substring(0, hash);
  }
}
