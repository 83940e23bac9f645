// Runs inside Chromium, as part of observe.js. Repeated
// structures as records, whatever their tags: the nearest ancestor of an element that repeats among its siblings of
// the same shape (tag and first class: cards in a grid, rows, tiles, feed items and inbox rows repeat as list items
// and table rows do; three or more, or two small ones such as two comments under a post; a dt and the dds after it
// are one record). Such an ancestor is a record when it holds a title and controls of its own: a heading, a link or
// text beside its controls, and more than a lone control or only form fields (a form's rows, a list of filters and a
// toolbar are not records). A record is told by its title (a heading, an element whose class says title or name,
// its title link, else its first line of text) and at most one short line of its other text (a price, a sender).
export const makeRecords = ({ clean, textOf, nameOf, labelsOf }) => {
  const MIN_SIBLINGS = 2;
  const MAX_CONTROLS = 25;
  // Two of a kind are records only when small (two comments under a post), not two halves of a page.
  const MAX_PAIR_CONTROLS = 6;
  const MAX_PAIR_TEXT = 400;
  const TITLE_CHARS = 100;
  const DETAIL_CHARS = 60;
  // Class tokens that say how a sibling looks now, not what it is.
  const STATE = /^(?:active|selected|current|open|opened|show|shown|hidden|disabled|checked|expanded|collapsed|even|odd|first|last|unread|read|new|starred|done|completed|focus|hover|is-.*|has-.*|js-.*)$/;
  const shapeCache = new Map();
  const shapeOf = (el) => {
    let shape = shapeCache.get(el);
    if (shape === undefined) { shape = shapeOfNow(el); shapeCache.set(el, shape); }
    return shape;
  };
  const shapeOfNow = (el) => {
    const tag = el.tagName === 'DD' ? 'DT' : el.tagName;
    const classes = typeof el.className === 'string' ? el.className.split(/\s+/).filter((c) => c && !STATE.test(c)) : [];
    return tag + '.' + (classes[0] || '') + (el.getAttribute('role') ? '[' + el.getAttribute('role') + ']' : '');
  };
  // Per parent: how many of its children have each shape (counted once per parent).
  const shapes = new Map();
  const repeats = (el) => {
    const parent = el.parentElement;
    if (!parent || el === document.body || el === document.documentElement) return false;
    let counts = shapes.get(parent);
    if (!counts) {
      counts = new Map();
      for (const child of parent.children) {
        if (child.tagName === 'DD') continue;
        const shape = shapeOf(child);
        counts.set(shape, (counts.get(shape) || 0) + 1);
      }
      shapes.set(parent, counts);
    }
    return (counts.get(shapeOf(el)) || 0) >= MIN_SIBLINGS;
  };
  const pair = (el) => {
    const counts = shapes.get(el.parentElement);
    return !!counts && counts.get(shapeOf(el)) === 2;
  };
  // The other of a pair, which must hold controls of its own too.
  const twinOf = (el) => Array.from(el.parentElement.children)
    .find((c) => c !== el && c.tagName !== 'DD' && shapeOf(c) === shapeOf(el)) || null;
  // A dd belongs with the dt before it.
  const headOf = (node) => {
    if (node.tagName !== 'DD') return node;
    let prev = node.previousElementSibling;
    while (prev && prev.tagName !== 'DT') prev = prev.previousElementSibling;
    return prev || node;
  };
  const scopeOf = (record) => {
    const scope = [record];
    if (record.tagName === 'DT') {
      for (let n = record.nextElementSibling; n && n.tagName === 'DD'; n = n.nextElementSibling) scope.push(n);
    }
    return scope;
  };
  const within = (record, el) => scopeOf(record).some((part) => part.contains(el));
  // Every repeating ancestor of el, nearest first (records and their enclosing records); el itself first when it is
  // a clickable that holds other controls (an inbox row that opens its message).
  let containers = new Set();
  const repeatingAncestors = (el) => {
    const found = [];
    for (let node = containers.has(el) ? el : el.parentElement; node && node !== document.body; node = node.parentElement) {
      if (repeats(node)) found.push(headOf(node));
    }
    return found;
  };
  const titles = new Map();
  // The record's title, from its structure alone (it is part of an element's fingerprint, which is checked again
  // where no observation's candidates are known).
  const titleOf = (record) => {
    let t = titles.get(record);
    if (t !== undefined) return t;
    t = '';
    const scope = scopeOf(record);
    const first = (selector) => {
      for (const part of scope) {
        const found = part.matches(selector) ? part : part.querySelector(selector);
        if (found && clean(found.innerText)) return clean(found.innerText);
      }
      return '';
    };
    if (record.tagName === 'DT') t = clean(record.innerText);
    t = t || first('h1,h2,h3,h4,h5,h6,[role=heading]')
      || first('[itemprop=name],[itemprop=headline],[class*=title],[class*=headline],[class*=subject],[class*=product-name],[class*=item-name]');
    if (!t) {
      const link = titleLinkOf(record);
      if (link) t = clean(link.innerText) || nameOf(link);
    }
    if (!t) t = firstWords(record);
    t = t.slice(0, TITLE_CHARS);
    titles.set(record, t);
    return t;
  };
  // The text elements of the pictures (SVG) in a record; asked of each record only when its document or shadow root
  // has any (asked of each of 10,000 cards, the query alone took a sixth of an observation).
  const drawsText = new Map();
  const pictureTexts = (record) => {
    const root = record.getRootNode();
    let any = drawsText.get(root);
    if (any === undefined) {
      any = !!(root.querySelector && root.querySelector('svg text'));
      drawsText.set(root, any);
    }
    return any ? Array.from(record.querySelectorAll('svg text')) : [];
  };
  // A record with no heading, title or title link is called by its first line of text (not an image's: an SVG's
  // own text is part of a picture), up to the end of its first sentence.
  const firstWords = (record) => {
    const pictured = new Set(pictureTexts(record).map((t) => clean(t.textContent)));
    const line = record.innerText.split(/[\n\t]/).map(clean)
      .find((l) => /[\p{L}\p{N}]/u.test(l) && !pictured.has(l)) || '';
    if (line.length <= 60) return line;
    const end = line.search(/[.!?:;–—]\s/);
    return end >= 3 && end < TITLE_CHARS ? line.slice(0, end) : line;
  };
  // The link that stands for the record: one in its heading or title, else its first link with words.
  const titleLinkOf = (record) => {
    const scope = scopeOf(record);
    for (const part of scope) {
      const inTitle = part.querySelector('h1 a[href],h2 a[href],h3 a[href],h4 a[href],h5 a[href],h6 a[href],'
        + '[role=heading] a[href],.title a[href],a.title[href],[itemprop=name] a[href],[class*=title] a[href],'
        + 'a[href][class*=title],a[href][class*=name]');
      if (inTitle) return inTitle;
    }
    for (const part of scope) {
      for (const a of part.querySelectorAll('a[href]')) {
        if (/[\p{L}\p{N}]/u.test(a.innerText || '')) return a;
      }
    }
    return null;
  };
  // What the records hold of the observation's shown candidates, counted on every repeating ancestor of each.
  const held = new Map();
  const index = (candidates, kindOf, holders) => {
    containers = holders;
    for (const el of candidates) {
      for (const record of repeatingAncestors(el)) {
        let h = held.get(record);
        if (!h) { h = { controls: [], fields: 0, links: 0 }; held.set(record, h); }
        h.controls.push(el);
        const kind = kindOf(el);
        if (kind === 'field') h.fields++;
        else if (kind === 'link') h.links++;
      }
    }
  };
  const others = new Map();
  // The record's text outside its controls and their labels, in lines.
  const otherLines = (record) => {
    let lines = others.get(record);
    if (lines) return lines;
    const h = held.get(record);
    const taken = new Set();
    // What a record inside it says (a comment under a post) is that record's.
    for (const c of h.controls) {
      const inner = insideOf(c, record);
      if (inner) {
        for (const line of textOf(inner).split(/[\n\t]/)) if (clean(line)) taken.add(clean(line));
      }
    }
    for (const c of h.controls) {
      const own = clean(c.innerText || '');
      if (own) taken.add(own);
      for (const label of labelsOf(c)) if (clean(label.innerText)) taken.add(clean(label.innerText));
    }
    for (const t of pictureTexts(record)) taken.add(clean(t.textContent));
    lines = [];
    for (const part of scopeOf(record)) {
      for (const raw of textOf(part).split(/[\n\t]/)) {
        const line = clean(raw);
        if (!line || taken.has(line)) continue;
        // What is left of a line once its controls' text is taken out ("by", "|") is not a line of its own.
        let rest = line;
        for (const t of taken) if (t.length > 1) rest = rest.split(t).join(' ');
        rest = clean(rest);
        if (!/[\p{L}\p{N}$€£¥]/u.test(rest.replace(/\b(?:by|and|or|in|on|at|of|from|to|the|a|an)\b/gi, ''))) continue;
        lines.push(rest);
      }
    }
    others.set(record, lines);
    return lines;
  };
  const qualified = new Map();
  const qualifies = (record) => {
    let q = qualified.get(record);
    if (q !== undefined) return q;
    const h = held.get(record);
    q = false;
    const small = !pair(record)
      || (h && h.controls.length <= MAX_PAIR_CONTROLS && clean(record.innerText).length <= MAX_PAIR_TEXT
        && held.has(headOf(twinOf(record) || record)) && twinOf(record) !== null);
    if (h && small && h.controls.length <= MAX_CONTROLS && h.fields < h.controls.length) {
      const heading = scopeOf(record).some((p) => p.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]'));
      const text = otherLines(record).length > 0;
      q = (heading || h.links > 0 || text) && (h.controls.length >= 2 || text || heading);
    }
    qualified.set(record, q);
    return q;
  };
  // The nearest record that holds el strictly inside record (so asking goes only deeper, and ends).
  const insideOf = (el, record) => {
    for (const inner of repeatingAncestors(el)) {
      if (inner === record || !record.contains(inner)) return null;
      if (qualifies(inner)) return inner;
    }
    return null;
  };
  // The record an element belongs to: its nearest repeating ancestor that is a record (index first).
  const recordOf = (el) => {
    for (const record of repeatingAncestors(el)) if (qualifies(record)) return record;
    return null;
  };
  // The first short line of the record's other text that is not its title.
  const detailOf = (record) => {
    const title = titleOf(record);
    const line = otherLines(record).find((l) => l !== title && !title.includes(l) && l.length <= DETAIL_CHARS);
    return line || '';
  };
  // For a fingerprint: the title of the nearest repeating ancestor, from structure alone.
  const structuralTitle = (el) => {
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      if (repeats(node)) return titleOf(headOf(node)).slice(0, 60);
    }
    return null;
  };
  return { index, recordOf, titleOf, detailOf, titleLinkOf, structuralTitle, within, shapeOf };
};
