package dev.periscope.api.browser;

import dev.periscope.api.browser.spi.ProviderElement;
import java.util.List;
import java.util.Map;

/**
 * An action on a page, as data: one record per action, with typed fields and its own result type
 * {@code R}; the methods below answer what it is (its kind, checks, redacted description, time
 * bound) from its row in the package's {@code ActionTable}. The runtime validates an action,
 * resolves its {@link #target()} against the newest observation and hands a {@link PageAction} to
 * the environment's {@link Handler}; {@link FillCredential} and {@link Evaluate} are its own. The
 * records stay nested here, where compiled providers find them. The enums of their fields spell a
 * constant for tools and transitions by {@code id()}, list them by {@code ids()} (what a tool's
 * schema offers) and read one back by {@code of(id)}, else {@code BROWSER_INVALID_ARGUMENT} naming
 * the field. Actions are immutable and thread-safe.
 */
public sealed interface BrowserAction<R> {
  /** Common keys {@link Press} accepts (any {@link KeyChord} since host API 2.8.0). */
  List<String> KEYS = KeyNames.COMMON;

  /** The most milliseconds a {@link Wait} may ask for. */
  long MAX_WAIT_MS = 120_000;

  /** The action's kind as transitions record it. */
  default String kind() {
    return ActionTable.kind(this);
  }

  /** The element the action names, or null when it names none. */
  default ElementTarget target() {
    return ActionTable.target(this);
  }

  /** The second element an action names, where a {@link Drag} drops; null for the others. */
  default ElementTarget destination() {
    return ActionTable.destination(this);
  }

  /** Checks its own fields before it runs: {@code BROWSER_INVALID_ARGUMENT} naming the field. */
  default void validate() {
    ActionTable.validate(this);
  }

  /** Checks the element the target resolved to, before the action runs (its record says how). */
  default void admit(ProviderElement target) {
    ActionTable.admit(this, target);
  }

  /** How transitions record it: kind and fields, never a typed value, a script or a secret. */
  default Map<String, Object> describe() {
    return ActionTable.describe(this);
  }

  /**
   * How long the provider may take, by the environment's timeouts: the action timeout and then the
   * navigation timeout for what may start a navigation (a click, a key, a choice), with typed
   * text's own time on top; a navigation or a move through history the navigation timeout; a hover,
   * a scroll or a script the action timeout; a wait its own, at most a navigation's.
   */
  default long timeoutMs(long actionMs, long navigationMs) {
    return ActionTable.timeoutMs(this, actionMs, navigationMs);
  }

  /** What the action is called in a failure that ran out of time ("the click", "typing"). */
  default String step() {
    return ActionTable.step(this);
  }

  /**
   * Whether it can succeed on a fresh browser after its own died: not when it names a ref, a tab or
   * a point of the lost page, moves through its history, answers its dialog or runs a script.
   */
  default boolean repeatable() {
    return ActionTable.repeatable(this);
  }

  /**
   * Whether, naming no element, it acts where the focus or pointer is (a key, typed text, a point,
   * a script), so the page's guards admit it as a target (host API 2.9.0).
   */
  default boolean actsOnThePage() {
    return ActionTable.actsOnThePage(this);
  }

  /** Whether it changes what its target shows, so a challenge guards it (not a wait or scroll). */
  default boolean changesItsTarget() {
    return ActionTable.changesItsTarget(this);
  }

  /**
   * The text it enters as a person types (a fill's value, typed text), or null: into a password
   * field where the project allows, as a password the user gave (host API 2.9.0).
   */
  default String enteredText() {
    return ActionTable.enteredText(this);
  }

  /** An element of an observation: the observation's id and the element's ref in it. */
  record ElementTarget(String observationId, String elementRef) {}

  /** The result of an action that returns nothing but its transition. */
  enum Done {
    DONE
  }

  /** An action the environment performs itself, through its {@link Handler}. */
  sealed interface PageAction<R> extends BrowserAction<R> permits DonePageAction, Tabs {
    /**
     * Performs this action with {@code handler}; {@code target} is the resolved {@link #target()},
     * or null, and {@code destination} the resolved {@link #destination()}, or null.
     */
    R accept(Handler handler, ProviderElement target, ProviderElement destination);
  }

