package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.LoadState;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import java.util.List;
import java.util.Map;

/**
 * What an environment reads of its current tab: the observation (after the document a navigation
 * under way brings, and again after the requests for data a click started), the screenshot and the
 * extraction. Each on the lane's thread, through the environment's {@link
 * PlaywrightEnvironment#call}.
 */
final class ObservationRoom {
  private final PlaywrightEnvironment env;

  ObservationRoom(PlaywrightEnvironment env) {
    this.env = env;
  }

  /** The page answers a trivial script, or fails at once: its own deadline is the runtime's. */
  void probe() {
    // A page that holds a dialog open runs no script, and answers for itself: it waits. So does
    // one on its way to another document, which Chromium runs no script in until it comes.
    env.call(
        "checking the page",
        () -> {
          Tab t = env.tab();
          if (t.dialogs.pending().isPresent() || t.guards.navigating()) {
            return null;
          }
          try {
            return env.lane().briefly(PROBE_FIRST_MS, () -> t.page.evaluate("1"));
          } catch (PlaywrightException held) {
            // A navigation that set off as the script went: the page is on its way, not stuck.
            return t.guards.navigating() ? null : t.page.evaluate("1");
          }
        });
  }

  /**
   * How long a liveness check's script may take before the check looks again whether the page set
   * off for another document meanwhile (and then lets it be); else it asks again, within the
   * runtime's deadline.
   */
  private static final long PROBE_FIRST_MS = 1_000;

  ProviderObservation observe(ObservationBudget budget) {
    // Within the runtime's deadline for an observation (the action timeout and its margin): a
    // script held by a navigation that set off meanwhile fails the observation, not the browser.
    return env.call(
        "observing the page",
        () -> {
          var dialog = env.tab().dialogs.pending();
          if (dialog.isPresent()) {
            // The page runs nothing until its dialog is answered: it is shown as it waits.
            return ProviderObservation.awaiting(
                    env.tab().page.url(), dialog.get(), env.tabs().takePageEvents())
                .withTabs(env.tabs().listing(null));
          }
          long documentBy = env.documentWaitEnd();
          if (!env.tab().guards.awaitNavigation(documentBy)) {
            return onItsWay();
          }
          awaitParsed(documentBy);
          List<com.microsoft.playwright.Frame> frames = new java.util.ArrayList<>();
          ProviderObservation o;
          try {
            o = observeSettled(budget, frames, env.tab().guards::drained);
            // A click that started requests for data (a cart a fetch updates) is observed again
            // once they have answered: what the page draws from the answers is what it changed.
            // Known only now, the requests being reported after the click's own answer; a click
            // that started none costs nothing more.
            long since = env.takeClickRequests();
            Tab t = env.tab();
            if (since >= 0 && t.guards.dataUnderWaySince(since) > 0) {
              TypingReactions.afterClick(
                  t.page,
                  env.registryKey(),
                  () -> t.guards.dataUnderWaySince(since),
                  env.waitsEnd());
              frames.clear();
              o = observeSettled(budget, frames, t.guards::drained);
            }
          } catch (PlaywrightException held) {
            if (!env.tab().guards.navigating()) {
              throw held;
            }
            // It set off for another document while it was read.
            return onItsWay();
          }
          env.tab().observedFrames = frames;
          env.observed(env.tab());
          return new ProviderObservation(
              o.url(),
              o.title(),
              o.text(),
              o.totalTextChars(),
              o.elements(),
              o.totalElements(),
              o.elementsTruncated(),
              env.tabs().takePageEvents(),
              env.tab().navigations.status(env.tab().page.url()),
              null,
              env.tabs().listing(o.title()),
              o.challenge(),
              o.records(),
              o.textLines());
        });
  }

