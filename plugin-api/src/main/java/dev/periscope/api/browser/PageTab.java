package dev.periscope.api.browser;

/**
 * One tab of an environment: its {@code id} (stable while the tab is open, never reused by the
 * environment), its URL and title, and whether it is the tab the observations and actions are of. A
 * tab is a page an action of the agent opened (a link to a new window, {@code window.open} in a
 * click handler) or {@code browser_tabs} opened.
 *
 * <p>Immutable and thread-safe.
 */
public record PageTab(int id, String url, String title, boolean active) {
  public PageTab {
    url = url == null ? "" : url;
    title = title == null ? "" : title;
  }
}
