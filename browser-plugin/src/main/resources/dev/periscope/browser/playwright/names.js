// Runs inside Chromium, as part of observe.js (PageScripts puts this expression in place of __NAMES__). Evaluates
// to { name(el), hint(el) }: the element's accessible name, and for a field with none, what a user sees beside it.
(() => {
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const labelText = (el) => {
    if (el.labels && el.labels.length) return clean(Array.from(el.labels).map((l) => l.innerText).join(' '));
    const by = el.getAttribute('aria-labelledby');
    if (by) return clean(by.split(/\s+/).map((id) => (document.getElementById(id) || {}).innerText || '').join(' '));
    return '';
  };
  const name = (el) => {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') || '').toLowerCase();
    const buttonValue = tag === 'input' && ['button', 'submit', 'reset'].includes(type) ? el.value : '';
    const text = tag === 'input' || tag === 'select' || tag === 'textarea' ? '' : (el.innerText || el.textContent);
    const img = el.querySelector && el.querySelector('img[alt]');
    return clean(el.getAttribute('aria-label')) || labelText(el) || clean(el.getAttribute('title'))
      || clean(el.getAttribute('alt')) || clean(el.getAttribute('placeholder')) || clean(buttonValue)
      || clean(text) || (img ? clean(img.getAttribute('alt')) : '');
  };
  const hint = (el) => '';
  return { name, hint };
})()
