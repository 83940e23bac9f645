package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserAction.Done;
import dev.periscope.api.tool.ToolHints;
import dev.periscope.browser.runtime.CredentialChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The tools that perform one browser action each, as one table: a row names its tool, says what it
 * does, lists its params (its input schema is built from them) and builds its action from the
 * call's arguments. Adding an action tool is adding a row.
 */
final class ActionTools {
  /**
   * One action tool. {@code heading}, when set, is the first line of its answer, from the arguments
   * and the action's result; {@code observes} says that the call chooses how the page after it is
   * observed.
   */
  record Row<R>(
      String name,
      String description,
      ToolHints hints,
      List<Param> params,
      Function<Arguments, BrowserAction<R>> action,
      BiFunction<Arguments, R, String> heading,
      boolean observes) {
    Row<R> withHeading(BiFunction<Arguments, R, String> h) {
      return new Row<>(name, description, hints, params, action, h, observes);
    }

    Row<R> observing() {
      return new Row<>(name, description, hints, params, action, heading, true);
    }
  }

  static final Param OBSERVATION_ID =
      Param.string("observation_id", "The id of the latest observation.");
  static final Param ELEMENT_REF =
      Param.pattern(
          "element_ref",
          "^[eg][0-9]+$",
          "A ref from that observation, such as e3; a record's ref (g2) stands for its title link or"
              + " its only element.");
  static final List<Param> TARGET = List.of(OBSERVATION_ID.asRequired(), ELEMENT_REF.asRequired());
  static final List<Param> OPTIONAL_TARGET =
      List.of(
          OBSERVATION_ID.described("The id of the latest observation, with element_ref."),
          ELEMENT_REF.described("A ref from that observation."));

  /** How an observation is asked for: its mode and page sizes, up to the configured caps. */
  static List<Param> observation(ToolSettings settings) {
    return List.of(
        Param.oneOf(
            "mode",
            List.of("summary", "interactive", "document"),
            "summary: controls, navigation and"
                + " record titles with a text lead (default); interactive: every element, no text; document: text with"
                + " controls and navigation."),
        Param.integer(
            "max_text_chars",
            1,
            settings.observeMaxTextChars(),
            "Most page text on one page of the" + " observation."),
        Param.integer(
            "max_elements",
            1,
            settings.observeMaxElements(),
            "Most elements on one page of the" + " observation."));
  }

  /** The largest coordinate a gesture at a point may name (the viewport bounds it further). */
  static final int MAX_COORDINATE = 100_000;

  /** The largest offset inside an element's box a click may name. */
  static final int MAX_OFFSET = 100_000;

  private ActionTools() {}

  /**
   * The click's point inside its element's box: both offsets or neither, else {@code
   * BROWSER_INVALID_ARGUMENT}.
   */
  private static BrowserAction.Click.Offset offset(Arguments a) {
    var x = a.integer("offset_x", 0, MAX_OFFSET);
    var y = a.integer("offset_y", 0, MAX_OFFSET);
    if (x.isPresent() != y.isPresent()) {
      throw new dev.periscope.api.browser.BrowserException(
          dev.periscope.api.browser.ErrorCode.BROWSER_INVALID_ARGUMENT,
          (x.isPresent() ? "/offset_y" : "/offset_x")
              + ": offset_x and offset_y go together, a point inside the element's box");
    }
    return x.map(v -> new BrowserAction.Click.Offset(v, y.get())).orElse(null);
  }

  static <R> Row<R> row(
      String name,
      String description,
      ToolHints hints,
      List<Param> params,
      Function<Arguments, BrowserAction<R>> action) {
    return new Row<>(name, description, hints, params, action, null, false);
  }

  private static List<Param> plus(List<Param> first, Param... more) {
    List<Param> all = new ArrayList<>(first);
    all.addAll(List.of(more));
    return all;
  }

  private static List<Param> plus(Param first, List<Param> more) {
    return plus(List.of(first), more);
  }

  private static List<Param> plus(List<Param> first, List<Param> more) {
    List<Param> all = new ArrayList<>(first);
    all.addAll(more);
    return all;
  }

