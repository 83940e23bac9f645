package dev.periscope.browser.handoff;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.periscope.api.browser.HandoffOutcome.Ending;
import dev.periscope.api.browser.spi.LiveViewEnvironment;
import dev.periscope.browser.policy.PolicyProxy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a person takes over a page: an HTTP server on one address of this machine (loopback unless
 * configured), started with the first handoff and stopped with the plugin. Each handoff has a live
 * view ({@link LiveView}) at {@code /handoff/ID/}, reached first through its one-time link {@code
 * /handoff/ID?token=T}:
 *
 * <ul>
 *   <li>the token (256 random bits, compared in constant time) works once: the request that
 *       presents it gets a cookie (HttpOnly, SameSite=Strict, for that view's path only) and is
 *       sent on to the view, so the token stays in no address bar or history; no token is 401, a
 *       used or wrong one 403;
 *   <li>every other request needs the cookie; one that changes anything (input, the ending) also
 *       needs the server's own {@code Origin}, and one that carries another {@code Origin} is
 *       refused whatever it asks; every request needs the server's own {@code Host} (no DNS
 *       rebinding), and bodies are bounded;
 *   <li>the page is streamed as JPEG frames (the provider's screencast) that the view asks for one
 *       at a time; the person's mouse and keyboard go back as one small JSON event each, played in
 *       order; "done" and "give up" end the handoff;
 *   <li>nothing the person types is logged, and nothing here ever reaches the model.
 * </ul>
 *
 * <p>A watch ({@link LiveView.Kind#WATCH}) is the same view, read-only, at {@code /watch/ID/}: the
 * same token (kept only as its hash, and expiring), cookie, Host and Origin rules; the page shows
 * no controls, and input or an ending sent to it anyway is refused (403) and reaches nothing.
 */
public final class LiveViewServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LiveViewServer.class);
  private static final Pattern PATH =
      Pattern.compile("^/(handoff|watch)/([0-9a-f]{32})(/|/([a-z.]+))?$");
  private static final int MAX_BODY = 4_096;
  private static final long FRAME_WAIT_MS = 2_000;

  /**
   * Where it listens: {@code address} (one address, never every interface's) and {@code port} (0:
   * any free one).
   */
  public record Settings(String address, int port) {
    public static Settings defaults() {
      return new Settings("127.0.0.1", 0);
    }
  }

  private final Settings settings;
  private final Map<String, LiveView> views = new ConcurrentHashMap<>();
  private Server server;
  private String origin;
  private boolean closed;

  public LiveViewServer(Settings settings) {
    if (!PolicyProxy.oneAddress(settings.address())) {
      throw new IllegalArgumentException(
          "the live view listens on one address, never every interface's ("
              + settings.address()
              + ")");
    }
    this.settings = settings;
  }

  /** A live view of {@code environment} for a person, with {@code message} shown above it. */
  public synchronized LiveView open(LiveViewEnvironment environment, String message) {
    if (closed) {
      throw new IllegalStateException("the live view server is stopped");
    }
    start();
    LiveView[] made = new LiveView[1];
    made[0] = new LiveView(environment, message, () -> views.remove(made[0].id));
    views.put(made[0].id, made[0]);
    return made[0];
  }

  /**
   * A watch, read-only, of a page whose frames the caller feeds in ({@link LiveView#frame}): its
   * link is {@link #place} with {@code ?token=} and the token whose SHA-256 is {@code tokenHash},
   * working once until {@code expiresAtMs}.
   */
  public synchronized LiveView openWatch(String message, byte[] tokenHash, long expiresAtMs) {
    if (closed) {
      throw new IllegalStateException("the live view server is stopped");
    }
    start();
    LiveView[] made = new LiveView[1];
    made[0] = new LiveView(message, tokenHash, expiresAtMs, () -> views.remove(made[0].id));
    views.put(made[0].id, made[0]);
    return made[0];
  }

  /**
   * The one-time link to {@code view}: for the person, through the host, never for the model or a
   * log.
   */
  public String link(LiveView view) {
    return place(view) + "?token=" + view.token();
  }

  /** Where {@code view} is, without its token. */
  public String place(LiveView view) {
    return origin + "/" + view.kind.path() + "/" + view.id;
  }

  private void start() {
    if (server != null) {
      return;
    }
    QueuedThreadPool threads = new QueuedThreadPool(16, 2);
    threads.setName("periscope-live-view");
    threads.setDaemon(true);
    Server s = new Server(threads);
    org.eclipse.jetty.server.HttpConfiguration http =
        new org.eclipse.jetty.server.HttpConfiguration();
    http.setSendServerVersion(false);
    ServerConnector connector =
        new ServerConnector(s, 1, 1, new org.eclipse.jetty.server.HttpConnectionFactory(http));
    connector.setHost(settings.address());
    connector.setPort(settings.port());
    connector.setIdleTimeout(30_000);
    s.addConnector(connector);
    s.setHandler(new Views());
    s.setStopTimeout(0);
    try {
      s.start();
    } catch (Exception e) {
      try {
        s.stop();
      } catch (Exception stopping) {
        e.addSuppressed(stopping);
      }
      throw new IllegalStateException(
          "the live view could not listen on "
              + settings.address()
              + ":"
              + settings.port()
              + ": "
              + e.getMessage(),
          e);
    }
    String host =
        settings.address().contains(":") ? "[" + settings.address() + "]" : settings.address();
    origin = "http://" + host + ":" + connector.getLocalPort();
    server = s;
    LOG.info("handoff live views served at {}/handoff/", origin);
  }

  @Override
  public synchronized void close() {
    closed = true;
    views.values().forEach(LiveView::close);
    if (server != null) {
      try {
        server.stop();
      } catch (Exception e) {
        LOG.warn("the live view server did not stop cleanly: {}", e.toString());
      }
      server = null;
    }
  }

  private final class Views extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
      response.getHeaders().put("Referrer-Policy", "no-referrer");
      response.getHeaders().put("X-Frame-Options", "DENY");
      response.getHeaders().put("X-Content-Type-Options", "nosniff");
      String expectedHost = origin.substring("http://".length());
      if (!expectedHost.equals(request.getHeaders().get(HttpHeader.HOST))) {
        return text(response, callback, 421, "this live view answers only at " + origin);
      }
      String from = request.getHeaders().get(HttpHeader.ORIGIN);
      if (from != null && !origin.equals(from)) {
        // Another site's script (a frame fetched cross-origin, say): refused whatever it asks.
        return text(response, callback, 403, "not from this live view");
      }
      Matcher m = PATH.matcher(request.getHttpURI().getPath());
      LiveView view = m.matches() ? views.get(m.group(2)) : null;
      if (view == null || view.isEnded() || !view.kind.path().equals(m.group(1))) {
        return text(
            response,
            callback,
            404,
            m.matches() && "watch".equals(m.group(1))
                ? "no such watch, or it ended"
                : "no such handoff, or it ended");
      }
      String part = m.group(4);
      if (m.group(3) == null) {
        return enter(view, request, response, callback);
      }
      if (!view.holds(cookie(request, view))) {
        return text(
            response, callback, 403, "open this live view with the link you were given, once");
      }
      boolean get = HttpMethod.GET.is(request.getMethod());
      boolean post = HttpMethod.POST.is(request.getMethod());
      if (part == null && get) {
        response
            .getHeaders()
            .put(
                "Content-Security-Policy",
                "default-src 'none'; img-src blob:; script-src 'self'; style-src 'unsafe-inline';"
                    + " connect-src 'self'; frame-ancestors 'none'; form-action 'none'");
        return write(response, callback, 200, "text/html; charset=utf-8", page(view));
      }
      if ("view.js".equals(part) && get) {
        return write(
            response, callback, 200, "text/javascript; charset=utf-8", resource("view.js"));
      }
      if ("frame".equals(part) && get) {
        return frame(view, request, response, callback);
      }
      if (post && !origin.equals(request.getHeaders().get(HttpHeader.ORIGIN))) {
        return text(response, callback, 403, "not from this live view");
      }
      if (post && view.kind == LiveView.Kind.WATCH) {
        return text(
            response,
            callback,
            403,
            "a watch only shows the page: it takes no input and no ending");
      }
      if ("input".equals(part) && post) {
        JsonObject event = json(request);
        LiveViewEnvironment.PersonInput played;
        try {
          played = event == null ? null : input(event);
        } catch (IllegalArgumentException e) {
          played = null;
        }
        if (played == null) {
          return text(response, callback, 400, "an input event is one small JSON object");
        }
        try {
          view.play(played);
        } catch (dev.periscope.api.browser.BrowserException e) {
          if (e.code() == dev.periscope.api.browser.ErrorCode.BROWSER_DIALOG_PENDING) {
            return text(
                response,
                callback,
                409,
                "The page opened a dialog that this view cannot show, and waits for its answer:"
                    + " press Done to hand the page back, and the agent answers it.");
          }
          LOG.debug("a person's input was not played: {}", e.code());
        } catch (RuntimeException e) {
          // The page may be navigating; the person sees it and tries again. Never what was typed.
          LOG.debug("a person's input was not played: {}", e.getClass().getSimpleName());
        }
        return write(response, callback, 204, null, new byte[0]);
      }
      if ("end".equals(part) && post) {
        String body = body(request);
        if (!"done".equals(body) && !"give-up".equals(body)) {
          return text(response, callback, 400, "end with done or give-up");
        }
        view.end("done".equals(body) ? Ending.DONE : Ending.GAVE_UP);
        return write(response, callback, 204, null, new byte[0]);
      }
      return text(response, callback, 405, "not here");
    }

    private boolean enter(LiveView view, Request request, Response response, Callback callback) {
      String token = Request.extractQueryParameters(request).getValue("token");
      if (token == null) {
        return text(response, callback, 401, "this live view needs the token of its link");
      }
      if (!view.redeem(token)) {
        return text(
            response,
            callback,
            403,
            view.redeemed()
                ? "this link was used already: it works once"
                : view.expired()
                    ? "this link expired: ask for a new one"
                    : "this link's token is not this " + view.kind.path() + "'s");
      }
      String path = "/" + view.kind.path() + "/" + view.id + "/";
      response
          .getHeaders()
          .put(
              HttpHeader.SET_COOKIE,
              view.kind.path()
                  + "="
                  + view.cookie()
                  + "; Path="
                  + path
                  + "; HttpOnly; SameSite=Strict");
      response.getHeaders().put(HttpHeader.LOCATION, path);
      return write(response, callback, 303, null, new byte[0]);
    }

    private boolean frame(LiveView view, Request request, Response response, Callback callback)
        throws InterruptedException {
      long after;
      try {
        after = Long.parseLong(Request.extractQueryParameters(request).getValue("after"));
      } catch (NumberFormatException e) {
        after = 0;
      }
      LiveView.Numbered shown = view.frameAfter(after, FRAME_WAIT_MS);
      if (view.isEnded()) {
        return text(response, callback, 410, "the " + view.kind.path() + " ended");
      }
      if (shown == null) {
        return write(response, callback, 204, null, new byte[0]);
      }
      response.getHeaders().put("X-Frame-Seq", Long.toString(shown.seq()));
      response
          .getHeaders()
          .put("X-Viewport-Width", Integer.toString(shown.frame().viewportWidth()));
      response
          .getHeaders()
          .put("X-Viewport-Height", Integer.toString(shown.frame().viewportHeight()));
      return write(response, callback, 200, "image/jpeg", shown.frame().jpeg());
    }
  }

  private static String cookie(Request request, LiveView view) {
    for (org.eclipse.jetty.http.HttpCookie c : Request.getCookies(request)) {
      if (c.getName().equals(view.kind.path())) {
        return c.getValue();
      }
    }
    return null;
  }

  private static String body(Request request) throws IOException {
    long declared = request.getLength();
    if (declared > MAX_BODY) {
      return null;
    }
    try (InputStream in = Content.Source.asInputStream(request)) {
      byte[] b = in.readNBytes(MAX_BODY + 1);
      return b.length > MAX_BODY ? null : new String(b, StandardCharsets.UTF_8);
    }
  }

  private static JsonObject json(Request request) throws IOException {
    String body = body(request);
    if (body == null) {
      return null;
    }
    try {
      return JsonParser.parseString(body).getAsJsonObject();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static final java.util.Set<String> KINDS =
      java.util.Set.of("move", "down", "up", "wheel", "text", "key");

  /** A person's event as the provider plays it; anything out of shape is refused. */
  static LiveViewEnvironment.PersonInput input(JsonObject e) {
    String kind = string(e, "kind");
    if (!KINDS.contains(kind)) {
      throw new IllegalArgumentException("no such input");
    }
    String button = string(e, "button");
    if (button != null
        && !java.util.Set.of("left", "middle", "right", "back", "forward").contains(button)) {
      button = "left";
    }
    String text = string(e, "text");
    String key = string(e, "key");
    if ((text != null && text.length() > 64)
        || (key != null && !key.matches("[A-Za-z0-9+]{1,40}|."))) {
      throw new IllegalArgumentException("no such key");
    }
    return new LiveViewEnvironment.PersonInput(
        kind,
        number(e, "x"),
        number(e, "y"),
        button == null ? "left" : button,
        number(e, "deltaX"),
        number(e, "deltaY"),
        text,
        key);
  }

  private static String string(JsonObject e, String name) {
    var v = e.get(name);
    return v == null || !v.isJsonPrimitive() ? null : v.getAsString();
  }

  private static double number(JsonObject e, String name) {
    var v = e.get(name);
    if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isNumber()) {
      return 0;
    }
    double d = v.getAsDouble();
    return Double.isFinite(d) ? Math.max(-100_000, Math.min(100_000, d)) : 0;
  }

  /** The view's page; a watch's has no controls (the part between its control marks). */
  private static byte[] page(LiveView view) {
    String html =
        new String(resource("view.html"), StandardCharsets.UTF_8)
            .replace("{{message}}", escape(view.message))
            .replace("{{mode}}", view.kind.path());
    if (view.kind == LiveView.Kind.WATCH) {
      html = html.replaceAll("(?s)<!--controls-->.*?<!--/controls-->", "");
    }
    return html.getBytes(StandardCharsets.UTF_8);
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static byte[] resource(String name) {
    try (InputStream in = LiveViewServer.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the live view's " + name + " is missing from the package");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean text(Response response, Callback callback, int status, String text) {
    return write(
        response,
        callback,
        status,
        "text/plain; charset=utf-8",
        text.getBytes(StandardCharsets.UTF_8));
  }

  private static boolean write(
      Response response, Callback callback, int status, String type, byte[] body) {
    response.setStatus(status);
    if (type != null) {
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
    }
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }
}
