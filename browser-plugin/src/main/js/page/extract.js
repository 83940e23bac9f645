// Runs inside Chromium. A fixed traversal per kind over a region (a ref of the latest observation, widened to
// what it stands for), never a selector and never the model's own script. Values are cut to maxChars. Shadow
// roots, open and closed (as guards.js kept them), are part of the page, as the observation walks them: found in
// document order (a host, then what its root holds, then its own children), and their text joins their host's.

import { shadowWalk } from './shadow.js';

const extract = (request) => {
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const cut = (s) => clean(s).slice(0, request.maxChars);
  const registry = window[request.key];
  const { shadowOf, closestAcross } = shadowWalk(registry);
  // The elements under root (not root itself) that match, through shadow roots, in document order: all of them,
  // or only the first (at most one).
  const matching = (root, selector, one) => {
    const found = [];
    const walk = (start) => {
      const walker = document.createTreeWalker(start, NodeFilter.SHOW_ELEMENT);
      for (let el = walker.currentNode; el; el = walker.nextNode()) {
        if (el.nodeType !== 1) continue;
        if (el !== root && el.matches(selector)) {
          found.push(el);
          if (one) return true;
        }
        const shadow = shadowOf(el);
        if (shadow && walk(shadow)) return true;
      }
      return false;
    };
    walk(root);
    return found;
  };
  const all = (root, selector) => matching(root, selector, false);
  const first = (root, selector) => matching(root, selector, true)[0] || null;
  // innerText stops at a shadow root: what each root under el shows follows el's own text (a root's own children,
  // whose text leaves out what is slotted into them, already in the host's).
  const text = (el) => {
    let t = el.innerText || '';
    const hosts = [el, ...all(el, '*')].filter((n) => shadowOf(n));
    for (const host of hosts) {
      for (const child of shadowOf(host).children) {
        const c = child.innerText;
        if (c && c.trim()) t += '\n' + c;
      }
    }
    return t;
  };
  // The children of a listing, or of the root a listing host shows.
  const childrenOf = (el) => Array.from((shadowOf(el) && !el.children.length ? shadowOf(el) : el).children);

  let region = document.body;
  if (request.region !== undefined && request.region !== null) {
    const id = Number(request.region);
    const ref = registry && registry.byId && registry.byId.get(id);
    const el = ref && ref.deref();
    if (!el || !el.isConnected || registry.ids.get(el) !== id) return { stale: true };
    region = el;
  }
  const widen = (el, kind) => {
    if (kind === 'table') return closestAcross(el, 'table') || first(el, 'table') || el;
    if (kind === 'list') {
      // A record's element stands for the listing that holds the record.
      for (let n = el; n && n !== document.body; n = n.parentElement || (n.parentNode && n.parentNode.host) || null) {
        const p = n.parentElement;
        if (p && Array.from(p.children).filter((c) => c.tagName === n.tagName).length >= 3) return p;
        const root = n.parentNode;
        if (!p && root instanceof ShadowRoot
            && Array.from(root.children).filter((c) => c.tagName === n.tagName).length >= 3) return root.host;
      }
      return el;
    }
    if (kind === 'article') return closestAcross(el, 'article,main') || el;
    return el;
  };
  const scope = region === document.body ? document.body : widen(region, request.kind);
  const columns = [];
  const rows = [];
  if (request.kind === 'links') {
    columns.push('index', 'text', 'url', 'title');
    all(scope, 'a[href]').forEach((a, i) => rows.push({
      index: String(i + 1), text: cut(text(a)), url: a.href, title: cut(a.getAttribute('title'))
    }));
  } else if (request.kind === 'table') {
    const table = scope.tagName === 'TABLE' ? scope : first(scope, 'table');
    if (table) {
      const headerRow = table.tHead ? table.tHead.rows[0] : table.rows[0];
      const headers = headerRow ? Array.from(headerRow.cells).map((c, i) => cut(c.innerText) || ('column_' + (i + 1))) : [];
      columns.push('index', ...headers);
      Array.from(table.rows).filter((r) => r !== headerRow).forEach((r, i) => {
        const row = { index: String(i + 1) };
        Array.from(r.cells).forEach((c, j) => { row[headers[j] || ('column_' + (j + 1))] = cut(c.innerText); });
        rows.push(row);
      });
    }
  } else if (request.kind === 'list') {
    columns.push('index', 'title', 'url', 'text');
    let listing = scope;
    if (scope === document.body) {
      // The largest run of at least three same-tag siblings holding links.
      let best = null;
      all(document.body, '*').forEach((c) => {
        if (!c.matches('ul,ol,dl,tbody,div,section,main') && !shadowOf(c)) return;
        const counts = {};
        childrenOf(c).forEach((k) => { if (first(k, 'a[href]') || k.matches('a[href]')) counts[k.tagName] = (counts[k.tagName] || 0) + 1; });
        const n = Math.max(0, ...Object.values(counts));
        if (n >= 3 && (!best || n > best.n)) best = { c, n };
      });
      listing = best ? best.c : scope;
    }
    const items = childrenOf(listing).filter((k) => k.tagName !== 'DD' && (first(k, 'a[href]') || k.matches('a[href]') || k.tagName === 'DT'));
    items.forEach((item, i) => {
      const parts = [item];
      if (item.tagName === 'DT') for (let n = item.nextElementSibling; n && n.tagName === 'DD'; n = n.nextElementSibling) parts.push(n);
      const link = parts.map((p) => first(p, 'h1 a[href],h2 a[href],h3 a[href],h4 a[href]') || first(p, 'a[href]')).find(Boolean)
        || (item.matches('a[href]') ? item : null);
      const heading = parts.map((p) => first(p, 'h1,h2,h3,h4,h5,h6')).find(Boolean);
      rows.push({ index: String(i + 1), title: cut(text(heading || link || item)), url: link ? link.href : '',
        text: cut(parts.map((p) => text(p)).join(' ')) });
    });
  } else if (request.kind === 'article') {
    columns.push('title', 'byline', 'text');
    const article = scope === document.body ? (first(document.body, 'article') || first(document.body, 'main') || document.body) : scope;
    const h1 = first(article, 'h1') || first(document.body, 'h1');
    const byline = first(article, '.byline,[rel=author],[itemprop=author],address');
    rows.push({ title: cut(h1 ? text(h1) : document.title), byline: cut(byline ? text(byline) : ''),
      text: cut(text(article)) });
  }
  return { columns, total: rows.length, rows: rows.slice(0, request.limit) };
};

export default extract;