  /**
   * The page's observation. A document that navigated away while it was observed (a redirect a
   * script started as the action ended) is gone: the new one is observed once it has loaded, up to
   * {@value #OBSERVE_ATTEMPTS} times. On the lane's thread.
   */
  private ProviderObservation observeSettled(
      ObservationBudget budget,
      List<com.microsoft.playwright.Frame> frames,
      java.util.function.Consumer<Map<String, Object>> guardsRead) {
    for (int attempt = 1; ; attempt++) {
      try {
        env.tab().clickListeners.mark();
        return PageScripts.observe(env.tab().page, env.registryKey(), budget, frames, guardsRead);
      } catch (PlaywrightException e) {
        if (attempt == OBSERVE_ATTEMPTS
            || !String.valueOf(e.getMessage()).contains("Execution context was destroyed")) {
          throw e;
        }
        frames.clear();
        awaitParsed(System.nanoTime() + PARSE_WAIT_MS * 1_000_000L);
      }
    }
  }

  private static final int OBSERVE_ATTEMPTS = 3;

  /** The longest an observation waits for a document that has arrived to be parsed. */
  private static final long PARSE_WAIT_MS = 2_000;

  /**
   * Lets a document that has just arrived be parsed (its DOMContentLoaded), by {@code untilNanos}
   * and within {@link #PARSE_WAIT_MS}, so that the observation is not of an empty document whose
   * head and body have not been read yet (a form's result, observed the moment it committed). A
   * document still loading then is observed as it stands. On the lane's thread.
   */
  private void awaitParsed(long untilNanos) {
    long leftMs = Math.min(PARSE_WAIT_MS, (untilNanos - System.nanoTime()) / 1_000_000);
    if (leftMs <= 0) {
      return;
    }
    try {
      env.tab()
          .page
          .waitForLoadState(
              LoadState.DOMCONTENTLOADED, new Page.WaitForLoadStateOptions().setTimeout(leftMs));
    } catch (PlaywrightException stillLoading) {
      // Observed as it stands.
    }
  }

  /**
   * The observation of a page on its way to a document that has not come: there is nothing to read
   * until it does, and Chromium runs no script in the page meanwhile. On the lane's thread.
   */
  private ProviderObservation onItsWay() {
    env.observed(env.tab());
    env.tab().observedFrames = List.of();
    String text =
        "The page is on its way to "
            + env.tab().guards.destination()
            + ", which has not arrived yet. Observe again to see it when it comes, or open another"
            + " page.";
    return new ProviderObservation(
            env.tab().page.url(),
            "",
            text,
            text.length(),
            List.of(),
            0,
            false,
            env.tabs().takePageEvents(),
            0,
            null)
        .withTabs(env.tabs().listing(null));
  }

  /**
   * A PNG of the viewport or the full page. The device-pixel budget is checked before capture, the
   * byte budget after PNG encoding; either refusal is {@code BROWSER_POLICY_DENIED}.
   */
  Screenshot screenshot(boolean fullPage) {
    return env.call(
        "the screenshot",
        () -> {
          env.tab().dialogs.requireNone("taking a screenshot");
          env.awaitDocument("the screenshot", ErrorCode.BROWSER_ACTION_FAILED);
          Screenshot shot =
              Screenshots.capture(
                  env.tab().page, fullPage, env.policy().screenshots(), env.credentialFields());
          return shot.view() == null
              ? shot
              : new Screenshot(
                  shot.png(),
                  shot.width(),
                  shot.height(),
                  shot.observationId(),
                  shot.url(),
                  shot.title(),
                  shot.view().inPage("page-" + env.tab().id));
        });
  }

  /**
   * A recording's frame of the current tab, or null while a dialog holds it (none can be taken).
   */
  byte[] recordingFrame() {
    return env.call(
        "the recording's frame",
        () ->
            env.tab().dialogs.pending().isPresent() || env.tab().guards.navigating()
                ? null
                : Screenshots.frame(
                    env.tab().page, env.tab().guards.control(), env.credentialFields()));
  }

  Extraction extract(String kind, ProviderElement region, int limit, int maxFieldChars) {
    return env.call(
        "extracting " + kind,
        () -> {
          env.tab().dialogs.requireNone("extracting " + kind);
          env.awaitDocument("extracting " + kind, ErrorCode.BROWSER_ACTION_FAILED);
          if (region != null) {
            env.requireObservedTab();
          }
          return PageScripts.extract(
              env.tab().page,
              env.tab().observedFrames,
              env.registryKey(),
              kind,
              region,
              limit,
              maxFieldChars);
        });
  }
}
