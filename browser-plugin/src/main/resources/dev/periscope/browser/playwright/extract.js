// Runs inside Chromium. A fixed traversal per kind over a region (a ref of the latest observation, widened to
// what it stands for), never a selector and never the model's own script. Values are cut to maxChars.
(request) => {
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const cut = (s) => clean(s).slice(0, request.maxChars);
  const registry = window[request.key];
  let region = document.body;
  if (request.region !== undefined && request.region !== null) {
    const id = Number(request.region);
    const ref = registry && registry.byId && registry.byId.get(id);
    const el = ref && ref.deref();
    if (!el || !el.isConnected || registry.ids.get(el) !== id) return { stale: true };
    region = el;
  }
  const widen = (el, kind) => {
    if (kind === 'table') return el.closest('table') || el.querySelector('table') || el;
    if (kind === 'list') {
      // A record's element stands for the listing that holds the record.
      for (let n = el; n && n !== document.body; n = n.parentElement) {
        const p = n.parentElement;
        if (p && Array.from(p.children).filter((c) => c.tagName === n.tagName).length >= 3) return p;
      }
      return el;
    }
    if (kind === 'article') return el.closest('article,main') || el;
    return el;
  };
  const scope = region === document.body ? document.body : widen(region, request.kind);
  const columns = [];
  const rows = [];
  if (request.kind === 'links') {
    columns.push('index', 'text', 'url', 'title');
    scope.querySelectorAll('a[href]').forEach((a, i) => rows.push({
      index: String(i + 1), text: cut(a.innerText), url: a.href, title: cut(a.getAttribute('title'))
    }));
  } else if (request.kind === 'table') {
    const table = scope.tagName === 'TABLE' ? scope : scope.querySelector('table');
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
      document.querySelectorAll('ul,ol,dl,tbody,div,section,main').forEach((c) => {
        const counts = {};
        Array.from(c.children).forEach((k) => { if (k.querySelector('a[href]')) counts[k.tagName] = (counts[k.tagName] || 0) + 1; });
        const n = Math.max(0, ...Object.values(counts));
        if (n >= 3 && (!best || n > best.n)) best = { c, n };
      });
      listing = best ? best.c : scope;
    }
    const items = Array.from(listing.children).filter((k) => k.tagName !== 'DD' && k.querySelector && (k.querySelector('a[href]') || k.tagName === 'DT'));
    items.forEach((item, i) => {
      const parts = [item];
      if (item.tagName === 'DT') for (let n = item.nextElementSibling; n && n.tagName === 'DD'; n = n.nextElementSibling) parts.push(n);
      const link = parts.map((p) => p.querySelector('h1 a[href],h2 a[href],h3 a[href],h4 a[href],a[href]')).find(Boolean)
        || (item.matches('a[href]') ? item : null);
      const heading = parts.map((p) => p.querySelector('h1,h2,h3,h4,h5,h6')).find(Boolean);
      rows.push({ index: String(i + 1), title: cut((heading || link || item).innerText), url: link ? link.href : '',
        text: cut(parts.map((p) => p.innerText).join(' ')) });
    });
  } else if (request.kind === 'article') {
    columns.push('title', 'byline', 'text');
    const article = scope === document.body ? (document.querySelector('article') || document.querySelector('main') || document.body) : scope;
    const h1 = article.querySelector('h1') || document.querySelector('h1');
    const byline = article.querySelector('.byline,[rel=author],[itemprop=author],address');
    rows.push({ title: cut(h1 ? h1.innerText : document.title), byline: cut(byline ? byline.innerText : ''),
      text: cut(article.innerText) });
  }
  return { columns, total: rows.length, rows: rows.slice(0, request.limit) };
}
