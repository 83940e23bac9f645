package dev.periscope.browser.playwright;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Frame;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.Cookie;
import dev.periscope.api.browser.spi.CheckpointRef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What one environment's checkpoints are made of, and when a new one is worth writing. Playwright's
 * storage state costs hundreds of milliseconds (and the agent's next action waits for it), so it is
 * taken only when a cheap look says something may have changed: the cookies, and the origin and
 * local, session and IndexedDB storage of every frame of the current tab, digested ({@link
 * BrowserStorage#DIGEST}). An origin no longer shown could have changed only while it was shown,
 * when its frame was looked at. When only the tabs' URLs changed, the last state is written again
 * with them, without a new storage state. While any tab holds a dialog open nothing is looked at (a
 * page holding a dialog runs no script, and would hold the look up): the checkpoint after the
 * answer follows.
 */
final class EnvironmentState {
  private final BrowserContext context;
  private final EnvironmentTabs tabs;
  private final StateCheckpoints files;
  private final long capBytes;

  /** The state the last checkpoint of this environment held, with its tabs. */
  private String lastCapture;

  /**
   * The tabs {@link #lastCapture} holds ({@link BrowserStorage#tabs}), kept beside it: the look
   * after every action compares them, and the capture may hold megabytes of storage to parse.
   */
  private String lastTabs;

  /** The digest of the cookies and frames' storage the last checkpoint was taken after. */
  private String lastDigest;

  EnvironmentState(
      BrowserContext context, EnvironmentTabs tabs, StateCheckpoints files, long capBytes) {
    this.context = context;
    this.tabs = tabs;
    this.files = files;
    this.capBytes = capBytes;
  }

  /**
   * The cheap look: the storage digest (null: unknown) and the tabs, or null while a dialog is open
   * or a tab is on its way to another document.
   */
  record Look(String storage, String tabs) {}

  /** Looks at the state. On the lane's thread. */
  Look look() {
    // A tab on its way to another document runs no script until it comes.
    if (tabs.any(t -> t.dialogs.pending().isPresent() || t.guards.navigating())) {
      return null;
    }
    return new Look(storageDigest(), BrowserStorage.tabs(tabs.saved()));
  }

  /**
   * Cookies, local storage, IndexedDB, the current tab's session storage and every tab's URL
   * ({@link BrowserStorage}). On the lane's thread.
   */
  String capture() {
    // A tab on its way to another document runs no script: its session storage is not read.
    Tab current = tabs.current();
    return BrowserStorage.withTabs(
        BrowserStorage.capture(
            context, current.guards.navigating() ? null : current.page, capBytes),
        BrowserStorage.tabs(tabs.saved()));
  }

  /** Writes {@code state} as a new checkpoint. */
  CheckpointRef write(String state) {
    return files.write(state);
  }

  /**
   * Writes a checkpoint when what {@code seen} found differs from what {@code current}, the indexed
   * checkpoint, holds; {@code capture} takes the full state (on the lane's thread) when storage may
   * have changed.
   */
  synchronized Optional<CheckpointRef> writeIfChanged(
      Look seen, Optional<CheckpointRef> current, Supplier<String> capture) {
    if (seen == null) {
      return Optional.empty();
    }
    if (seen.storage() != null
        && seen.storage().equals(lastDigest)
        && lastCapture != null
        && files.holds(current)) {
      if (seen.tabs().equals(lastTabs)) {
        return Optional.empty();
      }
      lastCapture = BrowserStorage.withTabs(lastCapture, seen.tabs());
      lastTabs = seen.tabs();
      return files.writeIfChanged(lastCapture, current);
    }
    String state = capture.get();
    Optional<CheckpointRef> written = files.writeIfChanged(state, current);
    lastDigest = seen.storage();
    lastCapture = state;
    lastTabs = BrowserStorage.tabsOf(state);
    return written;
  }

  /**
   * The cookies and the current tab's frames' origin and storage, digested; null when a frame could
   * not be looked at (it went meanwhile). Other tabs are not looked into: a busy one would hold the
   * look up, and what they store they stored while current (cookies are the context's, seen
   * whatever the tab).
   */
  private String storageDigest() {
    List<String> lines = new ArrayList<>();
    for (Cookie c : context.cookies()) {
      lines.add(
          String.join(
              "\u0000",
              c.name,
              c.value,
              String.valueOf(c.domain),
              String.valueOf(c.path),
              String.valueOf(c.expires),
              String.valueOf(c.httpOnly),
              String.valueOf(c.secure),
              String.valueOf(c.sameSite)));
    }
    Collections.sort(lines);
    for (Frame frame : PageScripts.documentFrames(tabs.current().page)) {
      try {
        lines.add(
            String.valueOf(frame.evaluate(BrowserStorage.DIGEST, BrowserStorage.IDB_RECORDS)));
      } catch (PlaywrightException gone) {
        return null;
      }
    }
    return StateCheckpoints.digest(String.join("\n", lines));
  }
}