  /**
   * How an environment performs page actions: one method per {@link PageAction}, each given the
   * action and the element its target resolved to (null when it names none), doing what the
   * action's record describes. Called on the runtime's queue for the environment, one at a time.
   * Policy denials throw {@code BROWSER_POLICY_DENIED}; other failures {@code
   * BROWSER_ACTION_FAILED}. A method with a default performs an action added later (drag, type,
   * answerDialog, upload and tabs in host API 2.3.0, pointAt in 2.5.0, clear in 2.10.0): a provider
   * built before refuses it ({@link #unsupported}).
   */
  interface Handler {
    void navigate(Navigate action);

    void click(Click action, ProviderElement target);

    default void drag(Drag action, ProviderElement target, ProviderElement destination) {
      throw unsupported(action);
    }

    /** Keydown, input and keyup per character; never into a password field, however focused. */
    default void type(Type action, ProviderElement target) {
      throw unsupported(action);
    }

    void hover(Hover action, ProviderElement target);

    void fill(Fill action, ProviderElement target);

    void press(Press action, ProviderElement target);

    /** {@code BROWSER_INVALID_ARGUMENT} if a value matches no option's value or label. */
    void select(Select action, ProviderElement target);

    void check(Check action, ProviderElement target);

    void scroll(Scroll action, ProviderElement target);

    void waitFor(Wait action, ProviderElement target);

    /** A move with no history entry is {@code BROWSER_POLICY_DENIED}. */
    void history(History action);

    /** Then lets the aftermath run (a navigation too); none open: {@code BROWSER_POLICY_DENIED}. */
    default void answerDialog(AnswerDialog action) {
      throw unsupported(action);
    }

    default void upload(Upload action, ProviderElement target) {
      throw unsupported(action);
    }

    /** Opening checks the policy first; past the tab limit it is {@code BROWSER_POLICY_DENIED}. */
    default List<PageTab> tabs(Tabs action) {
      throw unsupported(action);
    }

    default void clear(Clear action, ProviderElement target) {
      throw unsupported(action);
    }

    /**
     * First {@code BROWSER_STALE_SCREENSHOT} unless the page is as {@code action.view()} saw it.
     */
    default void pointAt(PointAt action) {
      throw unsupported(action);
    }

    /**
     * {@code BROWSER_CAPABILITY_UNSUPPORTED} for an action this provider does not perform: what the
     * actions added after host API 2.2.0 do in a provider built before them.
     */
    static BrowserException unsupported(BrowserAction<?> action) {
      return new BrowserException(
          ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED,
          "this browser provider does not perform " + action.kind() + " actions");
    }
  }

  /** Opens an absolute http(s) URL without credentials in it, else {@code BROWSER_INVALID_URL}. */
  record Navigate(String url) implements DonePageAction {}

  /**
   * Clicks an element: with the left button once by default, or {@code button} right (a context
   * menu) or middle, or back or forward (a history move, as browser_back and browser_forward),
   * {@code clicks} 2 for a double-click, 3 for a triple-click; at {@code offset} from the top-left
   * corner of its box (CSS pixels) when given, else at its centre (outside the box: {@code
   * BROWSER_INVALID_ARGUMENT}).
   */
  record Click(
      String observationId, String elementRef, Click.Button button, int clicks, Offset offset)
      implements DonePageAction {
    /** A left click, once, at the element's centre. */
    public Click(String observationId, String elementRef) {
      this(observationId, elementRef, Button.LEFT, 1, null);
    }

    /** The most clicks in a row one action may ask for (a triple-click selects a paragraph). */
    public static final int MAX_CLICKS = 3;

    /**
     * Which mouse button. BACK and FORWARD (a mouse's buttons 4 and 5) move through the tab's
     * history as browser_back and browser_forward do, under the same guards, wherever they press.
     */
    public enum Button {
      LEFT,
      RIGHT,
      MIDDLE,
      BACK,
      FORWARD;

      /** The history move a press of this button makes, or null for a button that clicks. */
      public History.Move move() {
        return this == BACK ? History.Move.BACK : this == FORWARD ? History.Move.FORWARD : null;
      }

      public String id() {
        return EnumIds.id(this);
      }

      public static List<String> ids() {
        return EnumIds.all(Button.class);
      }

      public static Button of(String id) {
        return EnumIds.named(Button.class, id, "/button");
      }
    }

    /** A point inside an element's box, from its top-left corner, in CSS pixels. */
    public record Offset(int x, int y) {}

    /** Whether this is a plain left click, once, at the centre. */
    public boolean plain() {
      return button == Button.LEFT && clicks == 1 && offset == null;
    }
  }

