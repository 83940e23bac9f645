// Runs inside Chromium, as part of observe.js and of a pointer action's hit test (PageScripts puts this expression in
// place of __COVER__). Where a person would press el: its centre when a press there reaches it, else the first of a
// few other points of its first box that does (a button half under another is pressed on its visible half).
// Returns { cover: null, x, y, inside } for that point (inside: what it hits is el or within it, not one of its
// labels), { cover, x, y } with the element hit at the centre when no point reaches el, or null when el has no box or
// its centre is outside the viewport (Playwright scrolls there first). A point that lands in one of el's labels
// reaches it.
(el) => {
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
  const reaches = (hit) => !hit || within(hit) || (el.labels && Array.from(el.labels).some((l) => inside(l, hit)));
  const centre = from.elementFromPoint(cx, cy);
  if (reaches(centre)) return { cover: null, x: cx, y: cy, inside: within(centre) };
  // The middles of the box's four quarters, then points near its edges, a pixel and a half inside them.
  const fx = [0.25, 0.75, 0.25, 0.75, 0.5, 0.5, 0.1, 0.9];
  const fy = [0.25, 0.25, 0.75, 0.75, 0.1, 0.9, 0.5, 0.5];
  for (let i = 0; i < fx.length; i++) {
    const x = Math.min(Math.max(box.left + box.width * fx[i], box.left + 1.5), box.right - 1.5);
    const y = Math.min(Math.max(box.top + box.height * fy[i], box.top + 1.5), box.bottom - 1.5);
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    const hit = from.elementFromPoint(x, y);
    if (hit && reaches(hit)) return { cover: null, x, y, inside: within(hit) };
  }
  return { cover: centre, x: cx, y: cy };
}
