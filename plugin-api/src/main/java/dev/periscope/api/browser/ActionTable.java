package dev.periscope.api.browser;

import dev.periscope.api.browser.BrowserAction.AnswerDialog;
import dev.periscope.api.browser.BrowserAction.Check;
import dev.periscope.api.browser.BrowserAction.Clear;
import dev.periscope.api.browser.BrowserAction.Click;
import dev.periscope.api.browser.BrowserAction.Drag;
import dev.periscope.api.browser.BrowserAction.ElementTarget;
import dev.periscope.api.browser.BrowserAction.Evaluate;
import dev.periscope.api.browser.BrowserAction.Fill;
import dev.periscope.api.browser.BrowserAction.FillCredential;
import dev.periscope.api.browser.BrowserAction.Handler;
import dev.periscope.api.browser.BrowserAction.History;
import dev.periscope.api.browser.BrowserAction.Hover;
import dev.periscope.api.browser.BrowserAction.Navigate;
import dev.periscope.api.browser.BrowserAction.PointAt;
import dev.periscope.api.browser.BrowserAction.Press;
import dev.periscope.api.browser.BrowserAction.Scroll;
import dev.periscope.api.browser.BrowserAction.Select;
import dev.periscope.api.browser.BrowserAction.Tabs;
import dev.periscope.api.browser.BrowserAction.Type;
import dev.periscope.api.browser.BrowserAction.Upload;
import dev.periscope.api.browser.BrowserAction.Wait;
import dev.periscope.api.browser.spi.ProviderElement;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What {@link BrowserAction}'s methods answer for each action: one row per record, read by the
 * interface's default methods. A row holds the action's kind, the element(s) it names, its checks
 * ({@link ActionChecks}), the element it admits, its description ({@link ActionLog}), the time it
 * may take, what a failure calls it, whether it can be repeated on a fresh browser, how the page's
 * guards treat it and which {@link Handler} method performs it. What a row leaves out is the
 * default: no element, any element admitted, the action and then the navigation timeout, "the
 * kind", repeatable when it names no element, not acting on the page, changing its target, no
 * entered text. A new action adds its record (in {@link BrowserAction}), its Handler method, its
 * row here and, when its result is {@code Done}, its name in {@link DonePageAction}'s permits.
 */
final class ActionTable {
  private ActionTable() {}

  /** The time an action may take, from the environment's action and navigation timeouts. */
  interface Bound<A> {
    long ms(A action, long actionMs, long navigationMs);
  }

  /** How a handler performs a page action whose result is {@link BrowserAction.Done}. */
  interface Perform<A> {
    void on(A action, Handler handler, ProviderElement target, ProviderElement destination);
  }

  private static final Bound<Object> ACTION = (a, actionMs, navigationMs) -> actionMs;
  private static final Bound<Object> NAVIGATION = (a, actionMs, navigationMs) -> navigationMs;

  private static final Map<Class<?>, Row<?>> ROWS = new HashMap<>();

