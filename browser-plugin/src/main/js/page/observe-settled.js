// Runs inside Chromium: the observation of the main document (observe.js), after the page's running transitions
// and animations have ended, within request.settleMs (settle.js).

import observe from './observe.js';
import { settle } from './settle.js';

const observeSettled = async (request) => {
  await settle(request.settleMs);
  return observe(request);
};

export default observeSettled;
