// Runs inside Chromium, as part of observe.js and of a click's hit test (PageScripts puts this expression in place
// of __COVER__). The element a click at the centre of el's first box would reach instead of el, or null: also null
// when that point is outside the viewport (Playwright scrolls there first) or lands in one of el's labels.
(el) => {
  const box = Array.from(el.getClientRects()).find((b) => b.width > 0 && b.height > 0);
  if (!box) return null;
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return null;
  // Asked of the element's own tree: the page's answer would be the shadow host of an element in a shadow root.
  const scope = el.getRootNode();
  const hit = (scope && scope.elementFromPoint ? scope : document).elementFromPoint(x, y);
  // Inside el as the page is drawn: through slots (a component's slotted label is its own) and shadow hosts.
  const inside = (outer, n) => {
    for (; n; n = n.assignedSlot || n.parentNode || (n instanceof ShadowRoot ? n.host : null)) if (n === outer) return true;
    return false;
  };
  if (!hit || hit === el || inside(el, hit)) return null;
  if (el.labels && Array.from(el.labels).some((l) => inside(l, hit))) return null;
  return hit;
}
