// Runs inside Chromium, on an option of a datalist (Choices): puts its value into the field the list suggests it
// for, as a person's choice does. False when it is no datalist's option, 'none' when no field uses the list.

const chooseSuggestion = (el) => {
  const list = el.localName === 'option' ? el.closest('datalist') : null;
  if (!list) return false;
  const root = list.getRootNode();
  let field = root.activeElement;
  if (!(field instanceof HTMLInputElement) || field.list !== list) {
    field = Array.from(root.querySelectorAll('input[list]')).find((i) => i.list === list);
  }
  if (!field) return 'none';
  field.focus();
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(field, el.value);
  field.dispatchEvent(new InputEvent('input',
    { bubbles: true, composed: true, inputType: 'insertReplacementText', data: el.value }));
  field.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
};

export default chooseSuggestion;
