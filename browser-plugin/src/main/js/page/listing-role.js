// Runs inside Chromium, as part of observe.js. The role an element without a role attribute is listed under: the
// few native controls an observation tells apart (link, button, listbox, combobox, textbox, option, checkbox, radio,
// slider, searchbox), else 'generic'. Coarser than the ARIA mapping names.js computes for names, on purpose: a listing
// needs the kind of control, not every landmark.

export const listingRole = (el) => {
  const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  if (tag === 'a') return 'link';
  if (tag === 'button' || tag === 'summary') return 'button';
  if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
  if (tag === 'textarea') return 'textbox';
  if (tag === 'option') return 'option';
  if (tag === 'input') {
    if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
    if (type === 'checkbox' || type === 'radio') return type;
    if (type === 'range') return 'slider';
    if (type === 'search') return 'searchbox';
    return 'textbox';
  }
  return 'generic';
};