  /** Drags an element onto another in steps: HTML drag and drop and sortable lists see it. */
  record Drag(String observationId, String elementRef, String toElementRef)
      implements DonePageAction {}

  /**
   * Types text key by key into an element, or into whatever has focus when it names none: for
   * fields that react to each key (autocomplete, search as you type), where {@link Fill} sets the
   * value at once. A line break presses Enter; no other control character is typed. At most {@link
   * #MAX_CHARS} characters, {@code delayMs} apart. Never into a password field, as {@link Fill}.
   */
  record Type(String observationId, String elementRef, String text, long delayMs)
      implements DonePageAction {
    /** The most characters one action types. */
    public static final int MAX_CHARS = 1_000;

    /** The longest pause between two keys. */
    public static final long MAX_DELAY_MS = 200;

    /** The most time the pauses of one action may add up to. */
    public static final long MAX_PAUSES_MS = 20_000;

    @Override
    public String toString() {
      return "Type[" + observationId + ", " + elementRef + ", " + text.length() + " chars]";
    }
  }

  /** Moves the pointer over an element and leaves it there: hover menus and tooltips open. */
  record Hover(String observationId, String elementRef) implements DonePageAction {}

  /**
   * Empties a text field, a textarea or an editable element as a person selecting its text and
   * deleting it would; refuses an element that holds no text (a password field may be emptied).
   */
  record Clear(String observationId, String elementRef) implements DonePageAction {}

  /**
   * Sets a field's value, replacing what it held; a password field only takes a credential ({@link
   * FillCredential}): {@code BROWSER_PASSWORD_INPUT_FORBIDDEN}.
   */
  record Fill(String observationId, String elementRef, String value) implements DonePageAction {
    @Override
    public String toString() {
      return "Fill[" + observationId + ", " + elementRef + ", " + value.length() + " chars]";
    }
  }

  /**
   * Fills the secret a credential reference stands for into a field: the runtime resolves it,
   * checks the field's origin, asks for approval and hands it to {@link
   * dev.periscope.api.browser.spi.BrowserEnvironment#fillCredential}. The result is how many
   * characters the field then holds.
   */
  record FillCredential(String observationId, String elementRef, String credentialRef)
      implements BrowserAction<FillCredential.Filled> {
    /** What a credential fill did: the field holds {@code chars} characters. */
    public record Filled(int chars) {}
  }

  /**
   * Runs a script the model wrote in the current tab: only where the project enables scripting,
   * never in a tab where a secret was filled, once the host's approval service allowed it (shown
   * the expression and the origin). The result is its value as JSON, bounded and redacted (2.11.0).
   */
  record Evaluate(String expression) implements BrowserAction<Evaluate.Evaluated> {
    /** The longest expression, in characters. */
    public static final int MAX_EXPRESSION_CHARS = 10_000;

    /** The most characters of a result's JSON the model is shown. */
    public static final int MAX_RESULT_CHARS = 20_000;

    /** Its value as JSON ({@code null} for undefined), cut; {@code chars}: the whole length. */
    public record Evaluated(String json, int chars) {
      public boolean truncated() {
        return chars > json.length();
      }
    }
  }

  /**
   * Presses a key or a chord ({@link KeyChord}: {@code Enter}, {@code Control+A}) on the element or
   * whatever has focus; a key that types a character does not go into a password field.
   */
  record Press(String observationId, String elementRef, String key) implements DonePageAction {
    /** The chord {@link #key()} spells; {@code BROWSER_INVALID_ARGUMENT} when it spells none. */
    public KeyChord chord() {
      return KeyChord.parse(key);
    }
  }

