// Runs inside Chromium, for the pointer, in one script and with no handle to the element: the element resolved as
// observe.js resolves a target, then brought into view and looked at as hit-test.js does. { stale: true } when it is
// gone, its point { x, y } when it is ready for the pointer there, else nothing.

import { pointerState } from './hit-test.js';
import observe from './observe.js';

const readyPoint = (request) => {
  const el = observe(request);
  if (!el) return { stale: true };
  const state = pointerState(el, { key: request.key, centre: false });
  return state.ready ? { x: state.x, y: state.y } : {};
};

export default readyPoint;
