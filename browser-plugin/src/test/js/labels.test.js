// labels.js: an element's labels as Chromium's own el.labels has them, found in one pass per root.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumForTests } from './chromium.js';

const chromium = chromiumForTests();

const labelsOf = (page) => page.evaluate(async () => {
  const { makeLabelsOf } = await import('/page/labels.js');
  const labelsOf = makeLabelsOf();
  const text = (el) => labelsOf(el).map((l) => l.textContent.trim());
  const out = {};
  for (const el of document.querySelectorAll('[data-case]')) out[el.dataset.case] = text(el);
  const host = document.getElementById('host');
  if (host) for (const el of host.shadowRoot.querySelectorAll('[data-case]')) out[el.dataset.case] = text(el);
  return out;
});

test('a label for= an id and a label wrapping a field both label it, in tree order', async () => {
  const page = await chromium.page(`
    <label for="a">First</label><input id="a" data-case="for">
    <label>Wrapping <input data-case="wrapped"></label>
    <label for="b">Before</label><label>Around <input id="b" data-case="both"></label>`);
  assert.deepEqual(await labelsOf(page), {
    for: ['First'], wrapped: ['Wrapping'], both: ['Before', 'Around'],
  });
});

test('a label with for= labels the field it names, not the one it wraps', async () => {
  const page = await chromium.page(`
    <label for="named">Named <input data-case="wrapped"></label><input id="named" data-case="named">`);
  assert.deepEqual(await labelsOf(page), { wrapped: [], named: ['Named'] });
});

test('labels are found within the field\'s own shadow root, and what is no labelable element has none', async () => {
  const page = await chromium.page(`<div id="host"></div><span data-case="span">text</span>`);
  await page.evaluate(() => {
    const root = document.getElementById('host').attachShadow({ mode: 'open' });
    root.innerHTML = '<label for="s">Inside</label><input id="s" data-case="shadowed">';
  });
  assert.deepEqual(await labelsOf(page), { span: [], shadowed: ['Inside'] });
});

test('the labels agree with Chromium\'s el.labels for every field of a page', async () => {
  const page = await chromium.page(`
    <label for="x">X</label><label for="x">X again</label><input id="x">
    <label>Select <select><option>1</option></select></label><label>Area<textarea></textarea></label>
    <label for="m">Meter</label><meter id="m"></meter><label>Button <button>b</button></label>
    <label for="h">Hidden</label><input id="h" type="hidden">`);
  const differ = await page.evaluate(async () => {
    const { makeLabelsOf } = await import('/page/labels.js');
    const labelsOf = makeLabelsOf();
    return Array.from(document.querySelectorAll('input,select,textarea,meter,button'))
      .filter((el) => {
        const want = Array.from(el.labels || []);
        const got = labelsOf(el);
        return want.length !== got.length || want.some((l, i) => l !== got[i]);
      }).map((el) => el.outerHTML);
  });
  assert.deepEqual(differ, []);
});