  static {
    row(Navigate.class, "navigate")
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .bound(NAVIGATION)
        .step(a -> "opening the page")
        .performs((a, h, t, d) -> h.navigate(a));
    row(Click.class, "click")
        .on(Click::observationId, Click::elementRef)
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .performs((a, h, t, d) -> h.click(a, t));
    row(Drag.class, "drag")
        .on(Drag::observationId, Drag::elementRef)
        .destination(a -> new ElementTarget(a.observationId(), a.toElementRef()))
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .performs((a, h, t, d) -> h.drag(a, t, d));
    // The keys' own time on top: the action timeout, the pauses, then a navigation's.
    row(Type.class, "type")
        .onIfNamed(Type::observationId, Type::elementRef)
        .checks(ActionChecks::validate)
        .admits((a, e) -> ActionChecks.refusePassword(e, a.elementRef()))
        .log(ActionLog::describe)
        .bound((a, actionMs, navMs) -> actionMs + a.text().length() * a.delayMs() + navMs)
        .step(a -> "typing")
        .actsOnThePage()
        .enters(Type::text)
        .performs((a, h, t, d) -> h.type(a, t));
    row(Hover.class, "hover")
        .on(Hover::observationId, Hover::elementRef)
        .checks(a -> ActionChecks.requireRef(a.elementRef()))
        .log(a -> ActionLog.describe(a, a.elementRef()))
        .bound(ACTION)
        .performs((a, h, t, d) -> h.hover(a, t));
    row(Clear.class, "clear")
        .on(Clear::observationId, Clear::elementRef)
        .checks(a -> ActionChecks.requireRef(a.elementRef()))
        .admits((a, e) -> ActionChecks.admitClear(e, a.elementRef()))
        .log(a -> ActionLog.describe(a, a.elementRef()))
        .step(a -> "clearing the field")
        .performs((a, h, t, d) -> h.clear(a, t));
    row(Fill.class, "fill")
        .on(Fill::observationId, Fill::elementRef)
        .checks(ActionChecks::validate)
        .admits((a, e) -> ActionChecks.refusePassword(e, a.elementRef()))
        .log(ActionLog::describe)
        .enters(Fill::value)
        .performs((a, h, t, d) -> h.fill(a, t));
    row(FillCredential.class, "fill_credential")
        .on(FillCredential::observationId, FillCredential::elementRef)
        .checks(ActionChecks::validate)
        .log(ActionLog::describe);
    // Approved for the page it was asked for; a navigation the script starts goes on.
    row(Evaluate.class, "evaluate")
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .bound(ACTION)
        .step(a -> "the script")
        .repeatable(a -> false)
        .actsOnThePage();
    // A key that types a character does not go into a password field: Enter, Tab and chords do.
    row(Press.class, "press")
        .onIfNamed(Press::observationId, Press::elementRef)
        .checks(Press::chord)
        .admits(ActionTable::admitPress)
        .log(ActionLog::describe)
        .actsOnThePage()
        .performs((a, h, t, d) -> h.press(a, t));
    row(Select.class, "select")
        .on(Select::observationId, Select::elementRef)
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .performs((a, h, t, d) -> h.select(a, t));
    row(Check.class, "check")
        .on(Check::observationId, Check::elementRef)
        .checks(a -> ActionChecks.requireRef(a.elementRef()))
        .log(ActionLog::describe)
        .performs((a, h, t, d) -> h.check(a, t));
    row(Scroll.class, "scroll")
        .onIfNamed(Scroll::observationId, Scroll::elementRef)
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .bound(ACTION)
        .changesNothing()
        .performs((a, h, t, d) -> h.scroll(a, t));
    row(Wait.class, "wait")
        .onIfNamed(Wait::observationId, Wait::elementRef)
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .bound((a, actionMs, navigationMs) -> Math.min(a.timeoutMs(), navigationMs))
        .changesNothing()
        .performs((a, h, t, d) -> h.waitFor(a, t));
    // It moves through the lost page's history: it cannot succeed on another browser.
    row(History.class, a -> a.move().id())
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .bound(NAVIGATION)
        .repeatable(a -> false)
        .performs((a, h, t, d) -> h.history(a));
    // Only listing and opening can succeed on a fresh browser: a tab number is the lost one's.
    row(Tabs.class, a -> "tab_" + a.move().id())
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .bound((a, actionMs, navMs) -> a.move() == Tabs.Move.OPEN ? navMs : actionMs)
        .step(a -> a.move() == Tabs.Move.OPEN ? "opening the tab" : "the tabs")
        .repeatable(a -> a.move() == Tabs.Move.LIST || a.move() == Tabs.Move.OPEN);
    // It answers the lost page's dialog: it cannot succeed on another browser.
    row(AnswerDialog.class, "dialog")
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .step(a -> "answering the dialog")
        .repeatable(a -> false)
        .performs((a, h, t, d) -> h.answerDialog(a));
    row(Upload.class, "upload")
        .on(Upload::observationId, Upload::elementRef)
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .performs((a, h, t, d) -> h.upload(a, t));
    // Typed text's own time on top (10 ms a character); the page under a point may have changed.
    row(PointAt.class, "point")
        .checks(ActionChecks::validate)
        .log(ActionLog::describe)
        .bound((a, actionMs, navMs) -> actionMs + ActionTable.typingMs(a.text()) + navMs)
        .step(a -> "the " + EnumIds.id(a.gesture()) + " at (" + a.x() + ", " + a.y() + ")")
        .repeatable(a -> false)
        .actsOnThePage()
        .performs((a, h, t, d) -> h.pointAt(a));
  }

  private static long typingMs(String text) {
    return text == null ? 0 : text.length() * 10L;
  }

  private static void admitPress(Press press, ProviderElement target) {
    if (press.chord().types()) {
      ActionChecks.refusePassword(target, press.elementRef());
    }
  }

  static String kind(BrowserAction<?> action) {
    return row(action).kind.apply(action);
  }

  static ElementTarget target(BrowserAction<?> action) {
    return row(action).target.apply(action);
  }

  static ElementTarget destination(BrowserAction<?> action) {
    return row(action).destination.apply(action);
  }

  static void validate(BrowserAction<?> action) {
    row(action).checks.accept(action);
  }

  static void admit(BrowserAction<?> action, ProviderElement target) {
    row(action).admits.accept(action, target);
  }

  static Map<String, Object> describe(BrowserAction<?> action) {
    return row(action).log.apply(action);
  }

