// Runs inside Chromium, on a text field or textarea (CredentialFields): puts the secret in as a paste would, with
// the page's input and change events, autocomplete off; the length it took, or what the element is when it takes
// no text.

const fillSecret = (el, value) => {
  const types = ['text', 'password', 'email', 'tel', 'url', 'search', ''];
  const isInput = el instanceof HTMLInputElement && types.includes((el.getAttribute('type') || '').toLowerCase());
  if (!isInput && !(el instanceof HTMLTextAreaElement)) {
    return el.tagName.toLowerCase() + (el.type ? ' type=' + el.type : '');
  }
  el.setAttribute('autocomplete', 'off');
  const proto = isInput ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
  el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertReplacementText' }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return el.value.length;
};

export default fillSecret;
