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

  /**
   * Null when a click at the centre of the element's first box reaches it (or the point is outside
   * the viewport, for Playwright to scroll to); else the element in the way, named by the nearest
   * element the latest observation listed when there is one.
   */
  private static final String COVER =
      """
      (el, key) => {
        const at = (__COVER__)(el, (__LABELS__)());
        const hit = at && at.cover;
        if (!hit) return null;
        const registry = window[key];
        let listed = null;
        for (let n = hit; n && !listed; n = n.parentElement) {
          if (registry && registry.listed && registry.listed.has(n)) listed = n;
        }
        const named = listed || hit;
        const text = (named.getAttribute('aria-label') || named.innerText || named.getAttribute('title') || '')
          .replace(/\\s+/g, ' ').trim().slice(0, 80);
        return { tag: named.localName, text, target: listed ? String(registry.ids.get(listed)) : '' };
      }"""
          .replace("__COVER__", PageScripts.cover())
          .replace("__LABELS__", PageScripts.labels());

  private HitTest() {}

  /**
   * Brings {@code target} into view at once, to the viewport's middle (when it is not wholly in
   * view, or once something covers it), without the page's smooth scrolling, and, in the same
   * script, looks at it as Playwright's actionability checks would: whether it is ready for the
   * pointer now (its centre in the viewport reaches it, it is enabled and visible, and nothing
   * animates it) and, when something else is hit at its centre, what.
   */
  private static final String STATE =
      """
      (field, { key, centre }) => {
        // A form control drawn as its label (a checkbox hidden for screen readers under a styled label, a toggle
        // button made of a label) is pressed where a person presses it: on its label.
        const label = (() => {
          if (!['INPUT', 'SELECT', 'TEXTAREA'].includes(field.tagName) || !field.labels) return null;
          const b = field.getBoundingClientRect();
          const s = getComputedStyle(field);
          const hidden = b.width <= 1 || b.height <= 1 || /^rect\\(0/.test(s.clip) || s.pointerEvents === 'none'
            || (s.opacity === '0' && b.width * b.height < 64);
          if (!hidden) return null;
          return Array.from(field.labels).find((l) => {
            const lb = l.getBoundingClientRect();
            return lb.width > 1 && lb.height > 1 && getComputedStyle(l).visibility === 'visible';
          }) || null;
        })();
        const el = label || field;
        // Instantly, whatever the page's scroll-behavior: what is measured next is where it stays.
        const r = el.getBoundingClientRect();
        const inView = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
        if (centre || !inView) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
        // Where a person presses it: its centre, or a visible point of it when something covers the centre.
        const at = (__COVER__)(el, (__LABELS__)());
        if (at && at.cover) return { cover: (__COVER_OF__)(el, key), ready: false };
        if (!at) return { cover: null, ready: false };
        const { x, y } = at;
        // The point inside the element's box, for Playwright's own press when it is not the centre (a control drawn
        // as its label is pressed by the pointer only).
        const b = el.getBoundingClientRect();
        const centred = Math.abs(x - (b.left + b.width / 2)) < 1 && Math.abs(y - (b.top + b.height / 2)) < 1;
        const offset = centred || el !== field ? null : { x: x - b.left - el.clientLeft, y: y - b.top - el.clientTop };
        const style = getComputedStyle(el);
        const enabled = !field.matches(':disabled') && !field.closest('[aria-disabled="true"]');
        const still = !document.getAnimations().some((a) => {
          const t = a.effect && a.effect.target;
          return a.playState === 'running' && t instanceof Element && (t === el || t.contains(el));
        });
        return { cover: null, ready: at.inside && enabled && still && style.visibility === 'visible', x, y, offset };
      }"""
          .replace("__COVER_OF__", COVER)
          .replace("__COVER__", PageScripts.cover())
          .replace("__LABELS__", PageScripts.labels());

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
   * A script that resolves an element with {@code observe} (observe.js) and, in the same turn,
   * brings it into view and looks at it as {@link #requireUncovered} does: {@code {stale: true}}
   * when it is gone, its centre {@code {x, y}} when it is ready for the pointer, else nothing.
   */
  static String readyPointOf(String observe) {
    return """
          (request) => {
            const el = (__OBSERVE__)(request);
            if (!el) return { stale: true };
            const state = (__STATE__)(el, { key: request.key, centre: false });
            return state.ready ? { x: state.x, y: state.y } : {};
          }"""
        .replace("__STATE__", STATE)
        .replace("__OBSERVE__", observe);
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
