// Runs inside Chromium. Observes the page (ranked, cut to the budget) or resolves one element by its ordinal
// and fingerprint. Nothing but bounded, value-free data crosses back: never raw HTML, never a field's value.
(request) => {
  const SELECTOR = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],'
    + '[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=switch],[role=option],[contenteditable=""],'
    + '[contenteditable=true]';
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
  const labelText = (el) => {
    if (el.labels && el.labels.length) return clean(Array.from(el.labels).map((l) => l.innerText).join(' '));
    const by = el.getAttribute('aria-labelledby');
    if (by) return clean(by.split(/\s+/).map((id) => (document.getElementById(id) || {}).innerText || '').join(' '));
    return '';
  };
  const nameOf = (el) => {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') || '').toLowerCase();
    const buttonValue = tag === 'input' && ['button', 'submit', 'reset'].includes(type) ? el.value : '';
    const text = tag === 'input' || tag === 'select' || tag === 'textarea' ? '' : (el.innerText || el.textContent);
    const img = el.querySelector && el.querySelector('img[alt]');
    return (clean(el.getAttribute('aria-label')) || labelText(el) || clean(el.getAttribute('title'))
      || clean(el.getAttribute('alt')) || clean(el.getAttribute('placeholder')) || clean(buttonValue)
      || clean(text) || (img ? clean(img.getAttribute('alt')) : '')).slice(0, 200);
  };
  const external = (el) => {
    const href = el.getAttribute('href');
    if (!href) return false;
    try {
      const p = new URL(href, document.baseURI).protocol;
      return !['http:', 'https:', 'javascript:', 'blob:', 'data:', 'about:'].includes(p);
    } catch (e) { return false; }
  };
  const describe = (el, ordinal) => {
    const tag = el.tagName.toLowerCase();
    const inputType = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : null;
    const role = el.getAttribute('role') || implicitRole(el);
    const name = nameOf(el);
    const target = (el.getAttribute('target') || '').toLowerCase();
    const fingerprint = JSON.stringify({
      tag, role, inputType, name,
      opensNewPage: target !== '' && target !== '_self' && target !== '_parent' && target !== '_top',
      downloads: el.hasAttribute('download'), externalProtocol: external(el)
    });
    let tier = 4;
    const isControl = tag !== 'a' && role !== 'link';
    if (isControl) tier = 1;
    else if (el.closest('nav,header,[role=navigation],[role=banner],[role=search]')) tier = 2;
    else if (el.closest('footer,aside,[role=contentinfo],[role=complementary]')) tier = 5;
    return {
      target: String(ordinal), fingerprint, kind: inputType ? 'input:' + inputType : (el.getAttribute('role') || tag),
      role, name, disabled: !!(el.disabled || el.getAttribute('aria-disabled') === 'true'), inputType, tier
    };
  };
  const candidates = Array.from(document.querySelectorAll(SELECTOR));

  if (request.resolve !== undefined) {
    const el = candidates[Number(request.resolve)];
    if (!el || !el.isConnected) return null;
    return describe(el, Number(request.resolve)).fingerprint === request.fingerprint ? el : null;
  }

  const shown = [];
  candidates.forEach((el, ordinal) => { if (visible(el)) shown.push(describe(el, ordinal)); });
  shown.sort((a, b) => (a.tier - b.tier) || (Number(a.target) - Number(b.target)));
  const body = document.body ? document.body.innerText : '';
  return {
    url: location.href,
    title: document.title,
    text: body.slice(0, Math.max(0, request.maxTextChars)),
    totalTextChars: body.length,
    elements: shown.slice(0, Math.max(0, request.maxElements)),
    totalElements: shown.length
  };
}
