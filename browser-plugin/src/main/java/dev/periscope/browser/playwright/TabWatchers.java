package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.EnvironmentFault;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * What watches each tab of an environment: gives a tab its page and the page its guards, listener
 * hand-over, navigation outcomes and dialogs, and builds the pipelines its actions pass through
 * ({@link Tab#acting}, {@link Tab#opening}, {@link Tab#unguarded}). On the lane's thread, as a tab
 * gets a page.
 */
final class TabWatchers {
  private final PlaywrightEnvironment env;
  private final PageDownloads downloads;
  private final long dialogTimeoutMs;
  private final EnvironmentFaults faults;
  private final PlaywrightSettings.Console console;

  TabWatchers(
      PlaywrightEnvironment env,
      PageDownloads downloads,
      long dialogTimeoutMs,
      PlaywrightSettings.Console console,
      EnvironmentFaults faults) {
    this.env = env;
    this.downloads = downloads;
    this.dialogTimeoutMs = dialogTimeoutMs;
    this.console = console;
    this.faults = faults;
  }

  /** Gives {@code t} the page {@code page} and what watches it. */
  void equip(Tab t, Page page) {
    env.place().user().ifPresent(u -> u.equip(page));
    t.page = page;
    // The environment's tabs are read as they are used: the first tab is equipped while they are
    // being made.
    t.guards =
        new PageGuards(
            page,
            env.context().newCDPSession(page),
            env.registryKey(),
            env.policy().timeouts().navigationMs(),
            () -> env.tabs().takeClosedPages(t),
            count -> env.tabs().awaitOpened(count, env.waitsEnd()),
            env.lane(),
            env::waitsEnd,
            env::ended,
            () -> env.givePageUp(t),
            downloads);
    t.clickListeners = new ClickListeners(t.guards.control(), env.registryKey());
    if (env.credentialFields().egress != null) {
      env.credentialFields().egress.equip(t);
    }
    t.navigations = new NavigationOutcomes(page, env.proxy());
    t.dialogs =
        new PageDialogs(
            page,
            env.lane(),
            dialogTimeoutMs,
            env.policy().timeouts().actionMs(),
            line -> t.guards.report(line));
    t.console = new PageConsole(page, console);
    t.observedFrames = List.of();
    ActionStage downloadsKept = downloads.stage(() -> t.page.url());
    // An action's stages are an opening's with the document's arrival watched outermost.
    t.opening =
        ActionPipeline.of(
            t.dialogs, downloadsKept, t.navigations, newWindows, t.guards, t.dialogs.work);
    t.acting =
        ActionPipeline.of(
            documentArrived,
            t.dialogs,
            downloadsKept,
            t.navigations,
            newWindows,
            t.guards,
            t.dialogs.work);
    t.unguarded = ActionPipeline.of(t.dialogs, newWindows, t.dialogs.work);
    // The current tab's renderer crashing ends the environment (a fault, recovered from the last
    // checkpoint); another tab's ends only that tab, as a browser shows a crashed tab; a page no
    // tab has any more (given up, left to close) ends nothing.
    page.onCrash(
        crashed -> {
          if (t.page != crashed) {
            return; // a page given up, no longer the tab's
          }
          if (env.tabs().current() == t) {
            faults.fault(EnvironmentFault.Cause.PAGE_CRASHED, "the page's renderer crashed");
          } else {
            env.tabs().crashed(t, crashed);
          }
        });
  }

  /**
   * The tabs' stage ({@link EnvironmentTabs#around}): a page that opens while an action runs is its
   * tab.
   */
  private final ActionStage newWindows =
      new ActionStage() {
        @Override
        public <T> T around(String what, Callable<T> rest) throws Exception {
          return env.tabs().around(what, rest);
        }
      };

  /**
   * The first stage of an action on the page's document: a navigation under way must have brought
   * it ({@link PlaywrightEnvironment#awaitDocument}).
   */
  private final ActionStage documentArrived =
      new ActionStage() {
        @Override
        public <T> T around(String what, Callable<T> rest) throws Exception {
          env.awaitDocument(what, ErrorCode.BROWSER_STALE_REFERENCE);
          return rest.call();
        }
      };
}
