// Runs inside Chromium. Observes the page (ranked, filtered to the requested tiers, cut to the budget) or
// resolves one element by its ordinal and fingerprint. Only bounded, value-free data crosses back: never raw
// HTML, never a field's value.
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
  const nameOf = (el) => NAMES.name(el).slice(0, 200);
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
  const fingerprintOf = (el) => {
    const tag = el.tagName.toLowerCase();
    return JSON.stringify({
      tag, role: el.getAttribute('role') || implicitRole(el),
      inputType: tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : null,
      name: nameOf(el), opensNewPage: opensNewPage(el), downloads: el.hasAttribute('download'),
      externalProtocol: external(el)
    });
  };
  const candidates = Array.from(document.querySelectorAll(SELECTOR));
  // Each observed element gets an identity in a registry under a name only this environment knows, so a target
  // names the very node that was observed: an identical node that slid into its place is a different node.
  let registry = window[request.key];
  if (!registry) {
    registry = { ids: new WeakMap(), next: 1 };
    Object.defineProperty(window, request.key, { value: registry, enumerable: false });
  }
  const identity = (el) => {
    let id = registry.ids.get(el);
    if (!id) { id = registry.next++; registry.ids.set(el, id); }
    return id;
  };

  if (request.resolve !== undefined) {
    const [ordinal, id] = String(request.resolve).split(':').map(Number);
    const el = candidates[ordinal];
    if (!el || !el.isConnected || registry.ids.get(el) !== id) return null;
    return fingerprintOf(el) === request.fingerprint ? el : null;
  }

  // A record: the nearest ancestor that repeats among at least three same-tag siblings. A dd belongs with the
  // dt before it, so a dt/dd pair is one record.
  const recordIds = new Map();
  const recordOf = (el) => {
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
  const recordLabel = (record) => {
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

  // Pagination: a run of at least two paging links in one container, or a link marked rel=next/prev.
  const isLink = (el) => el.tagName === 'A' || el.getAttribute('role') === 'link';
  const pagingText = (el) => { const t = clean(el.innerText || el.textContent); return t.length <= 24 && PAGINATION_TEXT.test(t); };
  const containerOf = (el) => {
    const p = el.parentElement;
    return p && (p.tagName === 'LI' || p.tagName === 'SPAN') && p.parentElement ? p.parentElement : p;
  };
  const pagingCount = new Map();
  for (const el of candidates) {
    if (isLink(el) && pagingText(el)) {
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

  const describe = (el, ordinal) => {
    const tag = el.tagName.toLowerCase();
    const inputType = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : null;
    const role = el.getAttribute('role') || implicitRole(el);
    const pagination = isPagination(el);
    const record = pagination ? null : recordOf(el);
    let tier;
    let section = 'main';
    if (el.closest('nav,header,[role=navigation],[role=banner],[role=search]')) section = 'navigation';
    else if (el.closest('footer,[role=contentinfo]')) section = 'footer';
    else if (el.closest('aside,[role=complementary]')) section = 'sidebar';
    if (!isLink(el) || pagination) tier = 1;
    else if (section === 'navigation') tier = 2;
    else if (record) tier = recordTitleLink(record) === el ? 3 : 5;
    else if (section === 'footer' || section === 'sidebar') tier = 5;
    else tier = 4;
    let groupKey = null;
    let groupLabel = null;
    if (record) {
      if (!recordIds.has(record)) recordIds.set(record, 'r' + recordIds.size);
      groupKey = recordIds.get(record);
      groupLabel = recordLabel(record);
    }
    return {
      target: ordinal + ':' + identity(el), fingerprint: fingerprintOf(el), ordinal,
      kind: inputType ? 'input:' + inputType : (el.getAttribute('role') || tag), role, name: nameOf(el),
      hint: NAMES.hint(el).slice(0, 120),
      disabled: !!(el.disabled || el.getAttribute('aria-disabled') === 'true'), inputType, tier, pagination,
      section, groupKey, groupLabel
    };
  };

  const shown = [];
  candidates.forEach((el, ordinal) => { if (visible(el)) shown.push(describe(el, ordinal)); });
  shown.sort((a, b) => (a.tier - b.tier) || (a.ordinal - b.ordinal));
  const tiers = request.tiers || [1, 2, 3, 4, 5];
  const wanted = shown.filter((e) => tiers.includes(e.tier));
  const body = document.body ? document.body.innerText : '';
  return {
    url: location.href,
    title: document.title,
    text: body.slice(0, Math.max(0, request.maxTextChars)),
    totalTextChars: body.length,
    elements: wanted.slice(0, Math.max(0, request.maxElements)),
    elementsTruncated: wanted.length > Math.max(0, request.maxElements),
    totalElements: shown.length
  };
}