  /**
   * The page-action tools, in the order they are offered. {@code typedPasswords}: the project lets
   * a password the user gave go into a password field by browser_fill and browser_type ({@code
   * credentials.modelTypedPasswords: allow}), and their descriptions say so.
   */
  /** browser_open: first of the tools offered, before the observation's own. */
  static Row<Done> open(ToolSettings settings) {
    return row(
            "browser_open",
            "Open an http(s) URL in this agent's browser page and return the observation of the loaded"
                + " page.",
            new ToolHints(false, false, false, true),
            plus(
                Param.string("url", "Absolute http or https URL.").asRequired(),
                observation(settings)),
            a -> new BrowserAction.Navigate(a.string("url")))
        .observing();
  }

  /** The tools that act on the page, offered after the observation's own, in that order. */
  static List<Row<?>> rows(ToolSettings settings, boolean typedPasswords) {
    String passwords =
        typedPasswords
            ? " A password field takes only a password the user gave you in their instruction"
                + " (it is kept secret from then on); for any other use browser_fill_credential."
            : " Never for passwords: use browser_fill_credential.";
    ToolHints acts = new ToolHints(false, true, false, true);
    ToolHints setsState = new ToolHints(false, true, true, true);
    return List.of(
        row(
            "browser_click",
            "Click an element named by its ref in the latest observation, then observe the result."
                + " A left click at its centre unless told otherwise: button right opens a context"
                + " menu, click_count 2 double-clicks, offset_x and offset_y click at that point of"
                + " its box; back and forward (a mouse's buttons 4 and 5) go back or forward as"
                + " browser_back and browser_forward do.",
            acts,
            plus(
                TARGET,
                Param.oneOf("button", BrowserAction.Click.Button.ids(), "Default left."),
                Param.integer(
                    "click_count",
                    1,
                    BrowserAction.Click.MAX_CLICKS,
                    "Clicks in a row: 2 double-clicks (default 1)."),
                Param.integer(
                    "offset_x",
                    0,
                    MAX_OFFSET,
                    "CSS pixels from the left edge of the element's box, with offset_y."),
                Param.integer(
                    "offset_y",
                    0,
                    MAX_OFFSET,
                    "CSS pixels from the top edge of the element's box, with offset_x.")),
            a ->
                new BrowserAction.Click(
                    a.string("observation_id"),
                    a.string("element_ref"),
                    BrowserAction.Click.Button.of(
                        java.util.Objects.requireNonNullElse(a.optionalString("button"), "left")),
                    a.integer("click_count", 1, BrowserAction.Click.MAX_CLICKS).orElse(1),
                    offset(a))),
        row(
            "browser_hover",
            "Move the pointer over an element named by its ref, opening a menu or tooltip that shows"
                + " on hover, then observe the result.",
            new ToolHints(false, false, true, true),
            TARGET,
            a -> new BrowserAction.Hover(a.string("observation_id"), a.string("element_ref"))),
        row(
            "browser_point",
            "Act at a point of the latest screenshot, for a page whose elements have no refs (a"
                + " canvas, a map): click, double-click, right-click, move, drag (to to_x, to_y),"
                + " scroll (by delta_x, delta_y) or type (click, then type text). x and y are CSS"
                + " pixels of that viewport screenshot from its top left corner, as its result"
                + " says; refused once the page has scrolled, navigated or been resized since."
                + " Prefer refs when the observation has them.",
            acts,
            List.of(
                Param.oneOf("action", BrowserAction.PointAt.gestures(), null).asRequired(),
                Param.between("x", 0, MAX_COORDINATE, "CSS pixels from the left.").asRequired(),
                Param.between("y", 0, MAX_COORDINATE, "CSS pixels from the top.").asRequired(),
                Param.between("to_x", 0, MAX_COORDINATE, "Where a drag ends."),
                Param.between("to_y", 0, MAX_COORDINATE, "Where a drag ends."),
                Param.between(
                    "delta_x",
                    -BrowserAction.PointAt.MAX_DELTA,
                    BrowserAction.PointAt.MAX_DELTA,
                    "How far a scroll moves right (negative: left), CSS pixels."),
                Param.between(
                    "delta_y",
                    -BrowserAction.PointAt.MAX_DELTA,
                    BrowserAction.PointAt.MAX_DELTA,
                    "How far a scroll moves down (negative: up), CSS pixels."),
                Param.text(
                    "text",
                    BrowserAction.Type.MAX_CHARS,
                    "What the type action types, key by key; never a password.")),
            a ->
                new BrowserAction.PointAt(
                    BrowserAction.PointAt.gesture(a.string("action")),
                    a.number("x", Double.NaN),
                    a.number("y", Double.NaN),
                    a.number("to_x", Double.NaN),
                    a.number("to_y", Double.NaN),
                    a.number("delta_x", 0),
                    a.number("delta_y", 0),
                    a.optionalText("text"),
                    null)),
        row(
            "browser_drag",
            "Drag an element named by its ref onto another of the same observation (to_element_ref):"
                + " reorders sortable lists, moves cards, drops files' stand-ins. Both must show in"
                + " one viewport.",
            acts,
            plus(
                TARGET,
                ELEMENT_REF
                    .renamed("to_element_ref")
                    .described("The ref of the element to drop on, from the same observation.")
                    .asRequired()),
            a ->
                new BrowserAction.Drag(
                    a.string("observation_id"),
                    a.string("element_ref"),
                    a.string("to_element_ref"))),
        row(
                "browser_fill",
                "Type a value into a field named by its ref in the latest observation, replacing its"
                    + " content."
                    + passwords,
                setsState,
                plus(TARGET, Param.text("value", 100_000, null).asRequired()),
                a ->
                    new BrowserAction.Fill(
                        a.string("observation_id"), a.string("element_ref"), a.text("value")))
            .withHeading((a, done) -> "Filled " + a.text("value").length() + " characters"),
        row(
            "browser_clear",
            "Empty a field named by its ref in the latest observation (a text field, textarea or"
                + " editable element, a password field too), as selecting its text and deleting it"
                + " would: the page reacts as to a person's edit.",
            setsState,
            TARGET,
            a -> new BrowserAction.Clear(a.string("observation_id"), a.string("element_ref"))),
        row(
            "browser_type",
            "Type text key by key into a field named by its ref, or into whatever has focus:"
                + " for autocomplete and search-as-you-type fields that react to each key. A line"
                + " break presses Enter."
                + passwords
                + (typedPasswords ? " A password goes in by the field's ref, whole." : ""),
            setsState,
            plus(
                List.of(
                    Param.text("text", BrowserAction.Type.MAX_CHARS, null).asRequired(),
                    Param.integer(
                        "delay_ms",
                        0,
                        BrowserAction.Type.MAX_DELAY_MS,
                        "Pause between keys (default 0).")),
                OPTIONAL_TARGET),
            a ->
                new BrowserAction.Type(
                    a.optionalString("observation_id"),
                    a.optionalString("element_ref"),
                    a.text("text"),
                    a.integer("delay_ms", 0, (int) BrowserAction.Type.MAX_DELAY_MS).orElse(0))),
        row(
            "browser_press",
            "Press a key or a chord on an element, or on whatever has focus when no element is"
                + " named. Modifiers are released when the call ends, even one that failed.",
            acts,
            plus(
                Param.text(
                        "key",
                        64,
                        "A key in Playwright's syntax: a named key (Enter, Escape, Tab, Space,"
                            + " ArrowDown, PageDown, F2), a single character (a, /, ?), or"
                            + " modifiers (Control, Alt, Shift, Meta, ControlOrMeta) joined by +"
                            + " before one key: Control+A, Shift+Tab, Alt+ArrowDown, Meta+Enter."
                            + " Chords that act on the browser (Control+W, Control+T, Control+L,"
                            + " F5, ...) are refused: use browser_tabs, browser_open,"
                            + " browser_reload, browser_back or browser_forward.")
                    .asRequired(),
                OPTIONAL_TARGET),
            a ->
                new BrowserAction.Press(
                    a.optionalString("observation_id"),
                    a.optionalString("element_ref"),
                    a.string("key"))),
        row(
            "browser_select",
            "Choose options of a select element by their values or labels.",
            setsState,
            plus(TARGET, Param.strings("values", 1, 100, null).asRequired()),
            a ->
                new BrowserAction.Select(
                    a.string("observation_id"), a.string("element_ref"), a.strings("values"))),
        row(
            "browser_check",
            "Check or uncheck a checkbox, radio button or switch.",
            setsState,
            plus(TARGET, Param.bool("checked", null).asRequired()),
            a ->
                new BrowserAction.Check(
                    a.string("observation_id"), a.string("element_ref"), a.bool("checked"))),
        row(
            "browser_scroll",
            "Scroll the page up or down by viewports, to its top or bottom, or an element into view.",
            new ToolHints(false, false, false, true),
            plus(
                List.of(
                    Param.oneOf("to", BrowserAction.Scroll.To.ids(), null).asRequired(),
                    Param.number("pages", 0, 20, "Viewports to scroll up or down (default 1).")),
                OPTIONAL_TARGET),
            a ->
                new BrowserAction.Scroll(
                    BrowserAction.Scroll.To.of(a.string("to")),
                    a.number("pages", 1),
                    a.optionalString("observation_id"),
                    a.optionalString("element_ref"))),
        row(
            "browser_wait",
            "Wait, then observe: until the page loads (load) or goes network-idle; until an"
                + " element becomes visible or hidden (element-visible, element-hidden), named by"
                + " element_ref, or by role and name when it has no ref yet; until text appears"
                + " in or goes from the page (text-visible, text-hidden); until the URL matches a"
                + " glob (url: **/checkout/*); or for a plain delay of timeout_ms (delay, at most"
                + " "
                + BrowserAction.Wait.MAX_DELAY_MS
                + " ms). A wait that times out says what it saw last.",
            new ToolHints(true, false, true, true),
            plus(
                List.of(
                    Param.oneOf("until", BrowserAction.Wait.Until.ids(), null).asRequired(),
                    Param.integer("timeout_ms", 1, BrowserAction.MAX_WAIT_MS, null),
                    Param.text(
                        "text",
                        BrowserAction.Wait.MAX_TEXT_CHARS,
                        "For text-visible and text-hidden: the text, any case."),
                    Param.text(
                        "url",
                        dev.periscope.api.browser.UrlGlob.MAX_CHARS,
                        "For url: a glob over the whole URL; ** is anything, * anything but /,"
                            + " {a,b} either, a backslash makes the next character itself."),
                    Param.pattern(
                        "role",
                        "^[a-z]{2,20}$",
                        "For element-visible and element-hidden without a ref: the element's"
                            + " ARIA role (button, link, textbox, dialog, ...)."),
                    Param.text(
                        "name",
                        BrowserAction.Wait.MAX_TEXT_CHARS,
                        "With role: a part of the element's name, any case.")),
                OPTIONAL_TARGET),
            a ->
                new BrowserAction.Wait(
                    BrowserAction.Wait.Until.of(a.string("until")),
                    a.optionalString("observation_id"),
                    a.optionalString("element_ref"),
                    a.optionalString("text"),
                    a.optionalString("url"),
                    a.optionalString("role"),
                    a.optionalString("name"),
                    a.integer("timeout_ms", 1, (int) BrowserAction.MAX_WAIT_MS)
                        .orElse(
                            BrowserAction.Wait.Until.DELAY.id().equals(a.string("until"))
                                ? (int)
                                    Math.min(
                                        settings.waitTimeoutMs(), BrowserAction.Wait.MAX_DELAY_MS)
                                : settings.waitTimeoutMs()))),
        history(
            "browser_back",
            "Go back one page in this page's history.",
            BrowserAction.History.Move.BACK),
        history(
            "browser_forward",
            "Go forward one page in this page's history.",
            BrowserAction.History.Move.FORWARD),
        history("browser_reload", "Reload the page.", BrowserAction.History.Move.RELOAD),
        row(
                "browser_dialog",
                "Answer the dialog (alert, confirm, prompt, or leave-page) an action opened and the"
                    + " observation shows: accept it (a prompt with prompt_text) or dismiss it. Until"
                    + " it is answered the page runs nothing else.",
                new ToolHints(false, true, false, true),
                List.of(
                    Param.bool(
                            "accept", "True accepts (OK, Leave), false dismisses (Cancel, Stay).")
                        .asRequired(),
                    Param.text(
                        "prompt_text",
                        BrowserAction.AnswerDialog.MAX_PROMPT_CHARS,
                        "The answer to a prompt (default: the text it offers).")),
                a ->
                    new BrowserAction.AnswerDialog(a.bool("accept"), a.optionalText("prompt_text")))
            .withHeading(
                (a, done) -> a.bool("accept") ? "Accepted the dialog" : "Dismissed the dialog"),
        row(
                "browser_tabs",
                "List this browser's tabs, open an http(s) URL in a new tab, switch to a tab, or"
                    + " close one. A page a click of yours opens (a link to a new window, a popup)"
                    + " is a tab too. The observation after is of the current tab; refs belong to"
                    + " one tab's observation.",
                new ToolHints(false, true, false, true),
                List.of(
                    Param.oneOf("action", BrowserAction.Tabs.Move.ids(), null).asRequired(),
                    Param.integer(
                        "tab",
                        1,
                        BrowserAction.Tabs.MAX_TAB,
                        "The tab's number, for select and close."),
                    Param.string("url", "For open: an absolute http or https URL.")),
                a ->
                    new BrowserAction.Tabs(
                        BrowserAction.Tabs.Move.of(a.string("action")),
                        a.integer("tab", 1, BrowserAction.Tabs.MAX_TAB).orElse(null),
                        a.optionalString("url")))
            .withHeading((a, tabs) -> tabsHeading(a.string("action"), tabs)));
  }

