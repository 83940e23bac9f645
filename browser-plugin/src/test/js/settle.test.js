// settle.js: an observation waits for the page's transitions to end, and not for what never ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumForTests } from './chromium.js';

const chromium = chromiumForTests();

test('returns once a running transition has ended, with the element where it comes to rest', async () => {
  const page = await chromium.page(`<div id="menu" style="transition:transform 300ms linear">Menu</div>`);
  const settled = await page.evaluate(async () => {
    const { settle } = await import('/page/settle.js');
    const menu = document.getElementById('menu');
    menu.getBoundingClientRect();
    menu.style.transform = 'translateX(-200px)';
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const running = document.getAnimations().length;
    const start = performance.now();
    await settle(1000);
    return { running, waited: performance.now() - start, left: document.getAnimations().length,
      x: Math.round(menu.getBoundingClientRect().left) };
  });
  assert.equal(settled.running, 1);
  assert.equal(settled.left, 0);
  assert.equal(settled.x, -192); // body's 8px margin, moved 200px left
  assert.ok(settled.waited < 1000, 'waited ' + settled.waited);
});

test('does not wait for an animation that never ends, nor when there is none', async () => {
  const page = await chromium.page(`<style>@keyframes spin { to { transform: rotate(360deg) } }</style>
    <div style="animation:spin 1s linear infinite">Loading</div>`);
  const waited = await page.evaluate(async () => {
    const { settle } = await import('/page/settle.js');
    const start = performance.now();
    await settle(1000);
    await settle(0);
    return performance.now() - start;
  });
  assert.ok(waited < 200, 'waited ' + waited);
});
