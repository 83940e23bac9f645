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
                      int[] navigated = {0};
                      java.util.function.Consumer<com.microsoft.playwright.Frame> counted =
                          frame -> {
                            if (frame == env.tab().page.mainFrame()) {
                              navigated[0]++;
                            }
                          };
                      env.tab().page.onFrameNavigated(counted);
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
                                                awaitNavigation(() -> navigated[0] > 0);
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
                        env.tab().page.offFrameNavigated(counted);
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
   * Waits, within the navigation timeout, until the main frame navigated (to another URL, the same
   * one, or an error page).
   */
  private void awaitNavigation(java.util.function.BooleanSupplier navigated) {
    try {
      env.tab()
          .page
          .waitForCondition(
              navigated,
              new Page.WaitForConditionOptions()
                  .setTimeout(env.policy().timeouts().navigationMs()));
    } catch (PlaywrightException stayed) {
      // The observation after shows where the page is.
    }
  }
}