  /** The tabs after a {@code browser_tabs} call, by number only (titles come redacted below). */
  private static String tabsHeading(String action, List<dev.periscope.api.browser.PageTab> tabs) {
    int current =
        tabs.stream()
            .filter(dev.periscope.api.browser.PageTab::active)
            .mapToInt(dev.periscope.api.browser.PageTab::id)
            .findFirst()
            .orElse(0);
    String numbers = String.join(", ", tabs.stream().map(t -> String.valueOf(t.id())).toList());
    String done =
        switch (action) {
          case "open" -> "Opened tab " + current;
          case "select" -> "Switched to tab " + current;
          case "close" -> "Closed the tab; now on tab " + current;
          default -> "On tab " + current;
        };
    return done + " (" + tabs.size() + " open: " + numbers + ")";
  }

  private static Row<Done> history(
      String name, String description, BrowserAction.History.Move move) {
    return row(
        name,
        description,
        new ToolHints(false, false, false, true),
        List.of(),
        a -> new BrowserAction.History(move));
  }

  /**
   * {@code browser_upload}: its action is built from the host's attachments ({@link Uploads}), so
   * this row's own builder is never used.
   */
  static Row<Done> upload() {
    return row(
        "browser_upload",
        "Upload attachments from the host's attachment store (by their refs, such as a screenshot's)"
            + " into a file input named by its ref, or through the file chooser a control opens (an"
            + " Upload button over a hidden input). Never a path on the host.",
        new ToolHints(false, true, false, true),
        plus(
            TARGET,
            Param.strings("attachment_refs", 1, BrowserAction.Upload.MAX_FILES, null).asRequired()),
        a -> {
          throw new IllegalStateException("browser_upload is built from the call");
        });
  }

