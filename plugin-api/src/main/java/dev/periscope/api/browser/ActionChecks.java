package dev.periscope.api.browser;

import dev.periscope.api.browser.BrowserAction.AnswerDialog;
import dev.periscope.api.browser.BrowserAction.Click;
import dev.periscope.api.browser.BrowserAction.Drag;
import dev.periscope.api.browser.BrowserAction.Fill;
import dev.periscope.api.browser.BrowserAction.FillCredential;
import dev.periscope.api.browser.BrowserAction.History;
import dev.periscope.api.browser.BrowserAction.Navigate;
import dev.periscope.api.browser.BrowserAction.PointAt;
import dev.periscope.api.browser.BrowserAction.Scroll;
import dev.periscope.api.browser.BrowserAction.Select;
import dev.periscope.api.browser.BrowserAction.Tabs;
import dev.periscope.api.browser.BrowserAction.Type;
import dev.periscope.api.browser.BrowserAction.Upload;
import dev.periscope.api.browser.BrowserAction.Wait;
import dev.periscope.api.browser.spi.ProviderElement;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * What each action's fields may hold, checked before anything runs: the bodies of the actions'
 * {@code validate()}, each failure {@code BROWSER_INVALID_ARGUMENT} naming the field (as a JSON
 * pointer into the tool's arguments) and its bound; and the password field a typed value does not
 * go into.
 */
final class ActionChecks {
  private ActionChecks() {}

  static BrowserException invalid(String message) {
    return new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, message);
  }

  static void requireRef(String elementRef) {
    if (elementRef == null || elementRef.isBlank()) {
      throw invalid("/element_ref: a ref from the latest observation is required");
    }
  }

  /**
   * {@code BROWSER_PASSWORD_INPUT_FORBIDDEN} when {@code target} is a password field, naming the
   * setting that lets a password the user gave go in.
   */
  static void refusePassword(ProviderElement target, String elementRef) {
    if ("password".equals(target.inputType())) {
      throw new BrowserException(
          ErrorCode.BROWSER_PASSWORD_INPUT_FORBIDDEN,
          "element \""
              + elementRef
              + "\" is a password field; fill it with browser_fill_credential, which never shows the"
              + " value to the model (a password the user gave in their instruction can go in by"
              + " browser_fill or browser_type only where the project sets"
              + " credentials.modelTypedPasswords: allow)");
    }
  }

  /** The roles of elements that hold text a person can select and delete. */
  private static final java.util.Set<String> TEXT_ROLES =
      java.util.Set.of("textbox", "searchbox", "combobox", "spinbutton");

  /**
   * What a clear empties: an element that holds text (not a select's list, which holds choices):
   * else {@code BROWSER_INVALID_ARGUMENT} naming what it is.
   */
  static void admitClear(ProviderElement target, String elementRef) {
    String kind = String.valueOf(target.kind());
    if (!TEXT_ROLES.contains(String.valueOf(target.role())) || kind.startsWith("select")) {
      throw new BrowserException(
          ErrorCode.BROWSER_INVALID_ARGUMENT,
          "element \""
              + elementRef
              + "\" is "
              + kind
              + " (role "
              + target.role()
              + "), which holds no text to empty; browser_clear empties a text field, a textarea"
              + " or an editable element");
    }
  }

  /** Only absolute http(s) URLs without embedded credentials: {@code BROWSER_INVALID_URL}. */
  static void validate(Navigate a) {
    String url = a.url();
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException | NullPointerException e) {
      throw new BrowserException(
          ErrorCode.BROWSER_INVALID_URL, "the url argument is not a valid URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new BrowserException(
          ErrorCode.BROWSER_INVALID_URL, "only absolute http and https URLs can be opened: " + url);
    }
    if (uri.getRawUserInfo() != null) {
      throw new BrowserException(
          ErrorCode.BROWSER_INVALID_URL,
          "URLs with embedded credentials are refused; use browser_fill_credential for logins");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_URL, "the URL names no host: " + url);
    }
  }

  static void validate(Click a) {
    requireRef(a.elementRef());
    Click.Button button = a.button();
    if (button == null) {
      throw invalid("/button: one of " + EnumIds.ids(Click.Button.class) + " is required");
    }
    if (a.clicks() < 1 || a.clicks() > Click.MAX_CLICKS) {
      throw invalid(
          "/click_count: an integer from 1 to "
              + Click.MAX_CLICKS
              + " is required (found "
              + a.clicks()
              + ")");
    }
    Click.Offset offset = a.offset();
    if (button.move() != null && (a.clicks() != 1 || offset != null)) {
      throw invalid(
          "/button: "
              + button.id()
              + " moves through the tab's history once; click_count and offset_x/offset_y do"
              + " not apply to it");
    }
    if (offset != null && (offset.x() < 0 || offset.y() < 0)) {
      throw invalid(
          "/offset_x: an offset inside the element's box, from its top-left corner, is required"
              + " (found "
              + offset.x()
              + ", "
              + offset.y()
              + ")");
    }
  }

  static void validate(Drag a) {
    requireRef(a.elementRef());
    String to = a.toElementRef();
    if (to == null || to.isBlank()) {
      throw invalid(
          "/to_element_ref: the ref of the element to drop on, from the same observation, is"
              + " required");
    }
    if (to.equals(a.elementRef())) {
      throw invalid(
          "/to_element_ref: an element cannot be dropped on itself (both are "
              + a.elementRef()
              + ")");
    }
  }

  static void validate(Type a) {
    String text = a.text();
    long delayMs = a.delayMs();
    if (text == null || text.isEmpty()) {
      throw invalid("/text: a non-empty string is required");
    }
    if (text.length() > Type.MAX_CHARS) {
      throw invalid(
          "/text: at most "
              + Type.MAX_CHARS
              + " characters are typed key by key (found "
              + text.length()
              + "); use browser_fill for longer values");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '\n' && Character.isISOControl(c)) {
        throw invalid(
            "/text: control characters other than a line break are not typed (found U+"
                + String.format("%04X", (int) c)
                + " at "
                + i
                + "); press keys such as Tab with browser_press");
      }
    }
    if (delayMs < 0 || delayMs > Type.MAX_DELAY_MS) {
      throw invalid(
          "/delay_ms: an integer from 0 to "
              + Type.MAX_DELAY_MS
              + " is required (found "
              + delayMs
              + ")");
    }
    if (text.length() * delayMs > Type.MAX_PAUSES_MS) {
      throw invalid(
          "/delay_ms: "
              + text.length()
              + " keys "
              + delayMs
              + " ms apart would pause "
              + text.length() * delayMs
              + " ms, more than "
              + Type.MAX_PAUSES_MS
              + "; use a shorter delay or less text");
    }
  }

  static void validate(Fill a) {
    requireRef(a.elementRef());
    if (a.value() == null) {
      throw invalid("/value: a string is required");
    }
  }

  static void validate(FillCredential a) {
    requireRef(a.elementRef());
    if (a.credentialRef() == null || a.credentialRef().isBlank()) {
      throw invalid("/credential_ref: a credential reference is required");
    }
  }

  static void validate(BrowserAction.Evaluate a) {
    if (a.expression() == null || a.expression().isBlank()) {
      throw invalid("/expression: a script to run is required");
    }
    if (a.expression().length() > BrowserAction.Evaluate.MAX_EXPRESSION_CHARS) {
      throw invalid(
          "/expression: at most "
              + BrowserAction.Evaluate.MAX_EXPRESSION_CHARS
              + " characters, and this one has "
              + a.expression().length());
    }
  }

  static void validate(Select a) {
    requireRef(a.elementRef());
    if (a.values() == null || a.values().isEmpty()) {
      throw invalid("/values: choose at least one option");
    }
  }

  static void validate(Scroll a) {
    if (a.to() == null) {
      throw invalid("/to: one of " + EnumIds.ids(Scroll.To.class) + " is required");
    }
    if (!(a.pages() > 0 && a.pages() <= 20)) {
      throw invalid(
          "/pages: a number greater than 0 and at most 20 is required (found " + a.pages() + ")");
    }
    if (a.to() == Scroll.To.ELEMENT && a.elementRef() == null) {
      throw invalid("/element_ref: scrolling to an element needs its ref");
    }
  }

  static void validate(Wait a) {
    Wait.Until until = a.until();
    if (until == null) {
      throw invalid("/until: one of " + EnumIds.ids(Wait.Until.class) + " is required");
    }
    boolean texts = until == Wait.Until.TEXT_VISIBLE || until == Wait.Until.TEXT_HIDDEN;
    boolean byRole = until.namesElement() && a.elementRef() == null;
    refuseUnless(until, texts, "text", a.text());
    refuseUnless(until, until == Wait.Until.URL, "url", a.url());
    refuseUnless(until, byRole, "role", a.role());
    refuseUnless(until, byRole, "name", a.name());
    refuseUnless(until, until.namesElement(), "element_ref", a.elementRef());
    if (byRole && a.role() == null) {
      throw invalid(
          "/element_ref: waiting for an element needs its ref, or its role (and name) when it"
              + " has no ref yet");
    }
    if (a.role() != null && !Wait.ROLES.contains(a.role())) {
      throw invalid(
          "/role: an ARIA role is required (button, link, textbox, checkbox, heading, dialog,"
              + " option, ...; found "
              + a.role()
              + ")");
    }
    String name = a.name();
    if (name != null && (name.isBlank() || name.length() > Wait.MAX_TEXT_CHARS)) {
      throw invalid("/name: 1 to " + Wait.MAX_TEXT_CHARS + " characters are required");
    }
    String text = a.text();
    if (texts && (text == null || text.isBlank() || text.length() > Wait.MAX_TEXT_CHARS)) {
      throw invalid(
          "/text: the text to wait for, 1 to " + Wait.MAX_TEXT_CHARS + " characters, is required");
    }
    if (until == Wait.Until.URL) {
      a.urlGlob();
    }
    long most = until == Wait.Until.DELAY ? Wait.MAX_DELAY_MS : BrowserAction.MAX_WAIT_MS;
    if (a.timeoutMs() < 1 || a.timeoutMs() > most) {
      throw invalid(
          "/timeout_ms: an integer from 1 to "
              + most
              + " is required"
              + (until == Wait.Until.DELAY ? " for a delay" : "")
              + " (found "
              + a.timeoutMs()
              + ")");
    }
  }

  private static void refuseUnless(Wait.Until until, boolean applies, String field, String value) {
    if (value != null && !applies) {
      throw invalid("/" + field + ": does not apply to until " + until.id());
    }
  }

  static void validate(History a) {
    if (a.move() == null) {
      throw invalid("a history move (" + EnumIds.ids(History.Move.class) + ") is required");
    }
  }

  static void validate(Tabs a) {
    Tabs.Move move = a.move();
    Integer tab = a.tab();
    if (move == null) {
      throw invalid("/action: one of " + EnumIds.ids(Tabs.Move.class) + " is required");
    }
    boolean names = move == Tabs.Move.SELECT || move == Tabs.Move.CLOSE;
    if (names && tab == null) {
      throw invalid("/tab: " + move.id() + " names a tab by its number");
    }
    if (!names && tab != null) {
      throw invalid("/tab: " + move.id() + " names no tab");
    }
    if (tab != null && (tab < 1 || tab > Tabs.MAX_TAB)) {
      throw invalid("/tab: a tab number from 1 to " + Tabs.MAX_TAB + " (found " + tab + ")");
    }
    if (move == Tabs.Move.OPEN) {
      new Navigate(a.url()).validate();
    } else if (a.url() != null) {
      throw invalid("/url: only open takes a url");
    }
  }

  static void validate(AnswerDialog a) {
    String promptText = a.promptText();
    if (promptText != null && promptText.length() > AnswerDialog.MAX_PROMPT_CHARS) {
      throw invalid(
          "/prompt_text: at most "
              + AnswerDialog.MAX_PROMPT_CHARS
              + " characters (found "
              + promptText.length()
              + ")");
    }
    if (promptText != null && !a.accept()) {
      throw invalid("/prompt_text: a dismissed dialog takes no text; accept it to answer");
    }
  }

  static void validate(Upload a) {
    requireRef(a.elementRef());
    if (a.files() == null || a.files().isEmpty() || a.files().size() > Upload.MAX_FILES) {
      throw invalid(
          "/attachment_refs: from 1 to " + Upload.MAX_FILES + " attachments are required");
    }
  }

  static void validate(PointAt a) {
    PointAt.Gesture gesture = a.gesture();
    if (gesture == null) {
      throw invalid("/action: one of " + EnumIds.ids(PointAt.Gesture.class) + " is required");
    }
    requireCoordinate("/x", a.x());
    requireCoordinate("/y", a.y());
    if (gesture == PointAt.Gesture.DRAG) {
      requireCoordinate("/to_x", a.toX());
      requireCoordinate("/to_y", a.toY());
    }
    if (gesture == PointAt.Gesture.SCROLL) {
      double dx = a.deltaX();
      double dy = a.deltaY();
      if (!Double.isFinite(dx)
          || !Double.isFinite(dy)
          || Math.abs(dx) > PointAt.MAX_DELTA
          || Math.abs(dy) > PointAt.MAX_DELTA
          || (dx == 0 && dy == 0)) {
        throw invalid(
            "/delta_x, /delta_y: a scroll moves the wheel by CSS pixels, at least one of them"
                + " not 0 and none past "
                + (long) PointAt.MAX_DELTA);
      }
    }
    if (gesture == PointAt.Gesture.TYPE) {
      new Type(null, null, a.text(), 0).validate();
    } else if (a.text() != null) {
      throw invalid("/text: only the type gesture types text");
    }
  }

  private static void requireCoordinate(String field, double value) {
    if (!Double.isFinite(value) || value < 0) {
      throw invalid(
          field + ": a CSS-pixel coordinate of the latest screenshot, 0 or more, is required");
    }
  }

  /** The body of {@link PointAt#requireInside}: each point the gesture names lies in the view. */
  static void requireInside(PointAt a, ScreenshotView view) {
    inside("(x, y)", a.x(), a.y(), view);
    if (a.gesture() == PointAt.Gesture.DRAG) {
      inside("(to_x, to_y)", a.toX(), a.toY(), view);
    }
  }

  private static void inside(String which, double px, double py, ScreenshotView view) {
    if (px >= view.viewportWidth() || py >= view.viewportHeight()) {
      throw invalid(
          which
              + " = ("
              + px
              + ", "
              + py
              + ") lies outside the viewport the screenshot shows, "
              + view.viewportWidth()
              + "x"
              + view.viewportHeight()
              + " CSS pixels from its top left corner");
    }
  }
}
