package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.Frame;
import com.microsoft.playwright.Mouse;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.BoundingBox;
import com.microsoft.playwright.options.LoadState;
import com.microsoft.playwright.options.MouseButton;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.ProviderElement;

/**
 * The pointer and the keyboard beyond a plain click: other buttons and click counts, a point inside
 * an element's box, a drag from one element onto another, and text typed key by key with the
 * password-field check before every run of keys. On the lane's thread.
 */
final class PointerActions {
  /**
   * Mouse moves between a drag's press and its release: pointer-driven sortable lists follow the
   * pointer move by move, and HTML drag and drop starts on the first.
   */
  static final int DRAG_STEPS = 8;

  private PointerActions() {}

  static Mouse.ClickOptions mouse(BrowserAction.Click action) {
    return new Mouse.ClickOptions()
        .setButton(button(action.button()))
        .setClickCount(action.clicks());
  }

  static ElementHandle.ClickOptions handle(BrowserAction.Click action) {
    return new ElementHandle.ClickOptions()
        .setButton(button(action.button()))
        .setClickCount(action.clicks());
  }

  private static MouseButton button(BrowserAction.Click.Button button) {
    return switch (button) {
      case LEFT -> MouseButton.LEFT;
      case RIGHT -> MouseButton.RIGHT;
      case MIDDLE -> MouseButton.MIDDLE;
      case BACK, FORWARD ->
          throw new IllegalArgumentException("a history move, not a press: " + button.id());
    };
  }

  /**
   * Clicks at the action's offset inside the element's box, with Playwright's own checks that the
   * element is there to receive it at that point (never forced: a point covered by something else
   * must not press that). An offset outside the box is {@code BROWSER_INVALID_ARGUMENT} with the
   * box's size. Disposes {@code target}.
   */
  static void clickAtOffset(
      Page page, ElementHandle target, ProviderElement element, BrowserAction.Click action) {
    try {
      target.scrollIntoViewIfNeeded();
      BoundingBox box = target.boundingBox();
      if (box == null) {
        throw BrowserException.of(
                ErrorCode.BROWSER_ACTION_FAILED,
                "element \"" + element.name() + "\" is not rendered: it has no box to click in")
            .withUrl(page.url());
      }
      BrowserAction.Click.Offset offset = action.offset();
      if (offset.x() >= box.width || offset.y() >= box.height) {
        throw BrowserException.of(
                ErrorCode.BROWSER_INVALID_ARGUMENT,
                String.format(
                    "/offset_x: the point (%d, %d) is outside element \"%s\", whose box is %d x %d"
                        + " CSS pixels; give an offset from its top-left corner inside it",
                    offset.x(),
                    offset.y(),
                    element.name(),
                    (int) Math.floor(box.width),
                    (int) Math.floor(box.height)))
            .withUrl(page.url());
      }
      target.click(handle(action).setPosition(offset.x(), offset.y()));
    } finally {
      target.dispose();
    }
  }

  /**
   * Presses on {@code from} (already hit-tested), moves to the centre of {@code to} in {@value
   * #DRAG_STEPS} steps, one call each, and releases there. Both must be in the viewport together
   * once {@code from} is in view. The release happens whatever fails after the press; when a dialog
   * stops the drag, it waits for the dialog's answer ({@code afterAnswer}), since the page takes no
   * input until then.
   */
  static void drag(
      Page page,
      ElementHandle from,
      HitTest.Point press,
      ElementHandle to,
      ProviderElement element,
      ProviderElement destination,
      java.util.function.Consumer<Runnable> afterAnswer) {
    BoundingBox source = from.boundingBox();
    if (source == null) {
      throw BrowserException.of(
              ErrorCode.BROWSER_ACTION_FAILED,
              "element \"" + element.name() + "\" is not rendered: there is nothing to drag")
          .withUrl(page.url());
    }
    BoundingBox target = to.boundingBox();
    if (target == null || !inViewport(page, target)) {
      throw BrowserException.of(
              ErrorCode.BROWSER_ACTION_FAILED,
              "element \""
                  + destination.name()
                  + "\" is not in view together with the element dragged: a drag stays within one"
                  + " viewport; scroll so that both show, or drop on a nearer element")
          .withUrl(page.url());
    }
    dragBetween(
        page,
        press != null ? press.x() : source.x + source.width / 2,
        press != null ? press.y() : source.y + source.height / 2,
        target.x + target.width / 2,
        target.y + target.height / 2,
        afterAnswer);
  }

  /**
   * Presses at {@code (x0, y0)}, moves to {@code (x1, y1)} in {@value #DRAG_STEPS} steps and
   * releases there (viewport CSS pixels), as {@link #drag} says.
   */
  static void dragBetween(
      Page page,
      double x0,
      double y0,
      double x1,
      double y1,
      java.util.function.Consumer<Runnable> afterAnswer) {
    page.mouse().move(x0, y0);
    try {
      page.mouse().down();
      for (int i = 1; i <= DRAG_STEPS; i++) {
        page.mouse().move(x0 + (x1 - x0) * i / DRAG_STEPS, y0 + (y1 - y0) * i / DRAG_STEPS);
      }
    } catch (RuntimeException e) {
      if (PageDialogs.stoppedBy(e)) {
        afterAnswer.accept(() -> page.mouse().up());
      } else {
        try {
          page.mouse().up();
        } catch (RuntimeException gone) {
          e.addSuppressed(gone);
        }
      }
      throw e;
    }
    page.mouse().up();
  }

