package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.Page;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.ProviderElement;
import java.util.Map;

/**
 * Whether a click at the centre of an element would reach it, and if not, what is in the way. A
 * covered target fails within about a second, naming what covers it, instead of Playwright's
 * actionability wait running into the action timeout. On the lane's thread.
 */
final class HitTest {
  /** How long a cover may take to go away on its own (an animation, a toast) before the refusal. */
  static final long SETTLE_MS = 600;

  private static final long POLL_MS = 100;

  private HitTest() {}

  /**
   * Brings {@code target} into view at once, to the viewport's middle (when it is not wholly in
   * view, or once something covers it), without the page's smooth scrolling, and, in the same
   * script, looks at it as Playwright's actionability checks would: whether it is ready for the
   * pointer now (its centre in the viewport reaches it, it is enabled and visible, and nothing
   * animates it) and, when something else is hit at its centre, what (hit-test.js).
   */
  private static final String STATE = PageScripts.script("hit-test");

  /** A point in the viewport, in CSS pixels: where the pointer presses. */
  record Point(double x, double y) {}

  /**
   * Where the pointer reaches an element once nothing covers the point: whether it is ready for the
   * pointer there without Playwright's actionability wait, the point in the viewport (null when
   * Playwright is to scroll to it), and the point inside the element's padding box when it is not
   * the centre (a partly covered element is pressed on its visible part), else null.
   */
  record Reach(boolean ready, Point point, com.microsoft.playwright.options.Position offset) {
    ElementHandle.ClickOptions click(ElementHandle.ClickOptions options) {
      return options.setForce(ready).setPosition(offset);
    }
  }

  /**
   * Returns where the pointer reaches {@code target} (its centre, or a visible point of it when
   * something covers the centre) and whether it is ready for the pointer there without Playwright's
   * actionability wait; fails {@code BROWSER_TARGET_COVERED} when no point of it is visible after
   * {@value #SETTLE_MS} ms, naming that element (its ref goes where the message says {@link
   * BrowserException#REF}) and what it would take ({@code "the click"}, {@code "the pointer"}).
   */
  static Reach requireUncovered(
      Page page, ElementHandle target, ProviderElement element, String registryKey, String what) {
    long deadline = System.nanoTime() + SETTLE_MS * 1_000_000L;
    boolean centred = false;
    while (true) {
      @SuppressWarnings("unchecked")
      Map<String, Object> state =
          (Map<String, Object>)
              target.evaluate(STATE, Map.of("key", registryKey, "centre", centred));
      @SuppressWarnings("unchecked")
      Map<String, Object> cover = (Map<String, Object>) state.get("cover");
      if (cover == null) {
        return reach(state);
      }
      if (!centred) {
        // A sticky header or footer covers what sits at the viewport's edge: the middle is clear of
        // it.
        centred = true;
        continue;
      }
      if (System.nanoTime() >= deadline) {
        throw covered(page, element, cover, what);
      }
      page.waitForTimeout(POLL_MS);
    }
  }

  @SuppressWarnings("unchecked")
  private static Reach reach(Map<String, Object> state) {
    Point point =
        state.get("x") instanceof Number x && state.get("y") instanceof Number y
            ? new Point(x.doubleValue(), y.doubleValue())
            : null;
    Map<String, Object> offset = (Map<String, Object>) state.get("offset");
    return new Reach(
        Boolean.TRUE.equals(state.get("ready")),
        point,
        offset == null
            ? null
            : new com.microsoft.playwright.options.Position(
                ((Number) offset.get("x")).doubleValue(),
                ((Number) offset.get("y")).doubleValue()));
  }

  private static BrowserException covered(
      Page page, ProviderElement element, Map<String, Object> cover, String what) {
    String text = String.valueOf(cover.get("text"));
    String coverTarget = String.valueOf(cover.get("target"));
    String frame = element.target().substring(0, element.target().indexOf('|') + 1);
    BrowserException e =
        BrowserException.of(
                ErrorCode.BROWSER_TARGET_COVERED,
                "\""
                    + element.name()
                    + "\" is covered by "
                    + cover.get("tag")
                    + (text.isEmpty() ? "" : " \"" + text + "\"")
                    + BrowserException.REF
                    + ", which would take "
                    + what
                    + "; act on that element first (close or dismiss it), or scroll the target clear"
                    + " of it")
            .withUrl(page.url());
    return coverTarget.isEmpty() ? e : e.withRelatedTarget(frame + coverTarget);
  }
}
