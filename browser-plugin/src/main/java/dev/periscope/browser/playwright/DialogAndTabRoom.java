package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import dev.periscope.api.browser.BrowserAction;
import java.util.List;

/**
 * Answering the dialog the current tab holds open (what the page does once answered is the
 * answer's), and {@code browser_tabs}: opening a tab through the policy, switching, closing and
 * listing them ({@link EnvironmentTabs}).
 */
final class DialogAndTabRoom {
  private final NavigationRoom navigation;

  private final PlaywrightEnvironment env;

  DialogAndTabRoom(PlaywrightEnvironment env, NavigationRoom navigation) {
    this.env = env;
    this.navigation = navigation;
  }

  void answerDialog(BrowserAction.AnswerDialog action) {
    String what = "answering the dialog";
    env.call(
        what,
        () ->
            env.tab()
                .navigations
                .around(
                    what,
                    () -> {
                      // The page answered: once answered it may navigate, or close (a tab whose
                      // leave it held up), and another tab be current.
                      Page asking = env.tab().page;
                      int[] navigated = {0};
                      java.util.function.Consumer<com.microsoft.playwright.Frame> counted =
                          frame -> {
                            if (frame == asking.mainFrame()) {
                              navigated[0]++;
                            }
                          };
                      asking.onFrameNavigated(counted);
                      try {
                        env.tab()
                            .dialogs
                            .answer(
                                action.accept(),
                                action.promptText(),
                                type -> {
                                  try {
                                    // What the page does once answered is the answer's: a window
                                    // it opens then is a tab.
                                    ActionPipeline.of(env.tabs(), env.tab().guards)
                                        .run(
                                            what,
                                            () -> {
                                              if (action.accept() && type.equals("beforeunload")) {
                                                // The page let go: the navigation it held
                                                // up goes on.
                                                awaitNavigation(
                                                    asking,
                                                    () -> navigated[0] > 0 || asking.isClosed());
                                              }
                                              env.settle();
                                              return null;
                                            });
                                  } catch (RuntimeException e) {
                                    throw e;
                                  } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                  }
                                });
                      } finally {
                        asking.offFrameNavigated(counted);
                      }
                      return null;
                    }));
  }

  List<dev.periscope.api.browser.PageTab> tabs(BrowserAction.Tabs action) {
    switch (action.move()) {
      case OPEN -> {
        String url = action.url();
        navigation.refuseBeforeNavigating(url);
        env.call(
            "opening a tab",
            () -> {
              env.tab().dialogs.requireNone("opening a tab");
              return env.tabs().openBlank();
            });
        // The new tab is the current one whether or not its page loads, as in a browser.
        navigation.navigateAdmitted(url);
      }
      case SELECT ->
          env.call(
              "switching tabs",
              () -> {
                env.tab().dialogs.requireNone("switching tabs");
                env.tabs().select(action.tab());
                return null;
              });
      case CLOSE ->
          env.call(
              "closing the tab",
              () -> {
                env.tabs().close(action.tab());
                return null;
              });
      case LIST -> {}
    }
    return env.call("listing the tabs", () -> env.tabs().listing(null));
  }

  /**
   * Waits, within the navigation timeout, until {@code page}'s main frame navigated (to another
   * URL, the same one, or an error page) or the page closed.
   */
  private void awaitNavigation(Page page, java.util.function.BooleanSupplier navigated) {
    if (navigated.getAsBoolean()) {
      return;
    }
    try {
      page.waitForCondition(
          navigated,
          new Page.WaitForConditionOptions().setTimeout(env.policy().timeouts().navigationMs()));
    } catch (PlaywrightException stayed) {
      // The observation after shows where the page is.
    }
  }
}
