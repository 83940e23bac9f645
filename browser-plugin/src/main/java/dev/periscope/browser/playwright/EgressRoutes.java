package dev.periscope.browser.playwright;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.CDPSession;
import com.microsoft.playwright.Route;
import com.microsoft.playwright.WebSocketFrame;
import com.microsoft.playwright.WebSocketRoute;
import dev.periscope.api.browser.spi.EgressGuard;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * An environment's egress guard in the browser ({@link
 * dev.periscope.api.browser.spi.BrowserEnvironment#guardEgress}): from the moment a secret is about
 * to go into a page, every request of the environment's context (its first hop: navigations,
 * subresources, fetches, beacons, form posts, EventSource, a WebSocket's handshake) and every
 * message a page sends over a WebSocket is shown to the runtime's guard before it leaves. A refused
 * request is aborted (the page sees a network error), a refused WebSocket closed before it
 * connects, or, for a message, closed before the message is passed on; the guard's line becomes a
 * page event. Nothing is routed before then, so a session without secrets pays nothing. In a
 * Chromium the user runs (the cdp provider) only the environment's own tabs are routed, never the
 * user's context. Used on the lane's thread.
 */
final class EgressRoutes {
  private static final Pattern EVERY_URL = Pattern.compile(".*");

  private final BrowserContext context;
  private final Optional<UserTabs> user;

  /** Where a refusal's line goes: the environment's page events. */
  private volatile Consumer<String> report = line -> {};

  private volatile EgressGuard guard;