  /** Chooses options of a select by value or, failing that, by label. */
  record Select(String observationId, String elementRef, List<String> values)
      implements DonePageAction {
    public Select {
      values = values == null ? null : List.copyOf(values);
    }
  }

  /** Sets a checkbox or a radio button to {@code checked}. */
  record Check(String observationId, String elementRef, boolean checked)
      implements DonePageAction {}

  /** {@code to} is up, down (by {@code pages} viewports), top, bottom, or element (into view). */
  record Scroll(Scroll.To to, double pages, String observationId, String elementRef)
      implements DonePageAction {
    /** Where to scroll. */
    public enum To {
      UP,
      DOWN,
      TOP,
      BOTTOM,
      ELEMENT;

      public String id() {
        return EnumIds.id(this);
      }

      public static List<String> ids() {
        return EnumIds.all(To.class);
      }

      public static To of(String id) {
        return EnumIds.named(To.class, id, "/to");
      }
    }
  }

  /**
   * Waits, within {@code timeoutMs}, until the page loads or goes network-idle; until an element
   * becomes visible or hidden, named by its ref or by its {@code role} and {@code name} (a part of
   * its accessible name, any case) when it has no ref yet; until {@code text} appears in or goes
   * from the page's text or an element's name; until the URL matches the glob {@code url} ({@link
   * UrlGlob}); or for a plain delay of {@code timeoutMs} (at most {@link #MAX_DELAY_MS}).
   */
  record Wait(
      Wait.Until until,
      String observationId,
      String elementRef,
      String text,
      String url,
      String role,
      String name,
      long timeoutMs)
      implements DonePageAction {
    /** The most milliseconds a plain delay may ask for. */
    public static final long MAX_DELAY_MS = 10_000;

    /** The most characters of text a wait may look for. */
    public static final int MAX_TEXT_CHARS = 200;

    /** The roles an element waited for by role may have: ARIA's, as Playwright knows them. */
    public static final List<String> ROLES = AriaRoles.ALL;

    /** A wait for the load state or an observed element (host API 2.7.0's). */
    public Wait(Until until, String observationId, String elementRef, long timeoutMs) {
      this(until, observationId, elementRef, null, null, null, null, timeoutMs);
    }

    /** What to wait for. */
    public enum Until {
      LOAD,
      NETWORK_IDLE,
      ELEMENT_VISIBLE,
      ELEMENT_HIDDEN,
      TEXT_VISIBLE,
      TEXT_HIDDEN,
      URL,
      DELAY;

      public String id() {
        return EnumIds.id(this);
      }

      /** Whether it waits for an element, by its ref or its role and name. */
      public boolean namesElement() {
        return this == ELEMENT_VISIBLE || this == ELEMENT_HIDDEN;
      }

      public static List<String> ids() {
        return EnumIds.all(Until.class);
      }

      public static Until of(String id) {
        return EnumIds.named(Until.class, id, "/until");
      }
    }

    /** Whether it waits for an element it names by role and name rather than by ref. */
    public boolean byRole() {
      return until != null && until.namesElement() && elementRef == null;
    }

    /** The URL glob it waits for, compiled; only for {@link Until#URL}. */
    public UrlGlob urlGlob() {
      return UrlGlob.of(url, "/url");
    }
  }

  /** {@code move} is back, forward or reload; its kind is the move's id. */
  record History(History.Move move) implements DonePageAction {
    /** Which way through the page's history. */
    public enum Move {
      BACK,
      FORWARD,
      RELOAD;

      public String id() {
        return EnumIds.id(this);
      }
    }
  }

  /**
   * Lists the tabs ({@code list}), opens an http(s) URL in a new tab that becomes the current one
   * ({@code open}, with {@code url}), makes a tab the current one ({@code select}) or closes one
   * ({@code close}, with {@code tab}). The result is the tabs after.
   */
  record Tabs(Tabs.Move move, Integer tab, String url) implements PageAction<List<PageTab>> {
    /** The largest tab id an action may name. */
    public static final int MAX_TAB = 1_000_000;

