package dev.periscope.api.browser;

import dev.periscope.api.browser.spi.ProviderElement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An action on a page, as data: each action is one record with typed fields, its own validation,
 * its own redacted description for the transition log, the timeout that bounds it, and its own
 * result type {@code R}.
 *
 * <p>Element-addressed actions name the latest observation and one of its refs ({@link #target()});
 * the optional ones ({@link Press}, {@link Scroll}, {@link Wait}) act on the page when they name no
 * element. The runtime validates an action, resolves its target against the newest observation, and
 * hands a {@link PageAction} to the environment's {@link Handler}, which has one method per page
 * action: a provider that does not handle a new action does not compile. {@link FillCredential} is
 * the runtime's own: it resolves the secret, checks the field's origins and asks for approval
 * before the provider sees the secret.
 *
 * <p>Actions are immutable and thread-safe.
 */
public sealed interface BrowserAction<R> {
  /**
   * Common keys {@link Press} accepts; it takes any {@link KeyChord} (host API 2.7.0 and before:
   * only these).
   */
  List<String> KEYS = KeyNames.COMMON;

  /** The most milliseconds a {@link Wait} may ask for. */
  long MAX_WAIT_MS = 120_000;

  /** The action's kind as transitions record it. */
  String kind();

  /** The element the action names, or null when it names none. */
  ElementTarget target();

  /**
   * The second element an action names, of the same observation: where a {@link Drag} drops. Null
   * for every other action.
   */
  default ElementTarget destination() {
    return null;
  }

  /**
   * Checks the action's own fields, before anything runs: {@code BROWSER_INVALID_ARGUMENT} naming
   * the field (as a JSON pointer into the tool's arguments) and its bound.
   */
  void validate();

  /**
   * Checks the element the target resolved to, before the action runs; the default accepts any. A
   * {@link Fill} refuses a password field ({@code BROWSER_PASSWORD_INPUT_FORBIDDEN}).
   */
  default void admit(ProviderElement target) {}

  /**
   * How the transition log records the action: its kind and fields, never a typed value or a
   * secret.
   */
  Map<String, Object> describe();

  /**
   * How long the provider may take for the action, by the environment's own timeouts: a navigation
   * its navigation timeout, anything that may start a navigation (a click, a key, a choice) the
   * action timeout and then the navigation timeout.
   */
  default long timeoutMs(long actionMs, long navigationMs) {
    return actionMs + navigationMs;
  }

  /** What the action is called in a failure that ran out of time. */
  default String step() {
    return "the " + kind();
  }

  /**
   * Whether the same action can succeed on a fresh browser, after the one it was meant for died:
   * true unless it names a ref of the lost page or moves through its history.
   */
  default boolean repeatable() {
    return target() == null;
  }

  /**
   * Whether the action, naming no element, acts where the page's focus or pointer is (a key, typed
   * text, a point of a screenshot), so the page's guards must admit it as they admit a target (a
   * challenge on the page refuses it). False by default (host API 2.9.0).
   */
  default boolean actsOnThePage() {
    return false;
  }

  /**
   * Whether the action changes what its target shows, so a challenge on the page guards it; waiting
   * and scrolling change nothing and are not guarded. True by default (host API 2.9.0).
   */
  default boolean changesItsTarget() {
    return true;
  }

  /**
   * The text the action enters into its target as a person types it (a fill's value, typed text),
   * or null: where the target is a password field and the project allows it, the runtime puts it in
   * as a password the user gave (host API 2.9.0).
   */
  default String enteredText() {
    return null;
  }

  /** An element of an observation: the observation's id and the element's ref in it. */
  record ElementTarget(String observationId, String elementRef) {}

  /** The result of an action that returns nothing but its transition. */
  enum Done {
    DONE
  }

  /** An action the environment performs itself, through its {@link Handler}. */
  sealed interface PageAction<R> extends BrowserAction<R> {
    /**
     * Performs this action with {@code handler}; {@code target} is the resolved {@link #target()},
     * or null, and {@code destination} the resolved {@link #destination()}, or null.
     */
    R accept(Handler handler, ProviderElement target, ProviderElement destination);
  }

  /**
   * How an environment performs page actions: one method per {@link PageAction}, each given the
   * action and the element its target resolved to (null when it names none). Called on the
   * runtime's queue for the environment, one at a time. Policy denials throw {@code
   * BROWSER_POLICY_DENIED}; other failures {@code BROWSER_ACTION_FAILED}.
   */
  interface Handler {
    void navigate(Navigate action);

    /**
     * Clicks the element with the action's button and click count (two is a double-click), at its
     * offset inside the element's box or else at its centre; an offset outside the box is {@code
     * BROWSER_INVALID_ARGUMENT}.
     */
    void click(Click action, ProviderElement target);

    /**
     * Presses the pointer on {@code target}, moves it to {@code destination} in steps, as a person
     * drags, and releases it there: HTML drag and drop and pointer-driven sortable lists both see a
     * drag. Since host API 2.3.0; a provider built before refuses it ({@link #unsupported}).
     */
    default void drag(Drag action, ProviderElement target, ProviderElement destination) {
      throw unsupported(action);
    }

    /**
     * Types text key by key (keydown, input and keyup for each character) into the element, or into
     * whatever has focus when {@code target} is null; refuses, with {@code
     * BROWSER_PASSWORD_INPUT_FORBIDDEN}, to type into a password field, whichever way it got focus.
     * Since host API 2.3.0; a provider built before refuses it ({@link #unsupported}).
     */
    default void type(Type action, ProviderElement target) {
      throw unsupported(action);
    }

    /**
     * Moves the pointer over the element, as a person would before clicking, and leaves it there.
     */
    void hover(Hover action, ProviderElement target);

    /** Types a value into a field, replacing what it held. */
    void fill(Fill action, ProviderElement target);

    /** Presses one key on the element, or on whatever has focus when {@code target} is null. */
    void press(Press action, ProviderElement target);

    /**
     * Chooses options by value or, failing that, by label; {@code BROWSER_INVALID_ARGUMENT} if one
     * matches none.
     */
    void select(Select action, ProviderElement target);

    void check(Check action, ProviderElement target);

    /** Scrolls the page up or down by viewports, to its top or bottom, or the element into view. */
    void scroll(Scroll action, ProviderElement target);

    /**
     * Waits for the page's load or network idle, or for the element to become visible or hidden.
     */
    void waitFor(Wait action, ProviderElement target);

    /**
     * Goes back, forward or reloads; a move with no history entry is {@code BROWSER_POLICY_DENIED}.
     */
    void history(History action);

    /**
     * Accepts (with the prompt text, for a prompt) or dismisses the dialog an action left open,
     * then lets what the page does next run as an action's aftermath would, a navigation a {@code
     * beforeunload} let go included. With no dialog open: {@code BROWSER_POLICY_DENIED}. Since host
     * API 2.3.0; a provider built before, whose dialogs never wait, refuses it ({@link
     * #unsupported}).
     */
    default void answerDialog(AnswerDialog action) {
      throw unsupported(action);
    }

    /**
     * Puts the action's files into the file input {@code target}, or into the file chooser a click
     * on {@code target} opens (a styled button over a hidden input). Since host API 2.3.0; a
     * provider built before refuses it ({@link #unsupported}).
     */
    default void upload(Upload action, ProviderElement target) {
      throw unsupported(action);
    }

    /**
     * Lists the environment's tabs, or opens one at a URL (policy first; past the tab limit {@code
     * BROWSER_POLICY_DENIED}), switches to one or closes one, and answers the tabs after. Since
     * host API 2.3.0; a provider built before, with one page only, refuses it ({@link
     * #unsupported}).
     */
    default List<PageTab> tabs(Tabs action) {
      throw unsupported(action);
    }

    /**
     * Empties a field ({@link Clear}). Since host API 2.10.0; a provider built before refuses it
     * ({@link #unsupported}).
     */
    default void clear(Clear action, ProviderElement target) {
      throw unsupported(action);
    }

    /**
     * Performs a gesture at coordinates of the latest screenshot ({@link PointAt}), first checking
     * that the page is still as {@code action.view()} saw it ({@code BROWSER_STALE_SCREENSHOT}
     * otherwise). Since host API 2.5.0; a provider built before refuses it ({@link #unsupported}).
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

  record Navigate(String url) implements PageAction<Done> {
    public String kind() {
      return "navigate";
    }

    public ElementTarget target() {
      return null;
    }

    /**
     * Only absolute http(s) URLs without embedded credentials are navigated to: {@code
     * BROWSER_INVALID_URL}.
     */
    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return Fields.of(kind()).put("url", url).map();
    }

    @Override
    public long timeoutMs(long actionMs, long navigationMs) {
      return navigationMs;
    }

    @Override
    public String step() {
      return "opening the page";
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.navigate(this);
      return Done.DONE;
    }
  }

  /**
   * Clicks an element: with the left button once by default, or {@code button} right (a context
   * menu) or middle, or back or forward (a history move, as browser_back and browser_forward),
   * {@code clicks} 2 for a double-click, 3 for a triple-click; at {@code offset} from the top-left
   * corner of its box (CSS pixels) when given, else at its centre.
   */
  record Click(
      String observationId, String elementRef, Click.Button button, int clicks, Offset offset)
      implements PageAction<Done> {
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
        return switch (this) {
          case BACK -> History.Move.BACK;
          case FORWARD -> History.Move.FORWARD;
          default -> null;
        };
      }

      /** As tools and transitions spell it. */
      public String id() {
        return EnumIds.id(this);
      }

      /** Every id, in order: what a tool's schema offers. */
      public static List<String> ids() {
        return java.util.Arrays.stream(values()).map(Button::id).toList();
      }

      /** The one {@code id} names, else {@code BROWSER_INVALID_ARGUMENT} naming the field. */
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

    public String kind() {
      return "click";
    }

    public ElementTarget target() {
      return new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.click(this, target);
      return Done.DONE;
    }
  }

  /**
   * Drags one element of an observation onto another of the same observation: presses on the first,
   * moves to the second, releases there.
   */
  record Drag(String observationId, String elementRef, String toElementRef)
      implements PageAction<Done> {
    public String kind() {
      return "drag";
    }

    public ElementTarget target() {
      return new ElementTarget(observationId, elementRef);
    }

    @Override
    public ElementTarget destination() {
      return new ElementTarget(observationId, toElementRef);
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return Fields.of(kind())
          .put("element_ref", elementRef)
          .put("to_element_ref", toElementRef)
          .map();
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.drag(this, target, destination);
      return Done.DONE;
    }
  }

  /**
   * Types text key by key into an element, or into whatever has focus when it names none: for
   * fields that react to each key (autocomplete, search as you type), where {@link Fill} sets the
   * value at once. A line break presses Enter; no other control character is typed. At most {@link
   * #MAX_CHARS} characters, {@code delayMs} (at most {@link #MAX_DELAY_MS}) apart.
   */
  record Type(String observationId, String elementRef, String text, long delayMs)
      implements PageAction<Done> {
    /** The most characters one action types. */
    public static final int MAX_CHARS = 1_000;

    /** The longest pause between two keys. */
    public static final long MAX_DELAY_MS = 200;

    /** The most time the pauses of one action may add up to. */
    public static final long MAX_PAUSES_MS = 20_000;

    public String kind() {
      return "type";
    }

    @Override
    public boolean actsOnThePage() {
      return true;
    }

    @Override
    public String enteredText() {
      return text;
    }

    public ElementTarget target() {
      return elementRef == null ? null : new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    /** A password field takes only a credential, through {@link FillCredential}. */
    @Override
    public void admit(ProviderElement target) {
      ActionChecks.refusePassword(target, elementRef);
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }

    /** The keys' own time on top: the action timeout, the pauses, then a navigation's. */
    @Override
    public long timeoutMs(long actionMs, long navigationMs) {
      return actionMs + text.length() * delayMs + navigationMs;
    }

    @Override
    public String step() {
      return "typing";
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.type(this, target);
      return Done.DONE;
    }

    @Override
    public String toString() {
      return "Type[" + observationId + ", " + elementRef + ", " + text.length() + " chars]";
    }
  }

  /** Moves the pointer over an element: menus and tooltips that open on hover open. */
  record Hover(String observationId, String elementRef) implements PageAction<Done> {
    public String kind() {
      return "hover";
    }

    public ElementTarget target() {
      return new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.requireRef(elementRef);
    }

    public Map<String, Object> describe() {
      return Fields.of(kind()).put("element_ref", elementRef).map();
    }

    @Override
    public long timeoutMs(long actionMs, long navigationMs) {
      return actionMs;
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.hover(this, target);
      return Done.DONE;
    }
  }

  /**
   * Empties a field (a text field, a textarea, an editable element) named by its ref, as a person
   * selecting its text and deleting it would: the page's input handlers run. A password field may
   * be emptied: nothing enters it. Since host API 2.10.0.
   */
  record Clear(String observationId, String elementRef) implements PageAction<Done> {
    public String kind() {
      return "clear";
    }

    public ElementTarget target() {
      return new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.requireRef(elementRef);
    }

    public Map<String, Object> describe() {
      return Fields.of(kind()).put("element_ref", elementRef).map();
    }

    @Override
    public String step() {
      return "clearing the field";
    }

    /** Only an element that holds text. */
    @Override
    public void admit(ProviderElement target) {
      ActionChecks.admitClear(target, elementRef);
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.clear(this, target);
      return Done.DONE;
    }
  }

  record Fill(String observationId, String elementRef, String value) implements PageAction<Done> {
    public String kind() {
      return "fill";
    }

    @Override
    public String enteredText() {
      return value;
    }

    public ElementTarget target() {
      return new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    /** A password field takes only a credential, through {@link FillCredential}. */
    @Override
    public void admit(ProviderElement target) {
      ActionChecks.refusePassword(target, elementRef);
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.fill(this, target);
      return Done.DONE;
    }

    @Override
    public String toString() {
      return "Fill[" + observationId + ", " + elementRef + ", " + value.length() + " chars]";
    }
  }

  /**
   * Fills the secret a credential reference stands for into a field. The action holds only the
   * reference: the runtime resolves the secret, checks the field's origin, asks for approval, and
   * hands the secret to the provider's {@link
   * dev.periscope.api.browser.spi.BrowserEnvironment#fillCredential}. Its result is how many
   * characters the field then holds.
   */
  record FillCredential(String observationId, String elementRef, String credentialRef)
      implements BrowserAction<FillCredential.Filled> {
    /** What a credential fill did: the field holds {@code chars} characters. */
    public record Filled(int chars) {}

    public String kind() {
      return "fill_credential";
    }

    public ElementTarget target() {
      return new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }
  }

  /**
   * Runs a script the model wrote in the current tab, the runtime's own action: only where the
   * project enables scripting, never in a tab where a secret was filled, and only once the host's
   * approval service has allowed it, shown the expression and the page's origin. The result is the
   * script's value as JSON, bounded and redacted. Transitions record the expression's length and
   * hash, never its text. Since host API 2.11.0.
   */
  record Evaluate(String expression) implements BrowserAction<Evaluate.Evaluated> {
    /** The longest expression, in characters. */
    public static final int MAX_EXPRESSION_CHARS = 10_000;

    /** The most characters of a result's JSON the model is shown. */
    public static final int MAX_RESULT_CHARS = 20_000;

    /**
     * What a script gave: its value as JSON ({@code null} for undefined), cut to a bound; {@code
     * chars} is the whole JSON's length, so {@code chars > json.length()} when it was cut.
     */
    public record Evaluated(String json, int chars) {
      public boolean truncated() {
        return chars > json.length();
      }
    }

    public String kind() {
      return "evaluate";
    }

    public ElementTarget target() {
      return null;
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    /** A script acts on the page as a key does: a challenge on the page refuses it. */
    @Override
    public boolean actsOnThePage() {
      return true;
    }

    /** Approved for the page it was asked for: never run again on a fresh browser. */
    @Override
    public boolean repeatable() {
      return false;
    }

    @Override
    public String step() {
      return "the script";
    }

    /**
     * A script, and the promise it returns, has the action timeout: a navigation it starts goes on.
     */
    @Override
    public long timeoutMs(long actionMs, long navigationMs) {
      return actionMs;
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }
  }

  /** Presses a key or a chord ({@link KeyChord}: {@code Enter}, {@code Control+A}, {@code F2}). */
  record Press(String observationId, String elementRef, String key) implements PageAction<Done> {
    public String kind() {
      return "press";
    }

    @Override
    public boolean actsOnThePage() {
      return true;
    }

    /** The chord {@link #key()} spells; {@code BROWSER_INVALID_ARGUMENT} when it spells none. */
    public KeyChord chord() {
      return KeyChord.parse(key);
    }

    public ElementTarget target() {
      return elementRef == null ? null : new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      chord();
    }

    /**
     * A key that types a character does not go into a password field: a password is never typed key
     * by key ({@code BROWSER_PASSWORD_INPUT_FORBIDDEN}); Enter, Tab, Backspace and chords do.
     */
    @Override
    public void admit(ProviderElement target) {
      if (chord().types()) {
        ActionChecks.refusePassword(target, elementRef);
      }
    }

    public Map<String, Object> describe() {
      return Fields.of(kind()).putIfPresent("element_ref", elementRef).put("key", key).map();
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.press(this, target);
      return Done.DONE;
    }
  }

  /** Chooses options of a select by value or, failing that, by label. */
  record Select(String observationId, String elementRef, List<String> values)
      implements PageAction<Done> {
    public Select {
      values = values == null ? null : List.copyOf(values);
    }

    public String kind() {
      return "select";
    }

    public ElementTarget target() {
      return new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return Fields.of(kind()).put("element_ref", elementRef).put("values", values).map();
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.select(this, target);
      return Done.DONE;
    }
  }

  record Check(String observationId, String elementRef, boolean checked)
      implements PageAction<Done> {
    public String kind() {
      return "check";
    }

    public ElementTarget target() {
      return new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.requireRef(elementRef);
    }

    public Map<String, Object> describe() {
      return Fields.of(kind()).put("element_ref", elementRef).put("checked", checked).map();
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.check(this, target);
      return Done.DONE;
    }
  }

  /** {@code to} is up, down (by {@code pages} viewports), top, bottom, or element (into view). */
  record Scroll(Scroll.To to, double pages, String observationId, String elementRef)
      implements PageAction<Done> {
    /** Where to scroll. */
    public enum To {
      UP,
      DOWN,
      TOP,
      BOTTOM,
      ELEMENT;

      /** As tools and transitions spell it. */
      public String id() {
        return EnumIds.id(this);
      }

      /** Every id, in order: what a tool's schema offers. */
      public static List<String> ids() {
        return java.util.Arrays.stream(values()).map(To::id).toList();
      }

      /** The one {@code id} names, else {@code BROWSER_INVALID_ARGUMENT} naming the field. */
      public static To of(String id) {
        return EnumIds.named(To.class, id, "/to");
      }
    }

    public String kind() {
      return "scroll";
    }

    @Override
    public boolean changesItsTarget() {
      return false;
    }

    public ElementTarget target() {
      return elementRef == null ? null : new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }

    @Override
    public long timeoutMs(long actionMs, long navigationMs) {
      return actionMs;
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.scroll(this, target);
      return Done.DONE;
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
      implements PageAction<Done> {
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

      /** As tools and transitions spell it. */
      public String id() {
        return EnumIds.id(this);
      }

      /** Whether it waits for an element, by its ref or its role and name. */
      public boolean namesElement() {
        return this == ELEMENT_VISIBLE || this == ELEMENT_HIDDEN;
      }

      /** Every id, in order: what a tool's schema offers. */
      public static List<String> ids() {
        return java.util.Arrays.stream(values()).map(Until::id).toList();
      }

      /** The one {@code id} names, else {@code BROWSER_INVALID_ARGUMENT} naming the field. */
      public static Until of(String id) {
        return EnumIds.named(Until.class, id, "/until");
      }
    }

    public String kind() {
      return "wait";
    }

    @Override
    public boolean changesItsTarget() {
      return false;
    }

    public ElementTarget target() {
      return elementRef == null ? null : new ElementTarget(observationId, elementRef);
    }

    /** Whether it waits for an element it names by role and name rather than by ref. */
    public boolean byRole() {
      return until != null && until.namesElement() && elementRef == null;
    }

    /** The URL glob it waits for, compiled; only for {@link Until#URL}. */
    public UrlGlob urlGlob() {
      return UrlGlob.of(url, "/url");
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    /** The description; text and name are the model's own words, their length only. */
    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }

    /** Its own timeout, never more than a navigation's. */
    @Override
    public long timeoutMs(long actionMs, long navigationMs) {
      return Math.min(timeoutMs, navigationMs);
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.waitFor(this, target);
      return Done.DONE;
    }
  }

  /** {@code move} is back, forward or reload. */
  record History(History.Move move) implements PageAction<Done> {
    /** Which way through the page's history. */
    public enum Move {
      BACK,
      FORWARD,
      RELOAD;

      /** As tools and transitions spell it. */
      public String id() {
        return EnumIds.id(this);
      }
    }

    public String kind() {
      return move.id();
    }

    public ElementTarget target() {
      return null;
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return Fields.of(kind()).map();
    }

    @Override
    public long timeoutMs(long actionMs, long navigationMs) {
      return navigationMs;
    }

    /** It moves through the lost page's history: it cannot succeed on another browser. */
    @Override
    public boolean repeatable() {
      return false;
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.history(this);
      return Done.DONE;
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

      /** As tools and transitions spell it. */
      public String id() {
        return EnumIds.id(this);
      }

      public static List<String> ids() {
        return java.util.Arrays.stream(values()).map(Move::id).toList();
      }

      public static Move of(String id) {
        return EnumIds.named(Move.class, id, "action");
      }
    }

    public String kind() {
      return "tab_" + move.id();
    }

    public ElementTarget target() {
      return null;
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }

    @Override
    public long timeoutMs(long actionMs, long navigationMs) {
      return move == Move.OPEN ? navigationMs : actionMs;
    }

    @Override
    public String step() {
      return move == Move.OPEN ? "opening the tab" : "the tabs";
    }

    /** Only listing and opening can succeed on a fresh browser: a tab number is the lost one's. */
    @Override
    public boolean repeatable() {
      return move == Move.LIST || move == Move.OPEN;
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
  record AnswerDialog(boolean accept, String promptText) implements PageAction<Done> {
    /** The longest text a prompt is answered with. */
    public static final int MAX_PROMPT_CHARS = 10_000;

    public String kind() {
      return "dialog";
    }

    public ElementTarget target() {
      return null;
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }

    /** It answers the lost page's dialog: it cannot succeed on another browser. */
    @Override
    public boolean repeatable() {
      return false;
    }

    @Override
    public String step() {
      return "answering the dialog";
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.answerDialog(this);
      return Done.DONE;
    }

    @Override
    public String toString() {
      return "AnswerDialog["
          + accept
          + (promptText == null ? "" : ", " + promptText.length() + " chars")
          + "]";
    }
  }

  /**
   * Uploads files (their names, types and bytes, read from the host's attachment store by the tool,
   * never from a path) through a file input or the file chooser a control opens. At most {@link
   * #MAX_FILES} files.
   */
  record Upload(String observationId, String elementRef, List<UploadFile> files)
      implements PageAction<Done> {
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

    public String kind() {
      return "upload";
    }

    public ElementTarget target() {
      return new ElementTarget(observationId, elementRef);
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.upload(this, target);
      return Done.DONE;
    }
  }

  /**
   * A gesture at CSS-pixel coordinates of the latest viewport screenshot ({@link ScreenshotView}),
   * for a page whose structure gives no element to name (a canvas, a map): a click (a double or
   * right click), a move of the pointer, a drag from {@code (x, y)} to {@code (toX, toY)}, a scroll
   * of the wheel by {@code (deltaX, deltaY)} with the pointer at {@code (x, y)}, or a click there
   * and then {@code text} typed key by key (never into a password field). The runtime gives it the
   * view of the latest screenshot ({@link #withView}); the provider refuses it with {@code
   * BROWSER_STALE_SCREENSHOT} when the page has scrolled, navigated or been resized since. Since
   * host API 2.5.0; a provider built before refuses it ({@link Handler#unsupported}).
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
      implements PageAction<Done> {
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
      return java.util.Arrays.stream(Gesture.values()).map(EnumIds::id).toList();
    }

    /** The gesture whose id is {@code id}, else {@code BROWSER_INVALID_ARGUMENT}. */
    public static Gesture gesture(String id) {
      return EnumIds.named(Gesture.class, id, "/action");
    }

    /** The farthest one scroll moves the wheel, in CSS pixels each way. */
    public static final double MAX_DELTA = 100_000;

    public String kind() {
      return "point";
    }

    @Override
    public boolean actsOnThePage() {
      return true;
    }

    public ElementTarget target() {
      return null;
    }

    /** This gesture at the coordinates of {@code view}. */
    public PointAt withView(ScreenshotView view) {
      return new PointAt(gesture, x, y, toX, toY, deltaX, deltaY, text, view);
    }

    /**
     * Typed text's own time on top (10 ms a character): the action timeout, then a navigation's.
     */
    @Override
    public long timeoutMs(long actionMs, long navigationMs) {
      return actionMs + (text == null ? 0 : text.length() * 10L) + navigationMs;
    }

    public void validate() {
      ActionChecks.validate(this);
    }

    /**
     * {@code BROWSER_INVALID_ARGUMENT} when a point lies outside the viewport the screenshot shows.
     */
    public void requireInside(ScreenshotView view) {
      ActionChecks.requireInside(this, view);
    }

    public Map<String, Object> describe() {
      return ActionLog.describe(this);
    }

    @Override
    public String step() {
      return "the " + EnumIds.id(gesture) + " at (" + x + ", " + y + ")";
    }

    public Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
      handler.pointAt(this);
      return Done.DONE;
    }

    /** A gesture at a point is never repeated on its own: the page under it may have changed. */
    @Override
    public boolean repeatable() {
      return false;
    }

    @Override
    public String toString() {
      return "PointAt[" + gesture + " " + x + "," + y + "]";
    }
  }

  /** The fields of an action's description, in order ({@link ActionLog} builds the longer ones). */
  final class Fields {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private Fields() {}

    static Fields of(String kind) {
      Fields f = new Fields();
      f.fields.put("kind", kind);
      return f;
    }

    Fields put(String key, Object value) {
      fields.put(key, value);
      return this;
    }

    Fields putIfPresent(String key, Object value) {
      return value == null ? this : put(key, value);
    }

    Map<String, Object> map() {
      return fields;
    }
  }
}
