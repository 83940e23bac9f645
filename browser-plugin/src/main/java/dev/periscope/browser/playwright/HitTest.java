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
 * actionability wait running into the action timeout. On the driver's thread.
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
        const hit = (__COVER__)(el);
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
          .replace("__COVER__", PageScripts.cover());

  private HitTest() {}

  /**
   * Returns when the pointer at the centre of {@code target} would reach it; fails {@code
   * BROWSER_TARGET_COVERED} when something else still covers its centre after {@value #SETTLE_MS}
   * ms, naming that element (its ref goes where the message says {@link BrowserException#REF}) and
   * what it would take ({@code "the click"}, {@code "the pointer"}).
   */
  static void requireUncovered(
      Page page, ElementHandle target, ProviderElement element, String registryKey, String what) {
    target.scrollIntoViewIfNeeded();
    long deadline = System.nanoTime() + SETTLE_MS * 1_000_000L;
    boolean centred = false;
    while (true) {
      @SuppressWarnings("unchecked")
      Map<String, Object> cover = (Map<String, Object>) target.evaluate(COVER, registryKey);
      if (cover == null) {
        return;
      }
      if (!centred) {
        // A sticky header or footer covers what sits at the viewport's edge: the middle is clear of
        // it.
        target.evaluate("(el) => el.scrollIntoView({ block: 'center', inline: 'center' })");
        centred = true;
        continue;
      }
      if (System.nanoTime() >= deadline) {
        throw covered(page, element, cover, what);
      }
      page.waitForTimeout(POLL_MS);
    }
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
                    + "\" is covered at its centre by "
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
