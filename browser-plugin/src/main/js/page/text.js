// Runs inside Chromium, as part of observe.js. The page's
// text as a person reads it: the rendered text (innerText) without what is hidden from sight (an off-canvas menu,
// a carousel's other slides, text for screen readers only) and without a select's options, which its element shows
// as its state. Only the elements on the way to something left out are composed here; everything else is the
// browser's own innerText. Then which lines of that text are a listed element's or a listed record's own text, so
// that the runtime can show those lines as refs instead of saying them twice.
export const makeText = ({ style, clean, labelsOf }) => {
  const excluded = new Set();
  const dirty = new Set();
  // Leaves el (hidden from sight, or a select) out of the text.
  const exclude = (el) => {
    excluded.add(el);
    for (let n = el.parentElement; n && !dirty.has(n); n = n.parentElement) dirty.add(n);
  };
  const NO_TEXT = new Set(['script', 'style', 'template', 'noscript', 'select', 'datalist', 'textarea', 'option']);
  const BLOCK = /^(?:block|flex|grid|list-item|table|flow-root|table-caption|table-row-group|table-header-group|table-footer-group)$/;
  const collapse = (data, whiteSpace) => (whiteSpace.startsWith('pre') || whiteSpace === 'break-spaces'
    ? data : data.replace(/[ \t\n\r\f]+/g, ' '));
  // innerText's text, composed here only for an element that holds something left out.
  const compose = (el) => {
    const s = style(el);
    const shown = s.visibility !== 'hidden' && s.visibility !== 'collapse';
    let out = '';
    for (const child of el.childNodes) {
      if (child.nodeType === 3) {
        if (shown) out += collapse(child.data, s.whiteSpace);
        continue;
      }
      if (child.nodeType !== 1 || excluded.has(child) || NO_TEXT.has(child.localName)) continue;
      const cs = style(child);
      if (cs.display === 'none') continue;
      if (child.localName === 'br') { out += '\n'; continue; }
      const t = textOf(child);
      if (cs.display === 'table-cell') out += t + '\t';
      else if (cs.display === 'table-row') out += '\n' + t + '\n';
      else if (child.localName === 'p' && BLOCK.test(cs.display)) out += '\n\n' + t + '\n\n';
      else if (BLOCK.test(cs.display)) out += '\n' + t + '\n';
      else out += t;
    }
    return out;
  };
  const tidy = (text) => text.replace(/[ \t]*\n[ \t]*/g, '\n').replace(/ {2,}/g, ' ').replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
  const texts = new Map();
  const textOf = (el) => {
    if (excluded.has(el)) return '';
    if (!dirty.has(el)) return el.innerText || '';
    let t = texts.get(el);
    if (t === undefined) { t = tidy(compose(el)); texts.set(el, t); }
    return t;
  };
  // Which lines of text are a listed element's or record's own, as [line, target, record] (an empty string for
  // neither), for the lines of text's first maxChars characters. A line is taken only where the page holds as many
  // lines of that text as shown elements (or records) that read so, matched in document order: a line that might
  // be anything else stays text.
  const LONGEST = 400;
  const owners = (text, maxChars, shown, listed, records, nameOf) => {
    const lines = text.split('\n');
    const at = new Map();
    let retained = 0;
    for (let i = 0, offset = 0; i < lines.length; i++) {
      // No element's name or record's title is this long: such a line (a paragraph) is only text.
      const key = lines[i].length <= LONGEST ? clean(lines[i]) : '';
      if (key) {
        if (!at.has(key)) at.set(key, []);
        at.get(key).push(i);
      }
      if (offset < maxChars) retained = i + 1;
      offset += lines[i].length + 1;
    }
    const owned = new Map();
    const claim = (items, keyOf, own) => {
      const byKey = new Map();
      for (const item of items) {
        const key = keyOf(item);
        if (!key || !at.has(key)) continue;
        if (!byKey.has(key)) byKey.set(key, []);
        byKey.get(key).push(item);
      }
      for (const [key, list] of byKey) {
        const found = at.get(key);
        if (found.length !== list.length) continue;
        list.forEach((item, n) => {
          const o = own(item);
          if (o && !owned.has(found[n])) owned.set(found[n], o);
        });
      }
    };
    // An element's own text when it is one line; else the text of its one label, or of the one element that
    // labels it (aria-labelledby), or the first line of its own (a switch's label before its On/Off).
    const single = (el) => {
      const own = textOf(el).trim();
      if (own && !own.includes('\n')) return clean(own);
      const labels = labelsOf(el);
      let label = labels.length === 1 ? labels[0] : null;
      const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
      if (!label && ids.length === 1) label = el.getRootNode().getElementById ? el.getRootNode().getElementById(ids[0]) : null;
      const labelled = label ? textOf(label).trim() : '';
      if (labelled && !labelled.includes('\n')) return clean(labelled);
      return own ? clean(own.split('\n')[0]) : '';
    };
    // A line is an element's only where its name says it (a panel named by its tab says other words).
    claim(shown, single,
      (el) => (listed.has(el) && clean(nameOf(el)).includes(single(el)) ? listed.get(el) : null));
    claim(records.all, (r) => records.titleOf(r), (r) => records.listed.get(r) || null);
    claim(records.all, (r) => records.detailOf(r), (r) => records.listed.get(r) || null);
    return Array.from(owned.entries()).filter(([line]) => line < retained).sort((a, b) => a[0] - b[0])
      .map(([line, o]) => [line, o.target || '', o.record || '']);
  };
  return { exclude, textOf, owners, excluded };
};
