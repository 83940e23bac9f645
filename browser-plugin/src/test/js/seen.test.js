// seen.js: whether a person can see an element, whatever its ARIA says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumForTests } from './chromium.js';

const chromium = chromiumForTests();

// hiddenFromSight of each case, its ancestors asked first, as the observation's walk from the top does.
const hiddenIn = (page) => page.evaluate(async () => {
  const { makeSeen } = await import('/page/seen.js');
  const seen = makeSeen();
  const out = {};
  const walk = (el) => {
    const hidden = seen.hiddenFromSight(el);
    if (el.dataset.case) out[el.dataset.case] = hidden;
    for (const child of el.children) walk(child);
  };
  walk(document.body);
  return out;
});

test('what is transparent, clipped for screen readers only, clipped away or off the page is hidden', async () => {
  const page = await chromium.page(`
    <button data-case="plain">Plain</button>
    <div style="opacity:0"><button data-case="transparent">Transparent</button></div>
    <span data-case="sr-only" style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)">Screen readers</span>
    <div style="overflow:hidden;width:200px;height:50px;position:relative">
      <button data-case="slide" style="position:absolute;left:400px">Next slide</button>
    </div>
    <nav style="position:absolute;left:-500px;width:300px"><a data-case="off-canvas" href="#">Menu</a></nav>
    <div style="height:3000px"></div><button data-case="below-the-fold">Far down</button>`);
  assert.deepEqual(await hiddenIn(page), {
    plain: false, transparent: true, 'sr-only': true, slide: true, 'off-canvas': true, 'below-the-fold': false,
  });
});

test('what a region scrolls to is seen', async () => {
  const page = await chromium.page(`
    <div style="overflow:auto;width:200px;height:50px"><div style="height:400px"></div>
      <button data-case="scrolled">In the scroller</button></div>`);
  assert.deepEqual(await hiddenIn(page), { scrolled: false });
});
