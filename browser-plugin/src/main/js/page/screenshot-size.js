// Runs inside Chromium before a screenshot (Screenshots): the size in CSS pixels it would be, of the viewport or,
// full, of the whole page, with the page's view (view.js).

import view from './view.js';

const screenshotSize = (full) => ({
  width: full ? Math.max(document.documentElement.scrollWidth, innerWidth) : innerWidth,
  height: full ? Math.max(document.documentElement.scrollHeight, innerHeight) : innerHeight,
  ratio: devicePixelRatio, view: view(),
});

export default screenshotSize;
