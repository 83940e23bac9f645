// Runs inside Chromium, as part of observe.js. Whether a
// person can see an element, whatever its ARIA says: it is hidden from sight when it or an ancestor is transparent,
// when it is visually hidden for screen readers only (clipped to nothing, or a 1px box that hides its overflow),
// when an ancestor that hides its overflow clips it away (a carousel's other slides, a collapsed panel), or when it
// lies where no scrolling reaches (an off-canvas menu moved past the page's left or top edge, or out of the
// viewport while fixed to it). What is below the fold, or inside a region that scrolls, can be scrolled into view and
// counts as seen. Call hiddenFromSight on an element whose ancestors were asked first (a walk from the top does);
// it only reads styles and boxes, and keeps what it learns for this one evaluation.
export const makeSeen = () => {
  const EVERYWHERE = { l: -Infinity, t: -Infinity, r: Infinity, b: Infinity };
  const styles = new Map();
  const style = (el) => {
    let s = styles.get(el);
    if (s === undefined) { s = getComputedStyle(el); styles.set(el, s); }
    return s;
  };
  // The parent the element is drawn in: a slotted node's slot, a shadow root's host.
  const parentOf = (el) => el.assignedSlot || el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const isRoot = (el) => !el || el === document.documentElement || el === document.body;
  const meet = (a, b) => ({ l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) });
  const clipping = (v) => v === 'hidden' || v === 'clip';
  const scrolling = (v) => v === 'auto' || v === 'scroll';
  // What the element's children are clipped to: those in flow, and those positioned absolutely (whose containing
  // block may lie above an ancestor that clips); and whether they are fixed to the viewport.
  const clipsBelow = new Map();
  const below = (el) => {
    let c = clipsBelow.get(el);
    if (c) return c;
    if (isRoot(el)) {
      c = { flow: EVERYWHERE, abs: EVERYWHERE, fixed: false, fixedAbs: false, region: null, regionAbs: null };
    } else {
      const own = applying(el);
      const s = style(el);
      let flow = own.box;
      if (clipping(s.overflowX) || clipping(s.overflowY)) {
        const r = el.getBoundingClientRect();
        const left = r.left + el.clientLeft;
        const top = r.top + el.clientTop;
        flow = meet(flow, {
          l: clipping(s.overflowX) ? left : -Infinity, r: clipping(s.overflowX) ? left + el.clientWidth : Infinity,
          t: clipping(s.overflowY) ? top : -Infinity, b: clipping(s.overflowY) ? top + el.clientHeight : Infinity
        });
      }
      const positioned = s.position !== 'static' || s.transform !== 'none';
      const fixed = own.fixed || s.position === 'fixed';
      const above = below(parentOf(el));
      // Inside a region that scrolls (a listbox of 56 states 250 px tall), what lies past its edge is scrolled to
      // within it: the region's own scrollable area decides, not the document's (nothing at left:-10000px is).
      let region = own.region;
      if (scrolling(s.overflowX) || scrolling(s.overflowY)) {
        const r = el.getBoundingClientRect();
        const l = r.left + el.clientLeft - el.scrollLeft;
        const t = r.top + el.clientTop - el.scrollTop;
        region = { l, t, r: l + el.scrollWidth, b: t + el.scrollHeight };
      }
      c = { flow, abs: positioned ? flow : above.abs, fixed, fixedAbs: positioned ? fixed : above.fixedAbs,
        region, regionAbs: positioned ? region : above.regionAbs };
    }
    clipsBelow.set(el, c);
    return c;
  };
  // The box the element itself is clipped to, and whether it is fixed to the viewport.
  const applying = (el) => {
    const s = style(el);
    if (s.position === 'fixed') return { box: EVERYWHERE, fixed: true, region: null };
    const above = below(parentOf(el));
    return s.position === 'absolute' ? { box: above.abs, fixed: above.fixedAbs, region: above.regionAbs }
      : { box: above.flow, fixed: above.fixed, region: above.region };
  };
  // Where scrolling can bring a box into view, in the viewport's coordinates: the document's scrollable area (no
  // further than the viewport on an axis whose overflow the root hides), or the viewport for what is fixed to it.
  let reach = null;
  const reachOf = (fixed) => {
    if (fixed) return { l: 0, t: 0, r: innerWidth, b: innerHeight };
    if (!reach) {
      const root = document.scrollingElement || document.documentElement;
      const hides = (axis) => [document.documentElement, document.body].some((e) => e && clipping(style(e)[axis]));
      reach = {
        l: -scrollX, t: -scrollY,
        r: (hides('overflowX') ? root.clientWidth : root.scrollWidth) - scrollX,
        b: (hides('overflowY') ? root.clientHeight : root.scrollHeight) - scrollY
      };
    }
    return reach;
  };
  const outside = (r, box) => r.right <= box.l || r.left >= box.r || r.bottom <= box.t || r.top >= box.b;
  // Hidden for screen readers only: clipped to nothing, or shrunk to a pixel that hides what overflows it.
  const visuallyHidden = (s, r) => {
    if ((s.position === 'absolute' || s.position === 'fixed') && /^rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)$/.test(s.clip)) {
      return true;
    }
    if (/^inset\((50|100)%/.test(s.clipPath)) return true;
    return r.width <= 1 && r.height <= 1 && clipping(s.overflowX) && clipping(s.overflowY);
  };
  const hiddenCache = new Map();
  // Hidden from sight by itself, its parent being seen (asked first). Its box is read only where it could be out
  // of reach: positioned, transformed, pulled by a negative margin, or inside something that clips.
  const hiddenHere = (el, parent) => {
    const s = style(el);
    if (s.opacity === '0') return true;
    // Not rendered by its parent: the content of a closed <details>, or of content-visibility: hidden.
    if (parent && !isRoot(parent)) {
      if (parent.localName === 'details' && !parent.open && el.localName !== 'summary') return true;
      if (style(parent).contentVisibility === 'hidden') return true;
    }
    const own = applying(el);
    const moved = s.position !== 'static' || s.transform !== 'none' || s.marginLeft[0] === '-' || s.marginTop[0] === '-';
    const tiny = clipping(s.overflowX) && clipping(s.overflowY);
    if (!moved && !tiny && own.box === EVERYWHERE && !own.fixed) return false;
    const box = el.getBoundingClientRect();
    if (visuallyHidden(s, box)) return true;
    if (box.width === 0 && box.height === 0) return false; // a wrapper with nothing of its own: its children decide
    // What it draws reaches as far as its content overflows its box (a carousel's track moved left still shows
    // the slide that overflows it to the right), unless it clips that overflow.
    const r = {
      left: box.left, top: box.top,
      right: clipping(s.overflowX) ? box.right : box.left + Math.max(box.width, el.scrollWidth),
      bottom: clipping(s.overflowY) ? box.bottom : box.top + Math.max(box.height, el.scrollHeight)
    };
    if (own.box !== EVERYWHERE && outside(r, own.box)) return true;
    return outside(r, own.region || reachOf(own.fixed));
  };
  const hiddenFromSight = (el) => {
    if (isRoot(el)) return false;
    let v = hiddenCache.get(el);
    if (v === undefined) {
      const parent = parentOf(el);
      v = (!!parent && hiddenFromSight(parent)) || hiddenHere(el, parent);
      hiddenCache.set(el, v);
    }
    return v;
  };
  return { hiddenFromSight, style };
};
