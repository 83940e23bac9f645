// Runs inside Chromium, as part of observe.js. What a
// control shows a person: its flags (checked, unchecked, mixed, expanded, collapsed, pressed, not pressed,
// selected, current, current <kind>, required, invalid, read-only, filled), the value of a field, the options a
// select or listbox shows chosen, and the message the page shows beside an invalid field. Never a value of a
// password field, of a field a credential was filled into (secret(el)), or of a hidden input; a password or secret
// field that holds something is only 'filled'. A value crosses to Java cut to maxValue characters, with its whole
// length beside it, and the runtime cuts it again after redaction. Returns null for an element with nothing to say.
export const makeStateOf = ({ nameOf, seen, secret, clean, maxValue }) => {
  const TEXT_TYPES = new Set(['text', 'search', 'email', 'tel', 'url', 'number', 'date', 'datetime-local', 'month',
    'week', 'time', 'color', 'range']);
  const CHECKABLE_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
  const MAX_OPTIONS = 20;
  const MAX_MESSAGE = 160;
  const byIds = (el, attribute) => (el.getAttribute(attribute) || '').split(/\s+/).filter(Boolean)
    .map((id) => el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : document.getElementById(id))
    .filter(Boolean);
  // The message the page shows for an invalid field: its aria-errormessage, a description shown beside it, or the
  // feedback element a form library puts after it (Bootstrap's .invalid-feedback and its kin).
  const messageOf = (el) => {
    const shown = (n) => n && seen(n) && clean(n.innerText);
    for (const n of byIds(el, 'aria-errormessage')) if (shown(n)) return clean(n.innerText);
    for (const n of byIds(el, 'aria-describedby')) {
      if (shown(n) && (/error|invalid|feedback/i.test(n.className) || n.getAttribute('role') === 'alert')) {
        return clean(n.innerText);
      }
    }
    for (let scope = el, up = 0; scope && up < 2; scope = scope.parentElement, up++) {
      for (let n = scope.nextElementSibling; n; n = n.nextElementSibling) {
        if (/invalid|error/i.test(typeof n.className === 'string' ? n.className : '') && shown(n)) {
          return clean(n.innerText);
        }
      }
    }
    return '';
  };
  const invalid = (el) => {
    const aria = el.getAttribute('aria-invalid');
    if (aria && aria !== 'false') return true;
    if (typeof el.checkValidity !== 'function' || !el.willValidate) return false;
    // A field the page has not yet marked is not invalid to a person: only once the user touched it
    // (:user-invalid) or the form was checked (Bootstrap's was-validated, or its is-invalid on the field).
    if (el.classList.contains('is-invalid')) return true;
    return el.matches(':user-invalid') || (!el.validity.valid && !!el.closest('.was-validated'));
  };
  const cut = (value) => ({ value: value.slice(0, maxValue), valueChars: value.length });
  return (el) => {
    const flags = [];
    const out = {};
    const tag = el.localName;
    const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : null;
    const role = el.getAttribute('role');
    const aria = (n) => el.getAttribute(n);
    if (type === 'checkbox' || type === 'radio') {
      flags.push(el.indeterminate ? 'mixed' : el.checked ? 'checked' : 'unchecked');
    } else if (CHECKABLE_ROLES.has(role) || aria('aria-checked') !== null) {
      const v = aria('aria-checked');
      flags.push(v === 'mixed' ? 'mixed' : v === 'true' ? 'checked' : 'unchecked');
    }
    const expanded = aria('aria-expanded');
    if (expanded === 'true') flags.push('expanded');
    else if (expanded === 'false') flags.push('collapsed');
    else if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') {
      flags.push(el.parentElement.open ? 'expanded' : 'collapsed');
    }
    const pressed = aria('aria-pressed');
    if (pressed === 'true') flags.push('pressed');
    else if (pressed === 'mixed') flags.push('mixed');
    else if (pressed === 'false') flags.push('not pressed');
    if (aria('aria-selected') === 'true' || (tag === 'option' && el.selected)) flags.push('selected');
    const current = aria('aria-current');
    if (current && current !== 'false') flags.push(current === 'true' ? 'current' : 'current ' + current.slice(0, 20));
    if (el.required || aria('aria-required') === 'true') flags.push('required');
    if (el.readOnly || aria('aria-readonly') === 'true') flags.push('read-only');
    if (invalid(el)) {
      flags.push('invalid');
      const message = messageOf(el);
      if (message) out.message = message.slice(0, MAX_MESSAGE);
    }
    if (tag === 'select') {
      out.options = Array.from(el.selectedOptions).slice(0, MAX_OPTIONS)
        .map((o) => clean(o.label || o.text).slice(0, 100));
    } else if (role === 'listbox' || role === 'tablist' || role === 'radiogroup' || role === 'tree' || role === 'grid') {
      // What a composite widget shows chosen: its selected (or checked) items, by name.
      const chosen = Array.from(el.querySelectorAll('[aria-selected=true],[aria-checked=true]')).slice(0, MAX_OPTIONS);
      if (chosen.length) out.options = chosen.map((o) => nameOf(o).slice(0, 100));
    } else if (type === 'password' || secret(el)) {
      if ((el.value || '').length > 0) flags.push('filled');
    } else if (tag === 'textarea' || (type !== null && TEXT_TYPES.has(type))) {
      if (el.value) Object.assign(out, cut(el.value));
    } else if (type === 'file') {
      const files = Array.from(el.files || []).map((f) => f.name).join(', ');
      if (files) Object.assign(out, cut(files));
    } else if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) {
      const text = el.innerText.replace(/\n$/, '');
      if (text.trim()) Object.assign(out, cut(text));
    } else if (['slider', 'spinbutton', 'progressbar', 'meter', 'scrollbar'].includes(role)) {
      const v = aria('aria-valuetext') || aria('aria-valuenow');
      if (v) Object.assign(out, cut(v));
    } else if (['textbox', 'searchbox', 'combobox'].includes(role) && tag !== 'input') {
      const text = clean(el.innerText);
      if (text && text !== nameOf(el)) Object.assign(out, cut(text));
    }
    if (flags.length) out.flags = flags;
    return Object.keys(out).length ? out : null;
  };
};
