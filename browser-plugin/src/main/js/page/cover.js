// Runs inside Chromium, as part of observe.js and of a pointer action's hit test (hit-test.js). Where a person would press el: its centre when a press there reaches el itself, else the
// middle of its own words, else the first of a few other points of its first box that does (a button half under
// another is pressed on its visible half). A point that lands on a target of its own inside el (an open folder's file,
// a link in a card) does not press el: such a point is taken only when no other does. Returns { cover: null, x, y,
// inside } for that point (inside: what it hits is el or within it, not one of its labels), { cover, x, y } with the
// element hit at the centre when no point reaches el, or null when el has no box or its centre is outside the
// viewport (Playwright scrolls there first). A point that lands in one of el's labels reaches it (labelsOf from
// labels.js, when the caller has one; el.labels otherwise).
export const coverAt = (el, labelsOf) => {
  const box = Array.from(el.getClientRects()).find((b) => b.width > 0 && b.height > 0);
  if (!box) return null;
  const cx = box.left + box.width / 2;
  const cy = box.top + box.height / 2;
  if (cx < 0 || cy < 0 || cx >= innerWidth || cy >= innerHeight) return null;
  // Asked of the element's own tree: the page's answer would be the shadow host of an element in a shadow root.
  const scope = el.getRootNode();
  const from = scope && scope.elementFromPoint ? scope : document;
  // Inside el as the page is drawn: through slots (a component's slotted label is its own) and shadow hosts.
  const inside = (outer, n) => {
    for (; n; n = n.assignedSlot || n.parentNode || (n instanceof ShadowRoot ? n.host : null)) if (n === outer) return true;
    return false;
  };
  const within = (hit) => !!hit && (hit === el || inside(el, hit));
  const reaches = (hit) => !hit || within(hit) || (labelsOf ? labelsOf(el) : Array.from(el.labels || [])).some((l) => inside(l, hit));
  // A target of its own between the point's element and el: pressing there acts on it, not on el.
  const TARGET = 'a[href],button,input,select,textarea,summary,[role=treeitem],[role=option],[role=menuitem],'
    + '[role=menuitemcheckbox],[role=menuitemradio],[role=tab],[role=link],[role=button],[role=checkbox],[role=radio],'
    + '[role=switch],[role=gridcell],[role=row]';
  const nested = (hit) => {
    for (let n = hit; n && n !== el; n = n.assignedSlot || n.parentNode || (n instanceof ShadowRoot ? n.host : null)) {
      if (n.nodeType === 1 && n.matches(TARGET)) return true;
    }
    return false;
  };
  const own = (hit) => reaches(hit) && !(hit && nested(hit));
  const centre = from.elementFromPoint(cx, cy);
  if (own(centre)) return { cover: null, x: cx, y: cy, inside: within(centre) };
  // The middle of el's first words that are its own (not a nested target's).
  if (centre && within(centre)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(), n = 0; t && n < 200; t = walker.nextNode(), n++) {
      if (!t.data.trim() || nested(t.parentNode)) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      const r = Array.from(range.getClientRects()).find((b) => b.width > 0 && b.height > 0);
      if (!r) continue;
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) break;
      const hit = from.elementFromPoint(x, y);
      if (own(hit)) return { cover: null, x, y, inside: within(hit) };
      break;
    }
  }
  // The middles of the box's four quarters, then points near its edges, a pixel and a half inside them.
  const fx = [0.25, 0.75, 0.25, 0.75, 0.5, 0.5, 0.1, 0.9];
  const fy = [0.25, 0.25, 0.75, 0.75, 0.1, 0.9, 0.5, 0.5];
  for (let i = 0; i < fx.length; i++) {
    const x = Math.min(Math.max(box.left + box.width * fx[i], box.left + 1.5), box.right - 1.5);
    const y = Math.min(Math.max(box.top + box.height * fy[i], box.top + 1.5), box.bottom - 1.5);
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    const hit = from.elementFromPoint(x, y);
    if (hit && own(hit)) return { cover: null, x, y, inside: within(hit) };
  }
  // Only points on targets inside el: its centre, as a press there reaches el's own handlers too.
  if (reaches(centre)) return { cover: null, x: cx, y: cy, inside: within(centre) };
  return { cover: centre, x: cx, y: cy };
};