  /**
   * The WebSockets opened while no guard was on, still open: their messages pass unjudged, so they
   * are closed as the guard comes on.
   */
  private final java.util.Set<WebSocketRoute> unjudged =
      java.util.Collections.synchronizedSet(
          java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));

  EgressRoutes(BrowserContext context, Optional<UserTabs> user) {
    this.context = context;
    this.user = user;
  }

  /**
   * The guard of a context of the provider's own, its WebSockets routed from the start: Playwright
   * routes a WebSocket inside the document (a script every new document gets), so a route added
   * later would miss the documents already loaded. Until a guard is on, a socket connects at once
   * and its messages pass without a hop to Java.
   */
  static EgressRoutes onContext(BrowserContext context) {
    EgressRoutes routes = new EgressRoutes(context, Optional.empty());
    context.routeWebSocket(EVERY_URL, routes::judged);
    return routes;
  }

  /**
   * Takes {@code next} as the guard, its refusals told to {@code report}, routing the context's
   * requests through it the first time ({@code pages}: the tabs open now, routed one by one in a
   * user's Chromium) and closing the WebSockets opened before it.
   */
  boolean guard(EgressGuard next, Consumer<String> report, Iterable<Tab> tabs) {
    boolean first = guard == null;
    this.report = report;
    guard = next;
    if (first) {
      if (user.isEmpty()) {
        context.route(EVERY_URL, this::judged);
      }
      tabs.forEach(this::equip);
      List<WebSocketRoute> open;
      synchronized (unjudged) {
        open = List.copyOf(unjudged);
      }
      for (WebSocketRoute socket : open) {
        try {
          socket.close(new WebSocketRoute.CloseOptions().setCode(1008).setReason("guarded"));
        } catch (com.microsoft.playwright.PlaywrightException gone) {
          // closed already, or its page went
        }
      }
      unjudged.clear();
    }
    return true;
  }

  /**
   * Once the guard is on, gives a tab what the context's route does not: in a user's Chromium,
   * routes of its own; in the provider's own context, the redirects' next hops, which Playwright's
   * routes let through unseen, judged through the tab's control session ({@link #hop}).
   */
  void equip(Tab tab) {
    if (guard == null) {
      return;
    }
    if (user.isPresent()) {
      tab.page.route(EVERY_URL, this::judged);
      tab.page.routeWebSocket(EVERY_URL, this::judged);
      return;
    }
    CDPSession control = tab.guards.control();
    control.on("Fetch.requestPaused", paused -> hop(control, paused));
    JsonObject every = new JsonObject();
    every.addProperty("urlPattern", "*");
    every.addProperty("requestStage", "Request");
    JsonArray patterns = new JsonArray();
    patterns.add(every);
    JsonObject enable = new JsonObject();
    enable.add("patterns", patterns);
    control.send("Fetch.enable", enable);
  }

  /**
   * A request of the tab's process, paused: a redirect's next hop is judged (its URL, headers and
   * the body a 307 or 308 sends again); a first hop was judged by the context's route and goes on.
   */
  private void hop(CDPSession control, JsonObject paused) {
    JsonObject answer = new JsonObject();
    answer.addProperty("requestId", paused.get("requestId").getAsString());
    Optional<String> refused = Optional.empty();
    if (paused.has("redirectedRequestId")) {
      JsonObject request = paused.getAsJsonObject("request");
      Map<String, String> headers = new java.util.HashMap<>();
      if (request.has("headers")) {
        request
            .getAsJsonObject("headers")
            .entrySet()
            .forEach(h -> headers.put(h.getKey(), h.getValue().getAsString()));
      }
      String url =
          request.get("url").getAsString()
              + (request.has("urlFragment") ? request.get("urlFragment").getAsString() : "");
      byte[] body =
          request.has("postData")
              ? request.get("postData").getAsString().getBytes(StandardCharsets.UTF_8)
              : null;
      refused = refusal(url, headers, body);
    }
    try {
      if (refused.isPresent()) {
        report.accept(refused.get());
        answer.addProperty("errorReason", "BlockedByClient");
        control.send("Fetch.failRequest", answer);
      } else {
        control.send("Fetch.continueRequest", answer);
      }
    } catch (com.microsoft.playwright.PlaywrightException gone) {
      // the page or its request went meanwhile
    }
  }

  private void judged(Route route) {
    var request = route.request();
    Optional<String> refused = refusal(request.url(), request.headers(), request.postDataBuffer());
    if (refused.isPresent()) {
      report.accept(refused.get());
      route.abort("blockedbyclient");
    } else {
      // The routes before this one (in a user's Chromium, the policy's own) judge it next.
      route.fallback();
    }
  }

  /** The guard's answer; a guard that fails refuses, as the request may carry what it missed. */
  private Optional<String> refusal(String url, Map<String, String> headers, byte[] body) {
    try {
      return guard.refusal(url, headers, body);
    } catch (RuntimeException e) {
      return Optional.of("a request was refused: the egress guard failed to judge it");
    }
  }

  /**
   * The {@code Cookie} header a WebSocket's handshake will carry, from the context's jar: the route
   * of an HTTP request shows the cookies Chromium adds, a socket's shows none, and a cookie the
   * page set for its host goes to every port of it (another origin), for a parent domain to its
   * other hosts. A jar that cannot be read fails the judgement.
   */
  private Map<String, String> handshakeCookies(String url) {
    String http = url.replaceFirst("^ws(s?):", "http$1:");
    StringBuilder cookie = new StringBuilder();
    for (com.microsoft.playwright.options.Cookie c : context.cookies(http)) {
      cookie.append(cookie.length() == 0 ? "" : "; ").append(c.name).append('=').append(c.value);
    }
    return cookie.length() == 0 ? Map.of() : Map.of("cookie", cookie.toString());
  }

  /**
   * A WebSocket: connected only if the guard admits its handshake (and, in a user's Chromium, the
   * policy, whose own route this one replaces), then each message the page sends judged.
   */
  private void judged(WebSocketRoute socket) {
    if (guard == null) {
      socket.connectToServer();
      unjudged.add(socket);
      return;
    }
    Optional<String> refused;
    try {
      refused = refusal(socket.url(), handshakeCookies(socket.url()), null);
    } catch (RuntimeException unread) {
      refused = Optional.of("a WebSocket was refused: the egress guard could not read its cookies");
    }
    refused.ifPresent(report);
    if (refused.isPresent() || (user.isPresent() && !user.get().admits(socket.url()))) {
      socket.close(new WebSocketRoute.CloseOptions().setCode(1008).setReason("policy"));
      return;
    }
    // Its messages are taken before it connects: one the page sends as it opens is not passed on
    // unjudged.
    java.util.concurrent.atomic.AtomicReference<WebSocketRoute> server =
        new java.util.concurrent.atomic.AtomicReference<>();
    socket.onMessage(frame -> passOn(socket, server.get(), frame));
    server.set(socket.connectToServer());
  }

  /** A message the page sends: passed on to the server, or the socket closed in its place. */
  private void passOn(WebSocketRoute socket, WebSocketRoute server, WebSocketFrame frame) {
    String text = frame.text();
    byte[] bytes =
        text != null ? text.getBytes(java.nio.charset.StandardCharsets.UTF_8) : frame.binary();
    Optional<String> refused = refusal(socket.url(), Map.of(), bytes);
    if (refused.isPresent()) {
      report.accept(refused.get());
      socket.close(new WebSocketRoute.CloseOptions().setCode(1008).setReason("refused"));
      server.close(new WebSocketRoute.CloseOptions().setCode(1008).setReason("refused"));
    } else if (text != null) {
      server.send(text);
    } else {
      server.send(frame.binary());
    }
  }
}
