package dev.periscope.browser.playwright;

import com.microsoft.playwright.Frame;
import com.microsoft.playwright.Page;
import java.util.List;

/**
 * One tab of an environment: its page and what watches that page (its guards, the outcome of its
 * main document, its dialogs, its click listeners) and the frames its latest observation looked
 * into. Its id is stable while it is open and never given to another tab of the environment. The
 * page is replaced (a fresh one in its place) only when a navigation got no response headers in
 * time. Used on the lane's thread only.
 */
final class Tab {
  final int id;
  Page page;
  PageGuards guards;
  NavigationOutcomes navigations;
  PageDialogs dialogs;
  ClickListeners clickListeners;

  /**
   * The frames this tab's latest observation looked into: a frame element's target names one by its
   * index.
   */
  List<Frame> observedFrames = List.of();

  /** When it was last the current tab, in the environment's own count: the newest goes first. */
  long selected;

  Tab(int id) {
    this.id = id;
  }

  /**
   * The tab as a listing shows it: its title is read only when its page can answer (a page holding
   * a dialog open runs no script).
   */
  dev.periscope.api.browser.PageTab listed(boolean active, String knownTitle) {
    String title = knownTitle;
    if (title == null) {
      title = dialogs.pending().isPresent() ? "" : page.title();
    }
    return new dev.periscope.api.browser.PageTab(id, page.url(), title, active);
  }
}
