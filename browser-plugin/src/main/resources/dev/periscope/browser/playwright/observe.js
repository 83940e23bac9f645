// Runs inside Chromium. Observes the page (ranked, filtered to the requested tiers, cut to the budget) or
// resolves one element by its identity and fingerprint. Only bounded, value-free data crosses back: never raw
// HTML, never a field's value (but where an accessible name takes in a control inside a label, never a password's).
// Nothing is written into the page's DOM.
(request) => {
  const SELECTOR = request.selector;
  const RECORD_TAGS = ['LI', 'ARTICLE', 'TR', 'DT', 'DD', 'SECTION'];
  const PAGINATION_TEXT = /^(\d+|\d+\s*[-–]\s*\d+|next|next page|prev|previous|previous page|more|show more|load more|all|first|last|older|newer|«|»|‹|›|<|>|<<|>>|下一页|上一页|次へ|前へ)$/i;
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  const implicitRole = (el) => {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    if (tag === 'a') return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') {
      if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      if (type === 'range') return 'slider';
      if (type === 'search') return 'searchbox';
      return 'textbox';
    }
    return 'generic';
  };
  // The accessible name (names.js): what the observation calls an element, and a separate hint for a field with
  // no name from what a user sees beside it.
  const NAMES = __NAMES__;
  const names = new Map();
  // An element without semantics that is clickable is named from its text, then its title or an image's alt.
  // Text of only symbols (an icon font's glyph, an arrow) says less than a title.
  // aria-labelledby goes first, as the accessible-name computation has it.
  const plainName = (el) => {
    if (el.hasAttribute('aria-labelledby')) {
      const labelled = NAMES.name(el);
      if (labelled) return labelled;
    }
    const img = el.querySelector('img[alt],svg title');
    const text = clean(el.innerText);
    const words = /[\p{L}\p{N}]/u.test(text);
    return clean(el.getAttribute('aria-label')) || (words ? text : '') || clean(el.getAttribute('title'))
      || clean(el.getAttribute('alt')) || (img ? clean(img.getAttribute('alt') || img.textContent) : '') || text;
  };
  const nameOf = (el) => {
    let n = names.get(el);
    if (n === undefined) {
      n = (clickables.has(el) ? plainName(el) || NAMES.name(el) : NAMES.name(el)).slice(0, 200);
      names.set(el, n);
    }
    return n;
  };
  const external = (el) => {
    const href = el.getAttribute('href') || (el.form && el.form.getAttribute('action'));
    if (!href) return false;
    try {
      const p = new URL(href, document.baseURI).protocol;
      return !['http:', 'https:', 'javascript:', 'blob:', 'data:', 'about:'].includes(p);
    } catch (e) { return false; }
  };
  const opensNewPage = (el) => {
    const target = (el.getAttribute('target') || (el.form && el.form.getAttribute('target')) || '').toLowerCase();
    return target !== '' && target !== '_self' && target !== '_parent' && target !== '_top';
  };
  // What must still hold when the element is acted on. A clickable's role is not in it, being read from how it
  // looks (a hover changes that); its record's label is, so a node a list recycled for another record is stale.
  const fingerprintOf = (el) => {
    const tag = el.tagName.toLowerCase();
    const record = recordOf(el);
    return JSON.stringify({
      tag, role: clickables.has(el) ? 'clickable' : roleOf(el), record: record ? recordLabel(record).slice(0, 60) : null,
      inputType: tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : null,
      name: nameOf(el), opensNewPage: opensNewPage(el), downloads: el.hasAttribute('download'),
      externalProtocol: external(el)
    });
  };
  // Each observed element gets an identity in a registry under a name only this environment knows, so a target
  // names the very node that was observed: an identical node that slid into its place is a different node.
  let registry = window[request.key];
  if (!registry) {
    registry = { ids: new WeakMap(), next: 1, blocked: [], closedRoots: new WeakMap() };
    Object.defineProperty(window, request.key, { value: registry, enumerable: false });
  }
  if (!registry.byId) registry.byId = new Map();
  const identity = (el) => {
    let id = registry.ids.get(el);
    if (!id) {
      id = registry.next++;
      registry.ids.set(el, id);
    }
    // Dropped while the node was out of the document, it comes back with the node.
    if (!registry.byId.has(id)) registry.byId.set(id, new WeakRef(el));
    return id;
  };
  const clickables = new Set();
  // Shadow roots, open and closed, are walked as part of the page (shadow.js): an element in one is a candidate
  // like any other, and its host's ancestors are its ancestors.
  const { shadowOf, closestAcross } = (__SHADOW__)(registry);
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const containsAcross = (outer, inner) => {
    for (let n = inner; n; n = up(n)) if (n === outer) return true;
    return false;
  };
  const shadowRoots = [];
  const roleOf = (el) => {
    const explicit = el.getAttribute('role');
    if (explicit && explicit !== 'generic' && explicit !== 'presentation' && explicit !== 'none') return explicit;
    if (clickables.has(el)) return looksLikeLink(el) ? 'link' : 'button';
    return implicitRole(el);
  };
  // What a clickable without semantics looks like: an anchor without href, or inline text set apart by its
  // underline or colour, is a link; anything else a button.
  const looksLikeLink = (el) => {
    if (el.localName === 'a') return true;
    const s = getComputedStyle(el);
    if (s.display !== 'inline') return false;
    return s.textDecorationLine.includes('underline')
      || (el.parentElement !== null && s.color !== getComputedStyle(el.parentElement).color);
  };

  // A record: the nearest ancestor that repeats among at least three same-tag siblings. A dd belongs with the
  // dt before it, so a dt/dd pair is one record.
  const recordIds = new Map();
  // Each element's record and each record's label, worked out once per call: ranking, grouping and fingerprints
  // all ask.
  const records = new Map();
  const labels = new Map();
  const recordOf = (el) => {
    if (!records.has(el)) records.set(el, findRecord(el));
    return records.get(el);
  };
  const recordLabel = (record) => {
    if (!labels.has(record)) labels.set(record, labelOf(record));
    return labels.get(record);
  };
  const findRecord = (el) => {
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      const isRecordTag = RECORD_TAGS.includes(node.tagName)
        || ['listitem', 'article'].includes(node.getAttribute('role'));
      if (!isRecordTag || !node.parentElement) continue;
      const tag = node.tagName === 'DD' ? 'DT' : node.tagName;
      const siblings = Array.from(node.parentElement.children).filter((c) => c.tagName === tag);
      if (siblings.length < 3) continue;
      let record = node;
      if (node.tagName === 'DD') {
        let prev = node.previousElementSibling;
        while (prev && prev.tagName !== 'DT') prev = prev.previousElementSibling;
        if (prev) record = prev;
      }
      return record;
    }
    return null;
  };
  const labelOf = (record) => {
    if (record.tagName === 'DT') return clean(record.innerText).slice(0, 160);
    const scope = [record];
    if (record.tagName === 'DT') {
      for (let n = record.nextElementSibling; n && n.tagName === 'DD'; n = n.nextElementSibling) scope.push(n);
    }
    for (const part of scope) {
      const heading = part.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]');
      if (heading) return clean(heading.innerText).slice(0, 160);
    }
    for (const part of scope) {
      const title = part.querySelector('.title,[class*=title],[itemprop=name]');
      if (title) return clean(title.innerText).slice(0, 160);
    }
    return clean(scope.map((p) => p.innerText).join(' ')).slice(0, 160);
  };
  const recordTitleLink = (record) => {
    const scope = [record];
    if (record.tagName === 'DT') {
      for (let n = record.nextElementSibling; n && n.tagName === 'DD'; n = n.nextElementSibling) scope.push(n);
    }
    for (const part of scope) {
      const inHeading = part.querySelector('h1 a[href],h2 a[href],h3 a[href],h4 a[href],h5 a[href],h6 a[href],'
        + '.title a[href],a.title[href],[itemprop=name] a[href]');
      if (inHeading) return inHeading;
    }
    for (const part of scope) {
      const first = part.querySelector('a[href]');
      if (first) return first;
    }
    return null;
  };

  if (request.resolve !== undefined) {
    const ref = registry.byId.get(Number(request.resolve));
    const el = ref && ref.deref();
    if (!el || !el.isConnected || registry.ids.get(el) !== Number(request.resolve)) return null;
    if (request.clickable) clickables.add(el);
    return fingerprintOf(el) === request.fingerprint ? el : null;
  }
  // Identities of nodes that left the document are dropped now and then, so the registry stays bounded.
  if (registry.byId.size > 20000) {
    for (const [id, ref] of registry.byId) {
      const el = ref.deref();
      if (!el || !el.isConnected) registry.byId.delete(id);
    }
  }

  // Candidates, in document order: elements with interactive semantics, and elements without any that a person
  // can click: a click, mousedown or pointerdown handler (an attribute, a property, or a listener the provider
  // found and put in registry.listened), a tabindex, or cursor:pointer of their own (not inherited from a
  // parent that has it).
  const semantic = new Set(document.querySelectorAll(SELECTOR));
  const listened = registry.listened;
  const NOT_CLICKABLE = new Set(['html', 'body', 'head', 'script', 'style', 'label', 'option', 'optgroup',
    'datalist', 'template', 'noscript', 'br', 'hr', 'iframe', 'frame', 'audio',
    'source', 'track', 'map', 'area', 'path', 'g', 'use', 'rect', 'circle', 'line', 'polygon', 'polyline', 'ellipse',
    'title', 'defs', 'tspan', 'text']);
  const handled = (el) => !!(el.onclick || el.onmousedown || el.onpointerdown) || (listened && listened.has(el));
  const candidates = [];
  const viewportArea = Math.max(1, innerWidth * innerHeight);
  // Each element's cursor, kept as the walk goes down, so a child compares with its parent without asking again.
  const cursors = new Map();
  const cursorOf = (el) => {
    let c = cursors.get(el);
    if (c === undefined) { c = el ? getComputedStyle(el).cursor : ''; cursors.set(el, c); }
    return c;
  };
  const visit = (el) => {
    if (semantic.has(el)) { candidates.push(el); return; }
    if (NOT_CLICKABLE.has(el.localName)) return;
    const s = getComputedStyle(el);
    if (s.display === 'none') return;
    cursors.set(el, s.cursor);
    const own = handled(el);
    const tabbable = el.hasAttribute('tabindex') && el.getAttribute('tabindex') !== '-1';
    const pointer = s.cursor === 'pointer' && cursorOf(up(el)) !== 'pointer';
    // What can be dragged: an element made draggable, or one that shows the grab or move cursor of its own.
    const grabbable = el.getAttribute('draggable') === 'true'
      || ((s.cursor === 'grab' || s.cursor === 'move') && cursorOf(up(el)) !== s.cursor);
    if (own || tabbable || pointer || grabbable || (el.hasAttribute('tabindex') && s.cursor === 'pointer')) {
      candidates.push(el);
      clickables.add(el);
    }
  };
  // In document order: a host, then what its shadow root holds, then its own children.
  const walk = (start) => {
    const walker = document.createTreeWalker(start, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.currentNode; el; el = walker.nextNode()) {
      if (el.nodeType !== 1) continue;
      visit(el);
      const root = shadowOf(el);
      if (root) {
        shadowRoots.push(root);
        for (const s of root.querySelectorAll(SELECTOR)) semantic.add(s);
        walk(root);
      }
    }
  };
  if (document.body) walk(document.body);
  const shownCache = new Map();
  const isShown = (el) => {
    let v = shownCache.get(el);
    if (v === undefined) { v = visible(el); shownCache.set(el, v); }
    return v;
  };
  // A clickable without semantics that holds other shown clickables and no text of its own delegates their clicks
  // (a menu's handler), as does one that holds many or most of the page (a framework's root, a region with a
  // tabindex): it is not a target of its own. A full-page overlay that holds none is one.
  const within = new Map();
  const candidateSet = new Set(candidates);
  const nearestCandidateAncestor = (el) => {
    for (let n = up(el); n; n = up(n)) if (candidateSet.has(n)) return n;
    return null;
  };
  for (const el of candidates) {
    if (!isShown(el)) continue;
    for (let n = up(el); n; n = up(n)) {
      if (clickables.has(n)) within.set(n, (within.get(n) || 0) + 1);
    }
  }
  const dropped = new Set();
  for (const el of clickables) {
    const inside = within.get(el) || 0;
    if (inside < 2) continue;
    const r = el.getBoundingClientRect();
    if (inside >= 10 || r.width * r.height >= 0.4 * viewportArea) { dropped.add(el); continue; }
    let inner = 0;
    for (const c of candidates) {
      if (c !== el && containsAcross(el, c) && isShown(c) && nearestCandidateAncestor(c) === el) {
        inner += clean(c.textContent).length;
      }
    }
    if (clean(el.textContent).length <= inner + inside) dropped.add(el);
  }
  // A clickable and its nearest clickable ancestor with the same name stand for one target: the one with
  // semantics is kept, else the inner one (a click on it reaches the outer one's handler too). So is a grid's or
  // tree's item and the one link or button inside it.
  const ITEM_ROLES = ['treeitem', 'gridcell', 'option', 'menuitem', 'tab'];
  for (const el of candidates) {
    if (dropped.has(el)) continue;
    const up = nearestCandidateAncestor(el);
    if (!up || dropped.has(up)) continue;
    const bothSemantic = semantic.has(el) && semantic.has(up);
    if (bothSemantic && !ITEM_ROLES.includes(up.getAttribute('role'))) continue;
    if (!isShown(el) || nameOf(el) === '' || nameOf(el) !== nameOf(up)) continue;
    if (semantic.has(up) && !semantic.has(el)) dropped.add(el);
    else dropped.add(up);
  }

  // Pagination: a run of at least two paging links in one container, or a link marked rel=next/prev.
  const isLink = (el) => el.tagName === 'A' || roleOf(el) === 'link';
  const pagingText = (el) => { const t = clean(el.innerText || el.textContent); return t.length <= 24 && PAGINATION_TEXT.test(t); };
  const containerOf = (el) => {
    const p = el.parentElement;
    return p && (p.tagName === 'LI' || p.tagName === 'SPAN') && p.parentElement ? p.parentElement : p;
  };
  const pagingCount = new Map();
  for (const el of candidates) {
    if (!dropped.has(el) && isLink(el) && pagingText(el)) {
      const c = containerOf(el);
      pagingCount.set(c, (pagingCount.get(c) || 0) + 1);
    }
  }
  const isPagination = (el) => {
    if (!isLink(el)) return false;
    const rel = (el.getAttribute('rel') || '').toLowerCase();
    if (/\b(next|prev)\b/.test(rel)) return true;
    return pagingText(el) && (pagingCount.get(containerOf(el)) || 0) >= 2;
  };

  // Ranked first; named, fingerprinted and hit-tested only when it is kept.
  const rank = (el, ordinal) => {
    const pagination = isPagination(el);
    const record = pagination ? null : recordOf(el);
    let tier;
    let section = 'main';
    if (closestAcross(el, 'nav,header,[role=navigation],[role=banner],[role=search]')) section = 'navigation';
    else if (closestAcross(el, 'footer,[role=contentinfo]')) section = 'footer';
    else if (closestAcross(el, 'aside,[role=complementary]')) section = 'sidebar';
    if (!isLink(el) || pagination) tier = 1;
    else if (section === 'navigation') tier = 2;
    else if (record) tier = recordTitleLink(record) === el ? 3 : 5;
    else if (section === 'footer' || section === 'sidebar') tier = 5;
    else tier = 4;
    return { el, ordinal, tier, pagination, record, section };
  };
  // The element a click at the centre of el would reach instead of el, or null (cover.js).
  const coverOf = __COVER__;
  const describe = (ranked) => {
    const { el, ordinal, tier, pagination, record, section } = ranked;
    const tag = el.tagName.toLowerCase();
    const inputType = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : null;
    const role = roleOf(el);
    const clickable = clickables.has(el);
    let groupKey = null;
    let groupLabel = null;
    if (record) {
      if (!recordIds.has(record)) recordIds.set(record, 'r' + recordIds.size);
      groupKey = recordIds.get(record);
      groupLabel = recordLabel(record);
    }
    return {
      target: String(identity(el)), fingerprint: fingerprintOf(el), clickable, ordinal,
      kind: inputType ? 'input:' + inputType : clickable ? 'clickable ' + tag : (el.getAttribute('role') || tag),
      role, name: nameOf(el), hint: NAMES.hint(el).slice(0, 120), covered: coverOf(el) !== null,
      disabled: !!(el.disabled || el.getAttribute('aria-disabled') === 'true'), inputType, tier, pagination,
      section, groupKey, groupLabel
    };
  };

  const shown = [];
  candidates.forEach((el, ordinal) => { if (!dropped.has(el) && isShown(el)) shown.push(rank(el, ordinal)); });
  shown.sort((a, b) => (a.tier - b.tier) || (a.ordinal - b.ordinal));
  const tiers = request.tiers || [1, 2, 3, 4, 5];
  const wanted = shown.filter((e) => tiers.includes(e.tier));
  const kept = wanted.slice(0, Math.max(0, request.maxElements)).map(describe);
  // What this observation listed, so that a click's hit test can name the element in the way by its target.
  registry.listed = new WeakSet(kept.map((e) => registry.byId.get(Number(e.target)).deref()));
  // A challenge the page shows (challenge.js), looked for in the main document only: it sees the frames' elements.
  // A page that trips it up is observed without one.
  let challenge = null;
  if (request.drainGuards) {
    try {
      challenge = (__CHALLENGE__)(kept.map((e) => ({ el: registry.byId.get(Number(e.target)).deref(),
        target: e.target, covered: e.covered })), shown.map((r) => r.el), shadowRoots, coverOf);
    } catch (e) {
      challenge = null;
    }
  }
  // The page's text, and then what its shadow roots show (innerText stops at a shadow root): each root's own
  // children, whose text leaves out what is slotted into them (already in the page's) and nested roots (in turn).
  let body = document.body ? document.body.innerText : '';
  for (const root of shadowRoots) {
    for (const child of root.children) {
      const t = child.innerText;
      if (t && t.trim()) body += '\n' + t;
    }
  }
  // What the document's guards recorded since they were last read, taken in this same turn (as the provider's
  // own read does: the record empties, the navigation mark clears).
  let guards;
  if (request.drainGuards) {
    guards = { blocked: registry.blocked.slice(), navigated: !!registry.navigated };
    registry.blocked.length = 0;
    registry.navigated = false;
    registry.opened = 0;
    registry.downloading = 0;
  }
  return {
    guards,
    url: location.href,
    title: document.title,
    text: body.slice(0, Math.max(0, request.maxTextChars)),
    totalTextChars: body.length,
    elements: kept,
    elementsTruncated: wanted.length > Math.max(0, request.maxElements),
    totalElements: shown.length,
    challenge
  };
}
