package dev.periscope.browser.handoff;

import dev.periscope.api.browser.spi.LiveViewEnvironment;
import dev.periscope.browser.store.WatchRequests;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watch desk of one process: it serves the requests to watch a browser session that this
 * process runs ({@link WatchRequests}, whichever process asked), each with a read-only live view
 * ({@link LiveView.Kind#WATCH}) fed by the environment's {@link LiveViewEnvironment#watch}. It
 * never takes an environment's queue: the screencast starts and stops as the provider's own brief
 * work, and frames arrive as the provider delivers them, so the agent's calls go on as they would.
 * A watch ends when its session's environment goes, when an operator stops it, when its link
 * expires unused, or when the plugin stops; the request is deleted with it.
 *
 * <p>One daemon thread looks every {@value #TICK_MS} ms; it reads the store only while this process
 * runs a browser session or holds a watch.
 */
public final class Watches implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Watches.class);
  static final long TICK_MS = 250;

  /** The widest and tallest frame a watch streams. */
  private static final int MAX_PIXELS = 1024;

  /** A running environment of a browser session, and what says it went. */
  public record Watchable(Object environment, BooleanSupplier gone) {}

  /** The browser sessions this process runs. */
  public interface Sessions {
    /** The running environment of {@code browserSession} here, if any. */
    Optional<Watchable> running(String browserSession);

    /** Whether any environment runs here. */
    boolean any();
  }

  private record Open(LiveView view, AutoCloseable cast, BooleanSupplier gone) {}

  private final LiveViewServer server;
  private final WatchRequests store;
  private final Sessions sessions;
  private final String me = WatchRequests.holder();
  private final Map<String, Open> open = new ConcurrentHashMap<>();
  private final ScheduledExecutorService desk =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "periscope-watch-desk");
            t.setDaemon(true);
            return t;
          });

  public Watches(LiveViewServer server, WatchRequests store, Sessions sessions) {
    this.server = server;
    this.store = store;
    this.sessions = sessions;
    desk.scheduleWithFixedDelay(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    try {
      open.forEach(
          (id, w) -> {
            if (w.view().isEnded()
                || w.gone().getAsBoolean()
                || (!w.view().redeemed() && w.view().expired())) {
              end(id);
            }
          });
      if (!open.isEmpty()) {
        for (WatchRequests.Request r : store.inState("stop")) {
          if (r.heldBy().filter(me::equals).isPresent()) {
            end(r.id());
          }
        }
      }
      if (sessions.any()) {
        for (WatchRequests.Request r : store.inState("asked")) {
          if (r.expiresAtMs() > System.currentTimeMillis()) {
            sessions.running(r.browserSession()).ifPresent(s -> serve(r, s));
          }
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("the watch desk: {}", e.getMessage());
    }
  }

  private void serve(WatchRequests.Request r, Watchable s) {
    if (!store.claim(r.id(), me)) {
      return; // another process runs it too, and was first
    }
    if (!(s.environment() instanceof LiveViewEnvironment live)) {
      store.refused(
          r.id(),
          "browser session " + r.browserSession() + " runs on a provider that cannot be watched");
      return;
    }
    LiveView view;
    try {
      view =
          server.openWatch(
              "Watching browser session " + r.browserSession() + " (read-only)",
              r.tokenHash(),
              r.expiresAtMs());
    } catch (RuntimeException e) {
      // The live view's server cannot listen (its port taken, an address not this machine's):
      // the one who asked is told at once, not left waiting for an answer that never comes.
      store.refused(
          r.id(),
          "browser session " + r.browserSession() + " could not be watched: " + e.getMessage());
      return;
    }
    AutoCloseable cast;
    try {
      cast = live.watch(MAX_PIXELS, MAX_PIXELS, view::frame);
    } catch (RuntimeException e) {
      view.close();
      store.refused(
          r.id(),
          "browser session " + r.browserSession() + " could not be watched: " + e.getMessage());
      return;
    }
    open.put(r.id(), new Open(view, cast, s.gone()));
    store.opened(r.id(), server.place(view));
    LOG.info("a watch of browser session {} opened", r.browserSession());
  }

  private void end(String id) {
    Open w = open.remove(id);
    if (w == null) {
      return;
    }
    try {
      w.cast().close();
    } catch (Exception e) {
      LOG.debug("a watch's screencast did not stop: {}", e.toString());
    }
    w.view().close();
    store.delete(id);
  }

  /** How many watches this process holds open. */
  public int openCount() {
    return open.size();
  }

  @Override
  public void close() {
    desk.shutdown();
    try {
      desk.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (String id : open.keySet()) {
      end(id);
    }
    try {
      store.deleteHeldBy(me);
    } catch (RuntimeException e) {
      LOG.debug("the watch requests were not forgotten: {}", e.getMessage());
    }
  }
}
