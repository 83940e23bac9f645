// Runs inside Chromium, as part of names.js. Given what
// names.js knows, returns hint(el): for a field with no accessible name, what a user sees beside it (the text before
// it in its row, cell, paragraph or label; after a radio button or checkbox; a label whose for= names it though it
// cannot label it; else an unused placeholder), never its
// name and never a value; '' for everything else.
export const makeHint = ({ name, roleOf, inputType, editableRoot, notDisplayed, invisible, collapse, hasText, BREAKING }) => {
  const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'switch', 'spinbutton',
    'slider', 'listbox', 'menuitemcheckbox', 'menuitemradio']);
  const isField = (el) => {
    const tag = el.tagName;
    if (tag === 'INPUT') return !['button', 'submit', 'reset', 'image', 'hidden'].includes(inputType(el));
    if (tag === 'SELECT' || tag === 'TEXTAREA') return true;
    if (tag === 'BUTTON') return false;
    return editableRoot(el) || FIELD_ROLES.has(roleOf(el));
  };
  // Another control: where the text that belongs to this field ends.
  const isControl = (el) => ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON'].includes(el.tagName) && !(el.tagName === 'INPUT'
    && inputType(el) === 'hidden') || editableRoot(el) || FIELD_ROLES.has(roleOf(el)) || roleOf(el) === 'button';
  const HEADING = /^H[1-6]$/;
  const SCOPES = ['TR', 'LI', 'P', 'LABEL', 'DD', 'DT', 'FORM', 'FIELDSET'];
  // Where text beside the field may come from: its row, list item, paragraph or label, or at most three levels up.
  const scopeOf = (el) => {
    let node = el;
    for (let up = 0; up < 4; up++) {
      const parent = node.parentElement;
      if (!parent || parent === document.documentElement) break;
      node = parent;
      if (node === document.body) break;
      if (SCOPES.includes(node.tagName) || ['row', 'listitem'].includes(node.getAttribute('role'))) break;
      if (up === 2) break;
    }
    return node;
  };
  const readable = (text) => {
    const parent = text.parentElement;
    if (!parent || parent.isContentEditable) return false;
    if (parent.closest('select,textarea,option,script,style,noscript,template,button')) return false;
    return !notDisplayed(parent) && !invisible(parent);
  };
  const HINT_MAX = 120;
  // The run of text just before (direction -1) or after (+1) the field in its scope: it stops at another control,
  // at a heading, and at the edge of the block the text was found in.
  const besideText = (el, direction) => {
    const scope = scopeOf(el);
    if (scope === el) return '';
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    walker.currentNode = el;
    let text = '';
    for (let steps = 0; steps < 400; steps++) {
      const node = direction < 0 ? walker.previousNode() : walker.nextNode();
      if (!node) break;
      if (node.nodeType === 3) {
        if (el.contains(node) || !readable(node) || !hasText(node.data)) continue;
        text = direction < 0 ? node.data + ' ' + text : text + ' ' + node.data;
        if (collapse(text).length > HINT_MAX * 2) break;
        continue;
      }
      if (node === el || el.contains(node)) continue;
      if (direction < 0 && node.contains(el)) {
        if (hasText(text)) break; // left the block the text sits in, together with the field
        continue;
      }
      if (HEADING.test(node.tagName) || node.getAttribute('role') === 'heading' || isControl(node)) break;
      if (hasText(text) && BREAKING(node)) break;
    }
    const flat = collapse(text).trim();
    if (flat.length <= HINT_MAX) return flat;
    return direction < 0 ? '…' + flat.slice(flat.length - HINT_MAX + 1) : flat.slice(0, HINT_MAX - 1) + '…';
  };
  const hint = (el) => {
    if (!el || el.nodeType !== 1 || !isField(el) || name(el) !== '') return '';
    const role = roleOf(el);
    const checkable = (el.tagName === 'INPUT' && ['checkbox', 'radio'].includes(inputType(el)))
      || ['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(role);
    // A label pointing at an element it cannot label (a widget's button standing in for a hidden select).
    const root = el.getRootNode();
    const pointing = el.id && root.querySelector ? root.querySelector('label[for="' + CSS.escape(el.id) + '"]') : null;
    if (pointing && !notDisplayed(pointing) && !invisible(pointing) && hasText(pointing.textContent)) {
      return collapse(pointing.textContent).trim().slice(0, HINT_MAX);
    }
    let text = checkable ? besideText(el, 1) || besideText(el, -1) : besideText(el, -1);
    if (!text) text = collapse(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || '').trim();
    return text.slice(0, HINT_MAX);
  };
  return hint;
};
