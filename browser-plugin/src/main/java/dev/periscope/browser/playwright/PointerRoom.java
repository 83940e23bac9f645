package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.Page;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.ProviderElement;

/**
 * The pointer's actions: a click, a drag, a hover and a gesture at a screenshot's coordinates, each
 * through the environment's pipelines on its current tab; an element ready as Playwright's checks
 * would find it is pressed at the point one script gave ({@link #pointAt(ProviderElement, String,
 * java.util.function.Consumer, java.util.function.BiConsumer)}).
 */
final class PointerRoom {
  private final PlaywrightEnvironment env;

  PointerRoom(PlaywrightEnvironment env) {
    this.env = env;
  }

  void click(BrowserAction.Click action, ProviderElement element) {
    env.refuseBeforeDispatch(element);
    env.guarded(
        "the click",
        () -> {
          env.clickRequests(env.tab().guards.dataMark());
          // A datalist's suggestion is chosen, not clicked: Chromium draws it outside the page.
          if ("option".equals(element.role()) && action.plain() && suggestion(element)) {
            env.settle();
            return null;
          }
          if (action.offset() != null) {
            PointerActions.clickAtOffset(env.tab().page, env.resolve(element), element, action);
          } else if (action.plain()) {
            pointAt(
                element,
                "the click",
                point -> env.tab().page.mouse().click(point.x(), point.y()),
                (target, reach) -> target.click(reach.click(new ElementHandle.ClickOptions())));
          } else {
            pointAt(
                element,
                "the click",
                point ->
                    env.tab()
                        .page
                        .mouse()
                        .click(point.x(), point.y(), PointerActions.mouse(action)),
                (target, reach) -> target.click(reach.click(PointerActions.handle(action))));
          }
          env.settle();
          return null;
        });
  }

  /** {@link Choices#suggestion} on the element, which this lets go of. */
  private boolean suggestion(ProviderElement element) {
    ElementHandle target = env.resolve(element);
    try {
      return Choices.suggestion(target, element);
    } finally {
      target.dispose();
    }
  }

  void drag(BrowserAction.Drag action, ProviderElement element, ProviderElement destination) {
    env.refuseBeforeDispatch(element);
    env.guarded(
        "the drag",
        () -> {
          ElementHandle from = env.resolve(element);
          try {
            ElementHandle to = env.resolve(destination);
            try {
              // The drop target first, then the dragged element: when both fit, both show.
              to.scrollIntoViewIfNeeded();
              HitTest.Reach reach =
                  HitTest.requireUncovered(
                      env.tab().page, from, element, env.registryKey(), "the drag");
              // The hit test's point is in the element's own frame's viewport: the page's mouse
              // takes it only for an element of the page's own document.
              boolean inFrame = element.target().contains("|");
              PointerActions.drag(
                  env.tab().page,
                  from,
                  inFrame ? null : reach.point(),
                  to,
                  element,
                  destination,
                  env.tab().dialogs::afterAnswer);
            } finally {
              to.dispose();
            }
          } finally {
            from.dispose();
          }
          env.nextFrame();
          return null;
        });
  }

  /**
   * Puts the pointer on {@code element}: an element ready as Playwright's checks would find it is
   * found and looked at in one script and pressed at the point it gave ({@code ready}), without a
   * handle's round trips or Playwright's stability wait (two animation frames), which is what a
   * click would mostly spend; any other goes to {@code checked} with its handle, after {@link
   * HitTest#requireUncovered} (whether it was ready by then). On the lane's thread.
   */
  private void pointAt(
      ProviderElement element,
      String what,
      java.util.function.Consumer<HitTest.Point> ready,
      java.util.function.BiConsumer<ElementHandle, HitTest.Reach> checked) {
    env.requireObservedTab();
    var point =
        PageScripts.readyPoint(
            env.tab().page, env.tab().observedFrames, env.registryKey(), element);
    if (point.isPresent()) {
      ready.accept(point.get());
      return;
    }
    ElementHandle target = env.resolve(element);
    try {
      checked.accept(
          target,
          HitTest.requireUncovered(env.tab().page, target, element, env.registryKey(), what));
    } finally {
      target.dispose();
    }
  }

  /**
   * A gesture at coordinates of the latest screenshot: the page's view is read first and compared
   * with the screenshot's ({@code BROWSER_STALE_SCREENSHOT} when it scrolled, navigated or was
   * resized), then the pointer acts there as a person's would, guarded as a click is.
   */
  void pointAt(BrowserAction.PointAt action) {
    env.guarded(
        "the " + action.gesture().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '),
        () -> {
          Page page = env.tab().page;
          String change =
              action.view().changeTo(Screenshots.view(page).inPage("page-" + env.tab().id));
          if (change != null) {
            throw BrowserException.of(
                    ErrorCode.BROWSER_STALE_SCREENSHOT,
                    "the screenshot the coordinates were taken from is stale: "
                        + change
                        + "; take a new screenshot with browser_screenshot and name points of it")
                .withUrl(page.url());
          }
          double x = action.x();
          double y = action.y();
          switch (action.gesture()) {
            case CLICK -> page.mouse().click(x, y);
            case DOUBLE_CLICK -> page.mouse().dblclick(x, y);
            case RIGHT_CLICK ->
                page.mouse()
                    .click(
                        x,
                        y,
                        new com.microsoft.playwright.Mouse.ClickOptions()
                            .setButton(com.microsoft.playwright.options.MouseButton.RIGHT));
            case MOVE -> page.mouse().move(x, y);
            case DRAG ->
                PointerActions.dragBetween(
                    page, x, y, action.toX(), action.toY(), env.tab().dialogs::afterAnswer);
            case SCROLL -> {
              page.mouse().move(x, y);
              page.mouse().wheel(action.deltaX(), action.deltaY());
            }
            case TYPE -> {
              page.mouse().click(x, y);
              PointerActions.type(page, env.registryKey(), action.text(), 0);
            }
          }
          if (action.gesture() == BrowserAction.PointAt.Gesture.MOVE
              || action.gesture() == BrowserAction.PointAt.Gesture.DRAG
              || action.gesture() == BrowserAction.PointAt.Gesture.SCROLL) {
            env.nextFrame();
          } else {
            env.settle();
          }
          return null;
        });
  }

  void hover(BrowserAction.Hover action, ProviderElement element) {
    env.act(
        "hovering",
        () -> {
          pointAt(
              element,
              "the pointer",
              point -> env.tab().page.mouse().move(point.x(), point.y()),
              (target, reach) ->
                  target.hover(
                      new ElementHandle.HoverOptions()
                          .setForce(reach.ready())
                          .setPosition(reach.offset())));
          // Hover handlers run on the next frame: let the page open what it opens on hover first.
          env.nextFrame();
          return null;
        });
  }
}
