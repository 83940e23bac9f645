package dev.periscope.browser.playwright;

import com.microsoft.playwright.Frame;
import com.microsoft.playwright.Page;
import java.util.List;

/**
 * One tab of an environment: its page and what watches that page (its guards, the outcome of its
 * main document, its dialogs, its click listeners) and the frames its latest observation looked
 * into. Its id is stable while it is open and never given to another tab of the environment. The
 * page is replaced (a fresh one in its place) when a navigation got no response headers in time or
 * the page kept navigating itself. Used on the lane's thread only.
 */
final class Tab {
  final int id;
  Page page;
  PageGuards guards;
  NavigationOutcomes navigations;
  PageDialogs dialogs;

  /** What the page complained of since the last observation (console, errors, requests). */
  PageConsole console;

  ClickListeners clickListeners;

  /**
   * The stages an action on this tab's document passes through: the document has come, then its
   * dialogs, downloads, navigations, new windows and guards ({@link PlaywrightEnvironment#equip}).
   */
  ActionPipeline acting;

  /** The same for an open, which replaces the document: it need not have come. */
  ActionPipeline opening;

  /** What an action the guards do not judge passes through: dialogs and new windows. */
  ActionPipeline unguarded;

  /**
   * The frames this tab's latest observation looked into: a frame element's target names one by its
   * index.
   */
  List<Frame> observedFrames = List.of();

  /** When it was last the current tab, in the environment's own count: the newest goes first. */
  long selected;

  /** Whether a secret was filled in this tab: no script runs in it then ({@link ScriptRoom}). */
  boolean secretFilled;

  Tab(int id) {
    this.id = id;
  }

  /** The most characters of a tab's title or URL a listing shows. */
  static final int MAX_LISTED_CHARS = 300;

  /**
   * The tab as a listing shows it, its title and URL cut. Unless {@code knownTitle} gives it, the
   * title is the browser's (Chromium's record of the target, not a script in the page: a page busy
   * in a loop or holding a dialog open answers it all the same).
   */
  dev.periscope.api.browser.PageTab listed(boolean active, String knownTitle) {
    String title = knownTitle;
    if (title == null) {
      try {
        var info = guards.control().send("Target.getTargetInfo").getAsJsonObject("targetInfo");
        title = info.has("title") ? info.get("title").getAsString() : "";
      } catch (RuntimeException unknown) {
        title = "";
      }
      // Chromium names an untitled page by its URL.
      if (title.equals(page.url())) {
        title = "";
      }
    }
    return new dev.periscope.api.browser.PageTab(id, cut(page.url()), cut(title), active);
  }

  private static String cut(String s) {
    return s.length() <= MAX_LISTED_CHARS ? s : s.substring(0, MAX_LISTED_CHARS) + "…";
  }
}