    /** What to do with the tabs. */
    public enum Move {
      LIST,
      OPEN,
      SELECT,
      CLOSE;

      public String id() {
        return EnumIds.id(this);
      }

      public static List<String> ids() {
        return EnumIds.all(Move.class);
      }

      public static Move of(String id) {
        return EnumIds.named(Move.class, id, "action");
      }
    }

    public List<PageTab> accept(
        Handler handler, ProviderElement target, ProviderElement destination) {
      return handler.tabs(this);
    }
  }

  /**
   * Answers the dialog the page holds open ({@link PageDialog}): accepts it, with {@code
   * promptText} for a prompt (at most {@link #MAX_PROMPT_CHARS} characters; the prompt's own text
   * when null), or dismisses it.
   */
  record AnswerDialog(boolean accept, String promptText) implements DonePageAction {
    /** The longest text a prompt is answered with. */
    public static final int MAX_PROMPT_CHARS = 10_000;

    @Override
    public String toString() {
      String prompt = promptText == null ? "" : ", " + promptText.length() + " chars";
      return "AnswerDialog[" + accept + prompt + "]";
    }
  }

  /**
   * Uploads files (read from the host's attachment store by the tool, never from a path) through a
   * file input or the file chooser a control opens: at most {@link #MAX_FILES}.
   */
  record Upload(String observationId, String elementRef, List<UploadFile> files)
      implements DonePageAction {
    /** The most files one upload carries. */
    public static final int MAX_FILES = 20;

    /** One file: its name, its media type and its bytes, and the attachment it came from. */
    public record UploadFile(String attachmentRef, String name, String mimeType, byte[] content) {
      @Override
      public String toString() {
        return "UploadFile[" + attachmentRef + ", " + name + ", " + content.length + " bytes]";
      }
    }

    public Upload {
      files = files == null ? null : List.copyOf(files);
    }
  }

  /**
   * A gesture at CSS-pixel coordinates of the latest viewport screenshot, for a page with no
   * element to name (a canvas, a map): a click (double, right), a pointer move, a drag to {@code
   * (toX, toY)}, a wheel scroll by {@code (deltaX, deltaY)} at the point, or a click and {@code
   * text} typed (never into a password field). The runtime gives it the screenshot's view ({@link
   * #withView}); the provider refuses it ({@code BROWSER_STALE_SCREENSHOT}) if the page has moved.
   */
  record PointAt(
      Gesture gesture,
      double x,
      double y,
      double toX,
      double toY,
      double deltaX,
      double deltaY,
      String text,
      ScreenshotView view)
      implements DonePageAction {
    /** What the pointer does at the point. */
    public enum Gesture {
      CLICK,
      DOUBLE_CLICK,
      RIGHT_CLICK,
      MOVE,
      DRAG,
      SCROLL,
      TYPE
    }

    /** The gestures' ids, as tools spell them. */
    public static List<String> gestures() {
      return EnumIds.all(Gesture.class);
    }

    /** The gesture whose id is {@code id}, else {@code BROWSER_INVALID_ARGUMENT}. */
    public static Gesture gesture(String id) {
      return EnumIds.named(Gesture.class, id, "/action");
    }

    /** The farthest one scroll moves the wheel, in CSS pixels each way. */
    public static final double MAX_DELTA = 100_000;

    /** This gesture at the coordinates of {@code view}. */
    public PointAt withView(ScreenshotView view) {
      return new PointAt(gesture, x, y, toX, toY, deltaX, deltaY, text, view);
    }

    /** {@code BROWSER_INVALID_ARGUMENT} when a point lies outside the screenshot's viewport. */
    public void requireInside(ScreenshotView view) {
      ActionChecks.requireInside(this, view);
    }

    @Override
    public String toString() {
      return "PointAt[" + gesture + " " + x + "," + y + "]";
    }
  }

  /** Kept so a compiled reference still links: descriptions are built by {@code ActionLog}. */
  final class Fields {
    private Fields() {}
  }
}
