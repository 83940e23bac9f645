// Runs inside Chromium (PointerActions): what has the keyboard's focus, through open and closed shadow roots (the
// guards' registry under `key` keeps the closed ones): 'frame' for a frame (its own document says more), 'password'
// for a password field, else ''.

import { shadowWalk } from './shadow.js';

export default function focusedField(key) {
  const { shadowOf } = shadowWalk(window[key]);
  let a = document.activeElement;
  while (a && shadowOf(a) && shadowOf(a).activeElement) a = shadowOf(a).activeElement;
  if (a && (a.tagName === 'IFRAME' || a.tagName === 'FRAME')) return 'frame';
  return a instanceof HTMLInputElement && a.type === 'password' ? 'password' : '';
}