  private static boolean inViewport(Page page, BoundingBox box) {
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> size =
        (java.util.Map<String, Object>)
            page.evaluate("() => ({ w: window.innerWidth, h: window.innerHeight })");
    double cx = box.x + box.width / 2;
    double cy = box.y + box.height / 2;
    return cx >= 0
        && cy >= 0
        && cx < ((Number) size.get("w")).doubleValue()
        && cy < ((Number) size.get("h")).doubleValue();
  }

  /**
   * Types {@code text} into whatever has focus, one key per call, {@code delayMs} apart; a line
   * break presses Enter and lets a navigation it started load. Before every key the focused element
   * is checked: a password field, in the page, an open shadow root or any frame, is refused with
   * {@code BROWSER_PASSWORD_INPUT_FORBIDDEN}, so that neither a ref, nor Enter, nor a page moving
   * the focus between keys types a value into one. A dialog a key opens stops the typing there: the
   * keys after it are not typed.
   */
  static void type(Page page, String registryKey, String text, long delayMs) {
    int i = 0;
    while (i < text.length()) {
      int next = text.offsetByCodePoints(i, 1);
      String key = text.substring(i, next);
      if (i > 0 && delayMs > 0) {
        page.waitForTimeout(delayMs);
      }
      refuseFocusedPassword(page, registryKey);
      if (key.equals("\n")) {
        page.keyboard().press("Enter");
        try {
          page.waitForLoadState(LoadState.LOAD);
        } catch (PlaywrightException stillLoading) {
          // The next check reads the focus of whatever document is there.
        }
      } else {
        page.keyboard().type(key);
      }
      i = next;
    }
  }

  /**
   * Puts {@code files} into the file input {@code target}, or into the file chooser a click on it
   * opens: for that click, and only then, the page's guards let a file picker open ({@code
   * registry.uploading}), into Playwright's chooser, never the system's. A control that opens none
   * within the action timeout fails saying so.
   */
  static void upload(
      Page page,
      String registryKey,
      ElementHandle target,
      ProviderElement element,
      java.util.List<dev.periscope.api.browser.BrowserAction.Upload.UploadFile> files) {
    com.microsoft.playwright.options.FilePayload[] payloads =
        files.stream()
            .map(
                f ->
                    new com.microsoft.playwright.options.FilePayload(
                        f.name(), f.mimeType(), f.content()))
            .toArray(com.microsoft.playwright.options.FilePayload[]::new);
    if ("file".equals(element.inputType())) {
      target.setInputFiles(payloads);
      return;
    }
    // In the control's own document: a control in a frame opens its chooser there.
    com.microsoft.playwright.Frame frame = target.ownerFrame();
    frame.evaluate("key => { const r = window[key]; if (r) r.uploading = true; }", registryKey);
    try {
      com.microsoft.playwright.FileChooser chooser = page.waitForFileChooser(() -> target.click());
      chooser.setFiles(payloads);
    } catch (com.microsoft.playwright.TimeoutError e) {
      throw BrowserException.of(
              ErrorCode.BROWSER_ACTION_FAILED,
              "element \""
                  + element.name()
                  + "\" opened no file chooser when clicked; name the file input, or the control"
                  + " that opens one")
          .withUrl(page.url());
    } finally {
      frame.evaluate("key => { const r = window[key]; if (r) r.uploading = false; }", registryKey);
    }
  }

  /**
   * What has focus in a document, through open shadow roots and the closed ones guards.js kept
   * under the registry {@code key}: "password" for a password field, "frame" when the focus is
   * inside a frame, else "".
   */
  private static final String FOCUSED = PageScripts.script("focused-field");

  /**
   * {@code BROWSER_PASSWORD_INPUT_FORBIDDEN} when the focus is on a password field. Every frame is
   * asked (which of them has the focus cannot always be told from outside: a frame may sit in a
   * closed shadow root), and a password field focused in any of them refuses.
   */
  static void refuseFocusedPassword(Page page, String registryKey) {
    String main = String.valueOf(page.mainFrame().evaluate(FOCUSED, registryKey));
    boolean password = main.equals("password");
    if (!password) {
      for (Frame frame : PageScripts.documentFrames(page)) {
        if (frame == page.mainFrame()) {
          continue;
        }
        try {
          password |= "password".equals(frame.evaluate(FOCUSED, registryKey));
        } catch (PlaywrightException gone) {
          // A frame that went away has no focus to type into.
        }
      }
    }
    if (password) {
      throw BrowserException.of(
              ErrorCode.BROWSER_PASSWORD_INPUT_FORBIDDEN,
              "the focus is on a password field; fill it with browser_fill_credential, which never"
                  + " shows the value to the model (a password the user gave in their instruction"
                  + " goes in only by the field's element_ref, with browser_fill or browser_type,"
                  + " where the project sets credentials.modelTypedPasswords: allow)")
          .withUrl(page.url());
    }
  }
}
