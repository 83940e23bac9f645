// cover.js: where a person would press an element, and what covers it when nothing of it can be pressed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumForTests } from './chromium.js';

const chromium = chromiumForTests();

const coverOf = (page, id) => page.evaluate(async (id) => {
  const { coverAt } = await import('/page/cover.js');
  const at = coverAt(document.getElementById(id));
  return at && { cover: at.cover ? at.cover.id : null, x: Math.round(at.x), y: Math.round(at.y), inside: at.inside };
}, id);

const BUTTON = 'position:absolute;left:100px;top:100px;width:200px;height:40px;margin:0;border:0;padding:0';

test('a clear button is pressed at its centre', async () => {
  const page = await chromium.page(`<button id="b" style="${BUTTON}"></button>`);
  assert.deepEqual(await coverOf(page, 'b'), { cover: null, x: 200, y: 120, inside: true });
});

test('a button under an overlay is covered by it', async () => {
  const page = await chromium.page(`<button id="b" style="${BUTTON}">Buy</button>
    <div id="overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.5)"></div>`);
  assert.deepEqual(await coverOf(page, 'b'), { cover: 'overlay', x: 200, y: 120, inside: undefined });
});

test('a button half under a bar is pressed on its visible half', async () => {
  const page = await chromium.page(`<button id="b" style="${BUTTON}"></button>
    <div id="bar" style="position:absolute;left:0;top:0;width:800px;height:125px;background:#fff"></div>`);
  const at = await coverOf(page, 'b');
  assert.equal(at.cover, null);
  assert.ok(at.y > 125 && at.y < 140, 'pressed below the bar: ' + JSON.stringify(at));
});

test('an element out of the viewport or without a box has no point', async () => {
  const page = await chromium.page(`<button id="far" style="position:absolute;top:2000px">Far</button>
    <button id="none" style="display:none">None</button>`);
  assert.equal(await coverOf(page, 'far'), null);
  assert.equal(await coverOf(page, 'none'), null);
});
