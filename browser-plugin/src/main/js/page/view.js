// Runs inside Chromium (Screenshots): the page's viewport, pixel ratio, scroll position and URL.

const view = () => ({ url: location.href, width: innerWidth, height: innerHeight, ratio: devicePixelRatio,
  x: scrollX, y: scrollY });

export default view;
