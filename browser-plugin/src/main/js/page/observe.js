// Runs inside Chromium. Observes the page as a person sees it (what is in sight, ranked, filtered to the requested
// tiers, cut to the budget; each control's state; repeated structures as records; the text without what is hidden)
// or resolves one element by its identity and fingerprint. Only bounded data crosses back: never raw HTML, never a
// password field's value or that of a field a credential was filled into (state.js), a field's value cut to a bound.
// Nothing is written into the page's DOM.

import { findChallenge } from './challenge.js';
import { coverAt } from './cover.js';
import { makeIconFor } from './icons.js';
import { makeLabelsOf } from './labels.js';
import { listingRole } from './listing-role.js';
import { makeNames } from './names.js';
import { makeRecords } from './records.js';
import { makeSeen } from './seen.js';
import { shadowWalk } from './shadow.js';
import { makeStateOf } from './state.js';
import { makeText } from './text.js';

const observe = (request) => {
  const SELECTOR = request.selector;
  const PAGINATION_TEXT = /^(\d+|\d+\s*[-–]\s*\d+|next|next page|prev|previous|previous page|more|show more|load more|all|first|last|older|newer|«|»|‹|›|<|>|<<|>>|下一页|上一页|次へ|前へ)$/i;
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  // The accessible name (names.js): what the observation calls an element, and a separate hint for a field with
  // no name from what a user sees beside it.
  const NAMES = makeNames();
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
  // Content hidden from assistive technology but in sight (aria-hidden) is named by what a person reads on it.
  const ariaHidden = (el) => !!closestAcross(el, '[aria-hidden=true]');
  const nameOf = (el) => {
    let n = names.get(el);
    if (n === undefined) {
      // A datalist's option is named by the value it puts in its field (its label is its hint).
      if (el.localName === 'option' && el.closest('datalist')) n = clean(el.value) || clean(el.label);
      else n = clickables.has(el) ? plainName(el) || NAMES.name(el) : NAMES.name(el);
      if (!n && ariaHidden(el)) n = plainName(el);
      // An icon font's glyph is a private-use character that says nothing in words: it is no part of a name (a
      // folder's icon before its name), and a name of nothing else is none.
      if (/[\uE000-\uF8FF]/.test(n)) n = n.replace(/[\uE000-\uF8FF]/g, ' ').replace(/\s+/g, ' ').trim();
      n = n.slice(0, 200);
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
    return JSON.stringify({
      tag, role: clickables.has(el) ? 'clickable' : roleOf(el), record: RECORDS.structuralTitle(el),
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
  // The fields a credential was filled into: their values are never read.
  if (!registry.secrets) registry.secrets = new WeakSet();
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
  // The suggestions of a focused field's datalist that this observation lists.
  const suggested = new Set();
  // Shadow roots, open and closed, are walked as part of the page (shadow.js): an element in one is a candidate
  // like any other, and its host's ancestors are its ancestors.
  const { shadowOf, closestAcross } = shadowWalk(registry);
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
    return listingRole(el);
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

  // What a person can see (seen.js), the page's text as a person reads it (text.js) and records (records.js).
  // An element's labels, found once for the whole page (labels.js).
  const labelsOf = makeLabelsOf();
  const SEEN = makeSeen();
  const styleOf = SEEN.style;
  const TEXT = makeText({ style: styleOf, clean, labelsOf });
  const RECORDS = makeRecords({ clean, textOf: TEXT.textOf, nameOf: (el) => nameOf(el), labelsOf });

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
  // can click: a handler a person's hands trigger (click, double-click, mouse or pointer down or up, context menu,
  // touch: an attribute, a property, or a listener the provider found and put in registry.listened; keydown on a
  // focusable element, registry.keyed), the text of an item of a list that handles its items' events, a tabindex,
  // or cursor:pointer of their own (not inherited from a parent that has it). Only what a person can see is a
  // candidate (seen.js): the walk does not go into what is not rendered or hidden from sight, and leaves that out of
  // the page's text too.
  const semantic = new Set(document.querySelectorAll(SELECTOR));
  const listened = registry.listened;
  const NOT_CLICKABLE = new Set(['html', 'body', 'head', 'script', 'style', 'label', 'option', 'optgroup',
    'datalist', 'template', 'noscript', 'br', 'hr', 'iframe', 'frame', 'audio',
    'source', 'track', 'map', 'area', 'path', 'g', 'use', 'rect', 'circle', 'line', 'polygon', 'polyline', 'ellipse',
    'title', 'defs', 'tspan', 'text']);
  const keyed = registry.keyed;
  const handled = (el) => !!(el.onclick || el.onmousedown || el.onpointerdown || el.ondblclick || el.onmouseup
    || el.onpointerup || el.oncontextmenu) || (listened && listened.has(el))
    || (keyed && keyed.has(el) && (el.hasAttribute('tabindex') || el.isContentEditable));
  // A list whose one listener handles its items' events (a to-do list edited by double-clicking an item's label, a
  // table whose rows open on a click) is no target itself: each item's own text (a label, a title, a cell), up to
  // DELEGATE_DEPTH levels below it, is, named by that text alone. Its items repeat: two or more children of one
  // shape (a tag and its first class that does not say a state, as records.js sees them), most of its children.
  const DELEGATE_DEPTH = 4;
  const DELEGATED_PER_LIST = 200;
  const delegators = new Map();
  const delegates = (n) => {
    let d = delegators.get(n);
    if (d === undefined) {
      d = null;
      if (handled(n) && !semantic.has(n) && n !== document.body && n !== document.documentElement) {
        const kids = n.children;
        const counts = new Map();
        for (const k of kids) counts.set(RECORDS.shapeOf(k), (counts.get(RECORDS.shapeOf(k)) || 0) + 1);
        const most = Math.max(0, ...counts.values());
        if (most >= 2 && most >= 0.6 * kids.length) d = { taken: 0 };
      }
      delegators.set(n, d);
    }
    return d;
  };
  const taken = new Set();
  const ownText = (el) => Array.from(el.childNodes).some((t) => t.nodeType === 3 && t.data.trim() !== '');
  // An item with a link of its own (an inbox row's subject) is opened by that link: its other text is not listed.
  const linked = new Map();
  const hasLink = (item) => {
    if (!linked.has(item)) linked.set(item, !!item.querySelector('a[href]'));
    return linked.get(item);
  };
  const delegatedText = (el) => {
    if (!ownText(el) || (el.localName === 'label' && el.control)) return false;
    let item = el;
    let n = up(el);
    for (let depth = 0; n && depth < DELEGATE_DEPTH; depth++, item = n, n = up(n)) {
      const list = delegates(n);
      if (list) {
        if (list.taken >= DELEGATED_PER_LIST || hasLink(item)) return false;
        list.taken++;
        return true;
      }
      if (taken.has(n)) return false;
    }
    return false;
  };
  const candidates = [];
  const viewportArea = Math.max(1, innerWidth * innerHeight);
  const cursorOf = (el) => (el ? styleOf(el).cursor : '');
  const take = (el) => {
    candidates.push(el);
    clickables.add(el);
    taken.add(el);
  };
  const visit = (el) => {
    if (semantic.has(el)) { candidates.push(el); taken.add(el); return; }
    if (NOT_CLICKABLE.has(el.localName)) {
      if (el.localName === 'label' && delegatedText(el)) take(el);
      return;
    }
    const s = styleOf(el);
    const own = handled(el);
    const tabbable = el.hasAttribute('tabindex') && el.getAttribute('tabindex') !== '-1';
    const pointer = s.cursor === 'pointer' && cursorOf(up(el)) !== 'pointer';
    // What can be dragged: an element made draggable, or one that shows the grab or move cursor of its own.
    const grabbable = el.getAttribute('draggable') === 'true'
      || ((s.cursor === 'grab' || s.cursor === 'move') && cursorOf(up(el)) !== s.cursor);
    if (own || tabbable || pointer || grabbable || (el.hasAttribute('tabindex') && s.cursor === 'pointer')
      || delegatedText(el)) {
      take(el);
    }
  };
  // A form control drawn over by a look of the page's own (a checkbox that is only its styled label, a select under
  // a button) is hidden from sight itself, but a person sees it through its label.
  const FIELD_TAGS = new Set(['input', 'select', 'textarea']);
  const labelSeen = (el) => FIELD_TAGS.has(el.localName) ? labelsOf(el)
    .find((l) => !SEEN.hiddenFromSight(l) && l.getBoundingClientRect().width > 0) || null : null;
  // So is one made transparent over a drawing of its own (TodoMVC's round checkbox): it takes the clicks where
  // it lies, at a size a person can hit.
  const drawnOver = (el) => {
    if (!FIELD_TAGS.has(el.localName) || styleOf(el).opacity !== '0') return false;
    const r = el.getBoundingClientRect();
    if (r.width < 8 || r.height < 8) return false;
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    const hit = (el.getRootNode().elementFromPoint ? el.getRootNode() : document).elementFromPoint(x, y);
    return hit === el;
  };
  const throughLabel = new Map();
  const seenThroughLabel = (el) => {
    const label = labelSeen(el);
    if (label) throughLabel.set(el, label);
    return !!label || drawnOver(el);
  };
  const LIGATURE = /(?:^|\s)(?:material-icons|material-symbols)(?:-[\w-]+)?(?:\s|$)/;
  const accept = (el) => {
    if (styleOf(el).display === 'none') return NodeFilter.FILTER_REJECT;
    if (SEEN.hiddenFromSight(el)) {
      TEXT.exclude(el);
      return seenThroughLabel(el) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
    }
    // A select's options are its state; an icon font's ligature (<i class="material-icons">delete</i>) is drawn as
    // an icon, not read as a word.
    if (el.localName === 'select' || (el.classList.length && LIGATURE.test(el.className))) TEXT.exclude(el);
    return NodeFilter.FILTER_ACCEPT;
  };
  // In document order: a host, then what its shadow root holds, then its own children.
  const walk = (start) => {
    const walker = document.createTreeWalker(start, NodeFilter.SHOW_ELEMENT, { acceptNode: accept });
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

  let shownEls = [];
  candidates.forEach((el) => { if (!dropped.has(el) && isShown(el)) shownEls.push(el); });
  // Records (records.js) are found among what is shown: what each repeating ancestor holds decides whether it is
  // one. A field counts apart from other controls, so that a form's rows are not records.
  const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'switch', 'spinbutton',
    'slider', 'listbox']);
  const holders = new Set(Array.from(within.keys()).filter((el) => candidateSet.has(el) && !dropped.has(el)));
  RECORDS.index(shownEls, (el) => (isLink(el) ? 'link' : FIELD_ROLES.has(roleOf(el)) ? 'field' : 'control'), holders);
  // A clickable record (an inbox row that opens its message) whose title link is shown is that link's target too:
  // the link stands for it, and the row is not listed beside it under a name that is all of its text.
  const shownSet = new Set(shownEls);
  shownEls = shownEls.filter((el) => !(holders.has(el) && clickables.has(el) && RECORDS.recordOf(el) === el
    && shownSet.has(RECORDS.titleLinkOf(el))));
  // A link that says nothing (a product's picture) and goes where a named link goes (its title) is that link again.
  // Its text is looked at first: the accessible name is worked out only for a link whose text says nothing.
  const linkTo = (el) => (el.tagName === 'A' && typeof el.href === 'string' ? el.href : '');
  const says = (el) => /[\p{L}\p{N}]/u.test(el.textContent || '') || nameOf(el) !== '';
  const bare = new Set(shownEls.filter((el) => linkTo(el) && !says(el)));
  if (bare.size > 0) {
    const places = new Set(Array.from(bare, linkTo));
    const named = new Set(shownEls.filter((el) => !bare.has(el) && places.has(linkTo(el)) && says(el)).map(linkTo));
    shownEls = shownEls.filter((el) => !(bare.has(el) && named.has(linkTo(el))));
  }
  // A focused field with a datalist shows its suggestions under it, in a popup of the browser's own that is not part
  // of the page: the options whose value or label holds what was typed (any case), at most SUGGESTIONS, listed right
  // after the field as options to click (a click chooses one, as a person's does). None while the field is empty or
  // holds an option's value exactly (choosing one closes the popup).
  const SUGGESTIONS = 20;
  let focused = document.activeElement;
  while (focused && shadowOf(focused) && shadowOf(focused).activeElement) focused = shadowOf(focused).activeElement;
  const suggesting = focused instanceof HTMLInputElement && focused.list instanceof HTMLDataListElement
    && !focused.disabled && !focused.readOnly && focused.value !== '' && shownEls.includes(focused) ? focused : null;
  if (suggesting) {
    const options = Array.from(suggesting.list.options).filter((o) => !o.disabled && o.value !== '');
    const typed = suggesting.value.toLowerCase();
    if (!options.some((o) => o.value === suggesting.value)) {
      const matches = options.filter((o) => o.value.toLowerCase().includes(typed)
        || clean(o.label).toLowerCase().includes(typed)).slice(0, SUGGESTIONS);
      matches.forEach((o) => suggested.add(o));
      shownEls.splice(shownEls.indexOf(suggesting) + 1, 0, ...matches);
    }
  }
  // Where an element sits: the page's header and navigation (landmarks, and the header bars sites mark by class or
  // id), its footer, a sidebar, or the main content.
  const HEADER = 'nav,header,[role=navigation],[role=banner],[role=search],[role=menubar],#header,#masthead,#nav,'
    + '#navbar,#topbar,.header,.site-header,.page-header,.masthead,.navbar,.nav-bar,.topbar,.top-bar,.main-nav,'
    + '.site-nav,.main-header,.global-header';
  const FOOTER = 'footer,[role=contentinfo],#footer,.footer,.site-footer,.page-footer,.main-footer,.global-footer';
  const SIDEBAR = 'aside,[role=complementary],#sidebar,.sidebar,.side-bar';
  const SECTION_ORDER = { navigation: 0, main: 1, sidebar: 2, footer: 3 };
  // Each element's section, from the nearest ancestor that says one (across shadow roots), asked once a node.
  const sections = new Map();
  const sectionOf = (node) => {
    if (!node || node === document.body || node === document.documentElement) return 'main';
    let s = sections.get(node);
    if (s === undefined) {
      if (node.matches(HEADER)) s = 'navigation';
      else if (node.matches(FOOTER)) s = 'footer';
      else if (node.matches(SIDEBAR)) s = 'sidebar';
      else s = sectionOf(up(node));
      sections.set(node, s);
    }
    return s;
  };
  // The links of the bar at the top of the page (cart, account, sign in, the menu's first entries) rank with its
  // buttons, ahead of the main content's many controls: a summary never leaves them out. At most TOP_BAR of them.
  const TOP_BAR = 12;
  // As many elements as a summary shows on its first page.
  const FEW = 40;
  let topBarLinks = 0;
  const topBar = (el, section) => {
    if (section !== 'navigation' || topBarLinks >= TOP_BAR) return false;
    if (el.getBoundingClientRect().top + scrollY > 200) return false;
    topBarLinks++;
    return true;
  };
  // Ranked first; named, fingerprinted and hit-tested only when it is kept.
  const rank = (el, ordinal) => {
    if (suggested.has(el)) {
      return { el, ordinal, tier: 1, pagination: false, record: null, section: sectionOf(suggesting) };
    }
    const pagination = isPagination(el);
    const record = pagination ? null : RECORDS.recordOf(el);
    let tier;
    const section = sectionOf(el);
    // A link drawn only as an icon (share, bookmark) is a control, not a link to read.
    const iconOnly = isLink(el) && !/\p{L}/u.test(el.textContent || '') && iconOf(el, nameOf(el));
    if (!isLink(el) || pagination || iconOnly || topBar(el, section)) tier = 1;
    else if (section === 'navigation') tier = 2;
    else if (record) tier = RECORDS.titleLinkOf(record) === el ? 3 : 5;
    else if (section === 'footer' || section === 'sidebar') tier = 5;
    else tier = 4;
    return { el, ordinal, tier, pagination, record, section };
  };
  // The element a click would reach instead of el when no point of el is in sight, or null (cover.js).
  const coverOf = (el) => {
    const at = coverAt(el, labelsOf);
    return (at && at.cover) || null;
  };
  const stateOf = makeStateOf({ nameOf, clean, maxValue: request.maxValueChars || 456,
    seen: (n) => !SEEN.hiddenFromSight(n) && visible(n), secret: (n) => registry.secrets.has(n) });
  // What the icon of an element depicts, when its name says nothing in words (none, or a count).
  const iconFor = makeIconFor();
  const icons = new Map();
  const iconOf = (el, name) => {
    if (/\p{L}/u.test(name)) return '';
    if (!icons.has(el)) icons.set(el, iconFor(el));
    return icons.get(el);
  };
  const recordKeys = new Map();
  const keyOf = (record) => {
    if (!recordKeys.has(record)) recordKeys.set(record, 'r' + recordKeys.size);
    return recordKeys.get(record);
  };
  const describe = (ranked) => {
    const { el, ordinal, tier, pagination, record, section } = ranked;
    const tag = el.tagName.toLowerCase();
    const inputType = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : null;
    const role = roleOf(el);
    const clickable = clickables.has(el);
    const name = nameOf(el);
    const d = {
      target: String(identity(el)), fingerprint: fingerprintOf(el), clickable, ordinal,
      kind: inputType ? 'input:' + inputType : clickable ? 'clickable ' + tag : (el.getAttribute('role') || tag),
      role, name, hint: (suggested.has(el) ? (clean(el.label) !== name ? clean(el.label) : '') : NAMES.hint(el))
        .slice(0, 120), covered: coverOf(throughLabel.get(el) || el) !== null,
      disabled: !!(el.disabled || el.getAttribute('aria-disabled') === 'true'), inputType, tier, pagination,
      section, groupKey: record ? keyOf(record) : null, groupLabel: null, state: stateOf(el),
      icon: iconOf(el, name), ariaHidden: ariaHidden(el)
    };
    if (record) {
      const detail = RECORDS.detailOf(record);
      d.groupLabel = RECORDS.titleOf(record) + (detail ? ' · ' + detail : '');
    }
    return d;
  };

  const shown = shownEls.map((el, n) => rank(el, n));
  // Within a tier, what sits in the header and the main content comes before a sidebar's and the footer's.
  shown.sort((a, b) => (a.tier - b.tier) || (SECTION_ORDER[a.section] - SECTION_ORDER[b.section])
    || (a.ordinal - b.ordinal));
  // A mode leaves out tiers to keep a big page short; a page whose every element fits in a summary's page lists them
  // all (a page of one link shows that link), still in ranked order.
  const tiers = shown.length <= FEW ? [1, 2, 3, 4, 5] : request.tiers || [1, 2, 3, 4, 5];
  const wanted = shown.filter((e) => tiers.includes(e.tier));
  const keptRanked = wanted.slice(0, Math.max(0, request.maxElements));
  const kept = keptRanked.map(describe);
  // What this observation listed, so that a click's hit test can name the element in the way by its target.
  registry.listed = new WeakSet(keptRanked.map((r) => r.el));
  // The records that hold a listed element: each one's title, its short line of other text, and the target of its
  // title link when that is listed (the element a record's ref stands for).
  const listedRecords = new Map();
  const listedEls = new Map();
  keptRanked.forEach((r, n) => {
    const target = kept[n].target;
    if (r.record) {
      const key = keyOf(r.record);
      if (!listedRecords.has(r.record)) {
        listedRecords.set(r.record, { key, title: RECORDS.titleOf(r.record), detail: RECORDS.detailOf(r.record),
          titleTarget: null });
      }
      if (RECORDS.titleLinkOf(r.record) === r.el) listedRecords.get(r.record).titleTarget = target;
    }
    listedEls.set(r.el, { target, record: r.record ? keyOf(r.record) : null });
  });
  // A challenge the page shows (challenge.js), looked for in the main document only: it sees the frames' elements.
  // A page that trips it up is observed without one.
  let challenge = null;
  if (request.drainGuards) {
    try {
      challenge = findChallenge(kept.map((e, n) => ({ el: keptRanked[n].el, target: e.target, covered: e.covered })),
        shown.map((r) => r.el), shadowRoots, coverOf);
    } catch (e) {
      challenge = null;
    }
  }
  // The page's text, and then what its shadow roots show (innerText stops at a shadow root): each root's own
  // children, whose text leaves out what is slotted into them (already in the page's) and nested roots (in turn).
  let body = document.body ? TEXT.textOf(document.body) : '';
  for (const root of shadowRoots) {
    for (const child of root.children) {
      const t = TEXT.excluded.has(child) ? '' : TEXT.textOf(child);
      if (t && t.trim()) body += '\n' + t;
    }
  }
  const maxText = Math.max(0, request.maxTextChars);
  const allRecords = new Set();
  for (const r of shown) if (r.record) allRecords.add(r.record);
  const recordOwners = new Map();
  listedRecords.forEach((info, record) => recordOwners.set(record, { record: info.key }));
  const lines = maxText === 0 ? [] : TEXT.owners(body, maxText, shownEls, listedEls,
    { all: Array.from(allRecords), listed: recordOwners, titleOf: RECORDS.titleOf, detailOf: RECORDS.detailOf },
    nameOf);
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
    text: body.slice(0, maxText),
    totalTextChars: body.length,
    elements: kept,
    elementsTruncated: wanted.length > Math.max(0, request.maxElements),
    totalElements: shown.length,
    records: Array.from(listedRecords.values()),
    lines,
    challenge
  };
};

export default observe;
