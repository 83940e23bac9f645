package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;

/**
 * The environment's side of a live view ({@link LivePage}): the screencast of the current tab, a
 * person's input played on the page shown, and the page's state the view compares. A watch is the
 * same screencast with nothing else: no person holds the page, and it starts and stops as work of
 * its own on the lane, bounded by itself, between the agent's calls. At the end of each of the
 * agent's calls (inside it), a watch moves to the tab the agent is on, and where a secret was
 * filled it reads where the filled fields are, to mask its frames.
 */
final class LiveViewRoom {
  /** How long starting or stopping a watch's screencast may take on the lane. */
  private static final long WATCH_CALL_MS = 5_000;

  /**
   * A watch's frames: JPEG quality, and every how many painted frames one is taken (every one: with
   * fewer, a page that paints once after a change and then rests would show the watcher the state
   * before it).
   */
  private static final int WATCH_QUALITY = 50;

  private static final int WATCH_NTH = 1;

  private final PlaywrightEnvironment env;
  private final Lane lane;

  LiveViewRoom(PlaywrightEnvironment env, Lane lane) {
    this.env = env;
    this.lane = lane;
  }

  /**
   * A watch open on this environment: the page its screencast shows now (the current tab's; it
   * follows the agent to another tab) and where its frames go. Lane thread.
   */
  private static final class Watch {
    final int maxWidth;
    final int maxHeight;
    final java.util.function.Consumer<dev.periscope.api.browser.spi.LiveViewEnvironment.Frame>
        frames;
    Page page;
    com.microsoft.playwright.CDPSession cdp;

    /**
     * Where the fields that received a secret are on {@link #page}, in CSS pixels of the viewport,
     * and the page's scroll offsets when they were found: read on the lane after each call, never
     * inside the frame's event (no call to the driver is made there). Null: not read yet.
     */
    volatile Masks masks;

    /** The latest frame not sent for want of masks: sent once they are read, if they fit it. */
    volatile LivePage.Painted held;

    Watch(
        int maxWidth,
        int maxHeight,
        java.util.function.Consumer<dev.periscope.api.browser.spi.LiveViewEnvironment.Frame>
            frames) {
      this.maxWidth = maxWidth;
      this.maxHeight = maxHeight;
      this.frames = frames;
    }
  }

  /** Filled fields' boxes on a watched page, and its scroll offsets then. */
  private record Masks(
      java.util.List<com.microsoft.playwright.options.BoundingBox> boxes,
      double scrollX,
      double scrollY) {}

  /** The watches open on this environment. Lane thread. */
  private final java.util.List<Watch> watches = new java.util.ArrayList<>();

  AutoCloseable watch(
      int maxWidth,
      int maxHeight,
      java.util.function.Consumer<dev.periscope.api.browser.spi.LiveViewEnvironment.Frame> frames) {
    Watch w = new Watch(maxWidth, maxHeight, frames);
    try {
      lane.call(
          () -> {
            cast(w, env.tab().page);
            watches.add(w);
            return null;
          },
          WATCH_CALL_MS);
    } catch (com.microsoft.playwright.PlaywrightException e) {
      throw new BrowserException(
          ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "the page to watch went: " + e.getMessage());
    }
    return () -> {
      try {
        lane.call(
            () -> {
              watches.remove(w);
              stop(w.cdp, w.page);
              return null;
            },
            WATCH_CALL_MS);
      } catch (RuntimeException gone) {
        // the page or the browser went first, and the screencast with it
      }
    };
  }

  /** Starts {@code w}'s screencast of {@code page}. Lane thread. */
  private void cast(Watch w, Page page) {
    // The masks first: Chromium sends the page's first frame as the screencast starts.
    w.page = page;
    w.held = null;
    readMasks(w);
    w.cdp =
        LivePage.startPainted(
            env.context(),
            page,
            w.maxWidth,
            w.maxHeight,
            WATCH_QUALITY,
            WATCH_NTH,
            painted -> masked(painted, w).ifPresent(w.frames));
  }

  /**
   * Reads where {@code w}'s page has fields that received a secret (none: nothing to read). Lane
   * thread, outside any event; a page that cannot say leaves the masks unknown, and no frame goes
   * out until they are known.
   */
  private void readMasks(Watch w) {
    CredentialFields fields = env.credentialFields();
    if (!fields.any()) {
      w.masks = new Masks(java.util.List.of(), 0, 0);
      return;
    }
    try {
      @SuppressWarnings("unchecked")
      java.util.List<Number> scroll =
          (java.util.List<Number>) w.page.evaluate("() => [scrollX, scrollY]");
      w.masks =
          new Masks(
              fields.masks(w.page, false),
              scroll.get(0).doubleValue(),
              scroll.get(1).doubleValue());
    } catch (RuntimeException unknown) {
      w.masks = null;
    }
  }

  /**
   * Runs a call's {@code work}, then moves each watch to the tab the agent is on ({@link #follow}).
   */
  <T> T following(java.util.concurrent.Callable<T> work) throws Exception {
    T result = work.call();
    follow();
    return result;
  }

