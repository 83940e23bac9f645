package dev.periscope.browser.playwright;

import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.PageTab;
import dev.periscope.api.browser.spi.ProviderElement;
import java.util.List;

/**
 * An environment's page actions ({@link PlaywrightEnvironment#actions()}): each action's record
 * finds the room that holds its Playwright code, grouped by kind: the pointer's ({@link
 * PointerRoom}), the keyboard's and the fields' ({@link FieldRoom}), navigation ({@link
 * NavigationRoom}), scrolling and waits ({@link WaitAndScrollRoom}), dialogs and tabs ({@link
 * DialogAndTabRoom}). The rooms reach the page, its tabs and its state through the environment.
 */
final class PlaywrightActions implements BrowserAction.Handler {
  private final PointerRoom pointer;
  private final FieldRoom fields;
  private final NavigationRoom navigation;
  private final WaitAndScrollRoom waits;
  private final DialogAndTabRoom dialogsAndTabs;

  PlaywrightActions(
      PointerRoom pointer,
      FieldRoom fields,
      NavigationRoom navigation,
      WaitAndScrollRoom waits,
      DialogAndTabRoom dialogsAndTabs) {
    this.pointer = pointer;
    this.fields = fields;
    this.navigation = navigation;
    this.waits = waits;
    this.dialogsAndTabs = dialogsAndTabs;
  }

  @Override
  public void navigate(BrowserAction.Navigate action) {
    navigation.navigate(action);
  }

  /** A click of the back or forward button of a mouse is a move in the history. */
  @Override
  public void click(BrowserAction.Click action, ProviderElement element) {
    if (action.button().move() != null) {
      navigation.history(new BrowserAction.History(action.button().move()));
      return;
    }
    pointer.click(action, element);
  }

  @Override
  public void drag(
      BrowserAction.Drag action, ProviderElement element, ProviderElement destination) {
    pointer.drag(action, element, destination);
  }

  @Override
  public void pointAt(BrowserAction.PointAt action) {
    pointer.pointAt(action);
  }

  @Override
  public void hover(BrowserAction.Hover action, ProviderElement element) {
    pointer.hover(action, element);
  }

  @Override
  public void upload(BrowserAction.Upload action, ProviderElement element) {
    fields.upload(action, element);
  }

  @Override
  public void type(BrowserAction.Type action, ProviderElement element) {
    fields.type(action, element);
  }

  @Override
  public void fill(BrowserAction.Fill action, ProviderElement element) {
    fields.fill(action, element);
  }

  @Override
  public void clear(BrowserAction.Clear action, ProviderElement element) {
    fields.clear(action, element);
  }

  @Override
  public void press(BrowserAction.Press action, ProviderElement element) {
    fields.press(action, element);
  }

  @Override
  public void select(BrowserAction.Select action, ProviderElement element) {
    fields.select(action, element);
  }

  @Override
  public void check(BrowserAction.Check action, ProviderElement element) {
    fields.check(action, element);
  }

  @Override
  public void scroll(BrowserAction.Scroll action, ProviderElement element) {
    waits.scroll(action, element);
  }

  @Override
  public void waitFor(BrowserAction.Wait action, ProviderElement element) {
    waits.waitFor(action, element);
  }

  @Override
  public void history(BrowserAction.History action) {
    navigation.history(action);
  }

  @Override
  public void answerDialog(BrowserAction.AnswerDialog action) {
    dialogsAndTabs.answerDialog(action);
  }

  @Override
  public List<PageTab> tabs(BrowserAction.Tabs action) {
    return dialogsAndTabs.tabs(action);
  }
}