  static long timeoutMs(BrowserAction<?> action, long actionMs, long navigationMs) {
    return row(action).bound.ms(action, actionMs, navigationMs);
  }

  static String step(BrowserAction<?> action) {
    Function<BrowserAction<?>, String> step = row(action).step;
    return step == null ? "the " + action.kind() : step.apply(action);
  }

  static boolean repeatable(BrowserAction<?> action) {
    Predicate<BrowserAction<?>> repeatable = row(action).repeatable;
    return repeatable == null ? action.target() == null : repeatable.test(action);
  }

  static boolean actsOnThePage(BrowserAction<?> action) {
    return row(action).actsOnThePage;
  }

  static boolean changesItsTarget(BrowserAction<?> action) {
    return row(action).changesItsTarget;
  }

  static String enteredText(BrowserAction<?> action) {
    return row(action).enters.apply(action);
  }

  /** Performs a page action through the handler's method for it. */
  static void perform(
      BrowserAction<?> action,
      Handler handler,
      ProviderElement target,
      ProviderElement destination) {
    Perform<BrowserAction<?>> perform = row(action).performs;
    if (perform == null) {
      throw new IllegalStateException(action.getClass() + " is not performed by a handler");
    }
    perform.on(action, handler, target, destination);
  }

  @SuppressWarnings("unchecked")
  private static Row<BrowserAction<?>> row(BrowserAction<?> action) {
    Row<?> row = ROWS.get(action.getClass());
    if (row == null) {
      throw new IllegalStateException(action.getClass() + " has no row in the action table");
    }
    return (Row<BrowserAction<?>>) row;
  }

  /** Whether {@code type} has a row: every record of {@link BrowserAction} has one. */
  static boolean hasRow(Class<?> type) {
    return ROWS.containsKey(type);
  }

  /** Whether {@code type}'s row says which handler method performs it. */
  static boolean performed(Class<?> type) {
    return hasRow(type) && ROWS.get(type).performs != null;
  }

  private static <A extends BrowserAction<?>> Row<A> row(Class<A> type, String kind) {
    return row(type, a -> kind);
  }

  private static <A extends BrowserAction<?>> Row<A> row(Class<A> type, Function<A, String> kind) {
    Row<A> row = new Row<>(kind);
    ROWS.put(type, row);
    return row;
  }

  /** One action's row, filled in by the static block above and never changed after. */
  private static final class Row<A> {
    private final Function<A, String> kind;
    private Function<A, ElementTarget> target = a -> null;
    private Function<A, ElementTarget> destination = a -> null;
    private Consumer<A> checks;
    private BiConsumer<A, ProviderElement> admits = (a, e) -> {};
    private Function<A, Map<String, Object>> log;
    private Bound<? super A> bound = (a, actionMs, navigationMs) -> actionMs + navigationMs;
    private Function<A, String> step;
    private Predicate<A> repeatable;
    private boolean actsOnThePage;
    private boolean changesItsTarget = true;
    private Function<A, String> enters = a -> null;
    private Perform<A> performs;

    private Row(Function<A, String> kind) {
      this.kind = kind;
    }

    /** It names an element, its ref required. */
    Row<A> on(Function<A, String> observationId, Function<A, String> elementRef) {
      target = a -> new ElementTarget(observationId.apply(a), elementRef.apply(a));
      return this;
    }

    /** It names an element when it has a ref, else acts on the page. */
    Row<A> onIfNamed(Function<A, String> observationId, Function<A, String> elementRef) {
      target =
          a ->
              elementRef.apply(a) == null
                  ? null
                  : new ElementTarget(observationId.apply(a), elementRef.apply(a));
      return this;
    }

    Row<A> destination(Function<A, ElementTarget> destination) {
      this.destination = destination;
      return this;
    }

    Row<A> checks(Consumer<A> checks) {
      this.checks = checks;
      return this;
    }

    Row<A> admits(BiConsumer<A, ProviderElement> admits) {
      this.admits = admits;
      return this;
    }

    Row<A> log(Function<A, Map<String, Object>> log) {
      this.log = log;
      return this;
    }

    Row<A> bound(Bound<? super A> bound) {
      this.bound = bound;
      return this;
    }

    Row<A> step(Function<A, String> step) {
      this.step = step;
      return this;
    }

    Row<A> repeatable(Predicate<A> repeatable) {
      this.repeatable = repeatable;
      return this;
    }

    Row<A> actsOnThePage() {
      actsOnThePage = true;
      return this;
    }

    Row<A> changesNothing() {
      changesItsTarget = false;
      return this;
    }

    Row<A> enters(Function<A, String> enters) {
      this.enters = enters;
      return this;
    }

    Row<A> performs(Perform<A> performs) {
      this.performs = performs;
      return this;
    }
  }
}