  /**
   * After a call: a watch of a tab that is no longer the current one moves to the current tab (a
   * failure leaves it where it was). Lane thread; nothing when nobody watches.
   */
  private void follow() {
    if (watches.isEmpty()) {
      return;
    }
    Tab current = env.tab();
    if (current.dialogs.pending().isPresent()) {
      return;
    }
    for (Watch w : watches) {
      if (w.page != current.page && !current.page.isClosed()) {
        com.microsoft.playwright.CDPSession old = w.cdp;
        Page was = w.page;
        try {
          cast(w, current.page);
        } catch (RuntimeException e) {
          // the new tab could not be cast: the watch stays where it was
          w.page = was;
          w.cdp = old;
          readMasks(w);
          continue;
        }
        try {
          stop(old, was);
        } catch (RuntimeException gone) {
          // the old tab went, and its screencast with it
        }
      } else {
        readMasks(w);
        LivePage.Painted held = w.held;
        if (held != null) {
          masked(held, w).ifPresent(w.frames);
        }
      }
    }
  }

  /**
   * A watch's frame with every field that received a secret painted over (a watcher is not the
   * person the secret is theirs, as a handoff's is), from the boxes read after the last call; empty
   * when they are unknown or the page has scrolled since they were read, as no unmasked frame goes
   * out. Pure Java: it runs inside the driver's event, where no call to the driver may be made.
   */
  private java.util.Optional<dev.periscope.api.browser.spi.LiveViewEnvironment.Frame> masked(
      LivePage.Painted painted, Watch w) {
    var f = painted.frame();
    if (!env.credentialFields().any()) {
      return java.util.Optional.of(f);
    }
    Masks m = w.masks;
    if (m == null
        || Math.abs(m.scrollX() - painted.scrollX()) > 1
        || Math.abs(m.scrollY() - painted.scrollY()) > 1) {
      w.held = painted;
      return java.util.Optional.empty();
    }
    w.held = null;
    try {
      return java.util.Optional.of(
          new dev.periscope.api.browser.spi.LiveViewEnvironment.Frame(
              CredentialFields.paintScaled(f.jpeg(), m.boxes(), f.viewportWidth(), "jpg"),
              f.viewportWidth(),
              f.viewportHeight()));
    } catch (RuntimeException unreadable) {
      return java.util.Optional.empty();
    }
  }

  /**
   * Stops a screencast of {@code page}. A page that holds a dialog open answers no command of this
   * session until the dialog is answered: it stops acknowledging frames now, and goes after the
   * answer. Lane thread.
   */
  private void stop(com.microsoft.playwright.CDPSession cdp, Page page) {
    LivePage.stopAcknowledging(cdp);
    if (page.isClosed()) {
      // nothing to stop: the session went with its page
    } else if (env.tab().page == page && env.tab().dialogs.pending().isPresent()) {
      env.tab().dialogs.afterAnswer(() -> LivePage.stopScreencast(cdp));
    } else {
      LivePage.stopScreencast(cdp);
    }
  }

  AutoCloseable screencast(
      int maxWidth,
      int maxHeight,
      java.util.function.Consumer<dev.periscope.api.browser.spi.LiveViewEnvironment.Frame> frames) {
    Page page = env.tab().page;
    com.microsoft.playwright.CDPSession cdp =
        env.call(
            "starting the live view",
            () -> {
              var started =
                  LivePage.startScreencast(env.context(), page, maxWidth, maxHeight, frames);
              env.tabs().personHolds(true);
              livePage = page;
              return started;
            });
    return () -> {
      try {
        env.call(
            "stopping the live view",
            () -> {
              try {
                stop(cdp, page);
              } finally {
                // Only now: a page the person's last input opened may have come meanwhile.
                livePage = null;
                env.tabs().personHolds(false);
              }
              return null;
            });
      } catch (RuntimeException gone) {
        // the page or the browser went first, and the screencast with it
      }
    };
  }

  /** The page a live view shows while one runs; the person's input goes there. Lane thread. */
  private Page livePage;

  void play(dev.periscope.api.browser.spi.LiveViewEnvironment.PersonInput input) {
    // As an action: a tab it opens is kept (not closed as a stray), a dialog it opens waits.
    env.act(
        "playing a person's input",
        () -> {
          Page shown = livePage != null ? livePage : env.tab().page;
          if (shown.isClosed()) {
            throw new BrowserException(
                ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "the page the person was shown closed");
          }
          if ("text".equals(input.kind()) || "key".equals(input.kind())) {
            // A person who types may be typing a password the agent never sees: no script runs on
            // this origin from now on, as if a secret had been filled there.
            env.scripts().secretOn(java.util.List.of(CredentialFields.originOfUrl(shown.url())));
          }
          LivePage.play(shown, input);
          return null;
        });
  }

  dev.periscope.api.browser.spi.LiveViewEnvironment.State pageState() {
    // A dialog the page holds open answers no script: its URL and cookies are read all the same.
    return env.call(
        "reading the page's state",
        () ->
            LivePage.state(env.context(), env.tab().page, env.tab().dialogs.pending().isPresent()));
  }
}
