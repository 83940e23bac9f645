// Runs inside Chromium, on an element handle, before the pointer presses it (HitTest): brings it into view and
// looks at it as Playwright's actionability checks would, and names what covers it.

import { coverAt } from './cover.js';
import { makeLabelsOf } from './labels.js';

// Null when a click at the centre of the element's first box reaches it (or the point is outside the viewport, for
// Playwright to scroll to); else the element in the way, named by the nearest element the latest observation
// listed when there is one.
export const coverInTheWay = (el, key) => {
  const at = coverAt(el, makeLabelsOf());
  const hit = at && at.cover;
  if (!hit) return null;
  const registry = window[key];
  let listed = null;
  for (let n = hit; n && !listed; n = n.parentElement) {
    if (registry && registry.listed && registry.listed.has(n)) listed = n;
  }
  const named = listed || hit;
  const text = (named.getAttribute('aria-label') || named.innerText || named.getAttribute('title') || '')
    .replace(/\s+/g, ' ').trim().slice(0, 80);
  return { tag: named.localName, text, target: listed ? String(registry.ids.get(listed)) : '' };
};

// Brings the field into view at once, to the viewport's middle (when it is not wholly in view, or when centre asks:
// once something covers it), without the page's smooth scrolling, and, in the same turn, looks at it: whether it is
// ready for the pointer now (its centre in the viewport reaches it, it is enabled and visible, and nothing animates
// it) and, when something else is hit at its centre, what.
export const pointerState = (field, { key, centre }) => {
  // A form control drawn as its label (a checkbox hidden for screen readers under a styled label, a toggle
  // button made of a label) is pressed where a person presses it: on its label.
  const label = (() => {
    if (!['INPUT', 'SELECT', 'TEXTAREA'].includes(field.tagName) || !field.labels) return null;
    const b = field.getBoundingClientRect();
    const s = getComputedStyle(field);
    const hidden = b.width <= 1 || b.height <= 1 || /^rect\(0/.test(s.clip) || s.pointerEvents === 'none'
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
  const at = coverAt(el, makeLabelsOf());
  if (at && at.cover) return { cover: coverInTheWay(el, key), ready: false };
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
};

export default pointerState;
