// focused-field.js: what has the keyboard's focus, through shadow roots; quote-names.js: names as a failure quotes
// them; hand-over.js: listener targets handed to the registry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumForTests } from './chromium.js';

const chromium = chromiumForTests();

test('a password field focused inside an open shadow root is a password; a frame is a frame', async () => {
  const page = await chromium.page(`<div id="host"></div><input id="name"><iframe srcdoc="<input>"></iframe>`);
  const seen = await page.evaluate(async () => {
    const { default: focusedField } = await import('/page/focused-field.js');
    const root = document.getElementById('host').attachShadow({ mode: 'open' });
    root.innerHTML = '<input type="password">';
    const out = [];
    document.getElementById('name').focus();
    out.push(focusedField('no-registry'));
    root.querySelector('input').focus();
    out.push(focusedField('no-registry'));
    document.querySelector('iframe').focus();
    out.push(focusedField('no-registry'));
    return out;
  });
  assert.deepEqual(seen, ['', 'password', 'frame']);
});

test('names are quoted from aria-label or text, whitespace collapsed and cut, five at most', async () => {
  const page = await chromium.page('<p>names</p>');
  const quoted = await page.evaluate(async () => {
    const { default: quoteNames } = await import('/page/quote-names.js');
    const make = (html) => { const d = document.createElement('div'); d.innerHTML = html; return d.firstChild; };
    const els = [make('<button aria-label="Save draft">S</button>'), make('<span>  Very   long\ntext </span>')];
    for (let i = 0; i < 5; i++) els.push(make('<b>x' + i + '</b>'));
    return quoteNames(els, 8);
  });
  assert.deepEqual(quoted, ['"Save dra"', '"Very lon"', '"x0"', '"x1"', '"x2"']);
});

test('listener targets handed over land in the registry by kind; body and text nodes never', async () => {
  const page = await chromium.page('<div id="a">a</div><div id="b">b</div><div id="c">c</div>');
  const kept = await page.evaluate(async () => {
    const { default: handOver } = await import('/page/hand-over.js');
    const [a, b, c] = ['a', 'b', 'c'].map((id) => document.getElementById(id));
    window['k-2'] = {};
    handOver('k-2', false, 'pkbp', a, b, c, document.body);
    const r = window['k-2'];
    const first = [a, b, c, document.body].map((e) => [r.listened.has(e), r.keyed.has(e)]);
    handOver('k-2', true, 'p', b);
    return { first, replaced: [r.listened.has(a), r.listened.has(b)] };
  });
  assert.deepEqual(kept.first, [[true, false], [false, true], [true, true], [false, false]]);
  assert.deepEqual(kept.replaced, [false, true]);
});