  /** The scripting skill's one tool: a script the user approves, its value as JSON. */
  static Row<BrowserAction.Evaluate.Evaluated> evaluate() {
    return row(
        dev.periscope.browser.runtime.PageScripting.TOOL,
        "Run a short JavaScript expression, or a function's text such as () => document.title, in"
            + " the current tab and get its value as JSON (at most "
            + BrowserAction.Evaluate.MAX_RESULT_CHARS
            + " characters; a promise is awaited). Each script is approved first (by the user, who"
            + " sees its text and the page's origin, or by the project's rules). It never runs"
            + " where a secret was filled: not in that tab, not on a page of that origin.",
        new ToolHints(false, true, false, true),
        List.of(
            Param.text(
                    "expression",
                    BrowserAction.Evaluate.MAX_EXPRESSION_CHARS,
                    "The script: an expression, or a function's text that is called.")
                .with("minLength", 1)
                .asRequired()),
        a -> new BrowserAction.Evaluate(a.string("expression")));
  }

  /**
   * {@code browser_fill_credential}, offered only when the project has a credential source: the
   * model names a reference, never a value.
   */
  static Row<BrowserAction.FillCredential.Filled> fillCredential(List<String> references) {
    String known =
        references.isEmpty()
            ? ""
            : " Configured references: " + String.join(", ", references) + ".";
    return row(
            CredentialChannel.TOOL,
            "Fill a password or other secret into a field named by its ref, by the"
                + " credential's reference: the value is never shown to you. The user may be asked to approve; a"
                + " credential bound to origins is refused on any other."
                + known,
            new ToolHints(false, true, true, true),
            plus(
                TARGET,
                Param.string(
                        "credential_ref",
                        "The credential's reference, such as github or shop.password.")
                    .with("maxLength", 200)
                    .asRequired()),
            a ->
                new BrowserAction.FillCredential(
                    a.string("observation_id"),
                    a.string("element_ref"),
                    a.string("credential_ref")))
        .withHeading(
            (a, filled) ->
                "Filled "
                    + filled.chars()
                    + " characters of credential \""
                    + a.string("credential_ref")
                    + "\"");
  }
}
