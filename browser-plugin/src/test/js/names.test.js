// names.js: the accessible name (accname 1.2 with HTML-AAM), and a nameless field's hint.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumForTests } from './chromium.js';

const chromium = chromiumForTests();

const namesIn = (page, what = 'name') => page.evaluate(async (what) => {
  const { makeNames } = await import('/page/names.js');
  const names = makeNames();
  const out = {};
  for (const el of document.querySelectorAll('[data-case]')) out[el.dataset.case] = names[what](el);
  return out;
}, what);

test('aria-labelledby goes before aria-label, which goes before the label and the content', async () => {
  const page = await chromium.page(`
    <span id="l1">Labelled</span><span id="l2">twice</span>
    <button data-case="labelledby" aria-labelledby="l1 l2" aria-label="Not this">Nor this</button>
    <button data-case="aria-label" aria-label="Close dialog">×</button>
    <label for="f">Email</label><input id="f" data-case="label" title="Not the title">
    <button data-case="content">Save <b>all</b></button>`);
  assert.deepEqual(await namesIn(page), {
    labelledby: 'Labelled twice', 'aria-label': 'Close dialog', label: 'Email', content: 'Save all',
  });
});

test('an image is named by its alt, a control with nothing else by its title, and hidden text names nothing', async () => {
  const page = await chromium.page(`
    <img data-case="img" alt="Company logo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
    <a data-case="image-link" href="#"><img alt="Home" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></a>
    <button data-case="title" title="Settings"></button>
    <button data-case="hidden-text">Go<span style="display:none"> away</span></button>
    <input data-case="nothing">`);
  assert.deepEqual(await namesIn(page), {
    img: 'Company logo', 'image-link': 'Home', title: 'Settings', 'hidden-text': 'Go', nothing: '',
  });
});

test('a field with no name is hinted by the text before it in its row, a checkbox by the text after it', async () => {
  const page = await chromium.page(`
    <table><tr><td>Quantity</td><td><input data-case="row"></td></tr></table>
    <p><input type="checkbox" data-case="checkbox"> Remember me</p>
    <p>Beside <input data-case="named" aria-label="Named already"></p>`);
  assert.deepEqual(await namesIn(page, 'hint'), { row: 'Quantity', checkbox: 'Remember me', named: '' });
});
