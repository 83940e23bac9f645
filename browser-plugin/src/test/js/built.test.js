// The scripts as the build bundles them (build.js) and the provider evaluates them: observe.js with what it imports
// (records, states, the registry of identities), and guards.js installed in every document with its settings.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { bundle } from '../../main/js/build.js';
import { chromiumForTests } from './chromium.js';

const chromium = chromiumForTests();
let scripts;
before(async () => { scripts = await bundle(); });

// As Java's Playwright client has a script's text evaluated: the value of the expression, a function, is called with
// the argument (the Node.js client would evaluate a string as an expression only).
const run = (page, name, arg) => page.evaluate(([source, arg]) => (0, eval)(source)(arg), [scripts.get(name), arg]);
const runForHandle = (page, name, arg) =>
  page.evaluateHandle(([source, arg]) => (0, eval)(source)(arg), [scripts.get(name), arg]);

const KEY = '__periscope_test_registry';
const request = (extra = {}) => ({ key: KEY, selector: 'a[href],button,input,select,textarea', maxTextChars: 2000,
  maxElements: 50, tiers: [1, 2, 3, 4, 5], maxValueChars: 456, ...extra });

test('an observation lists what a person sees, by name, and never a password', async () => {
  const page = await chromium.page(`
    <button>Visible</button><button style="visibility:hidden">Invisible</button>
    <button style="width:0;height:0;padding:0;border:0;overflow:hidden">Zero</button>
    <label>User <input value="ada"></label><label>Password <input type="password" value="s3cret"></label>`);
  const seen = await run(page, 'observe', request());
  const byName = Object.fromEntries(seen.elements.map((e) => [e.name, e]));
  assert.deepEqual(Object.keys(byName).sort(), ['Password', 'User', 'Visible']);
  assert.equal(byName.User.state.value, 'ada');
  assert.deepEqual(byName.Password.state, { flags: ['filled'] });
  assert.ok(!JSON.stringify(seen).includes('s3cret'));
});

test('repeated cards are records with their titles, and a target resolves to the very node observed', async () => {
  const card = (title, price) => `<li class="card"><h3>${title}</h3><span>${price}</span>
    <a href="/item/${title}">${title}</a><button>Add ${title} to cart</button></li>`;
  const page = await chromium.page(`<ul>${card('Kettle', '€20')}${card('Toaster', '€35')}${card('Mug', '€5')}</ul>`);
  const seen = await run(page, 'observe', request());
  assert.deepEqual(seen.records.map((r) => r.title), ['Kettle', 'Toaster', 'Mug']);
  assert.ok(seen.records.every((r, n) => r.detail.startsWith(['€20', '€35', '€5'][n])), JSON.stringify(seen.records));
  const add = seen.elements.find((e) => e.name === 'Add Toaster to cart');
  assert.equal(add.groupKey, seen.records[1].key);
  assert.ok(add.groupLabel.startsWith('Toaster · €35'), add.groupLabel);
  const resolved = await runForHandle(page, 'observe',
    request({ resolve: add.target, fingerprint: add.fingerprint, clickable: false }));
  assert.equal(await resolved.evaluate((el) => el.textContent), 'Add Toaster to cart');
  // The same node with another record's title is stale: its fingerprint says the record.
  await page.evaluate(() => { document.querySelectorAll('h3')[1].textContent = 'Blender'; });
  const stale = await run(page, 'observe',
    request({ resolve: add.target, fingerprint: add.fingerprint, clickable: false }));
  assert.equal(stale, null);
});

test('the guards block a window the agent did not open and record it under the registry only the provider names', async () => {
  const page = await chromium.page('', { own: true });
  const install = (settings) => '(' + scripts.get('guards') + ')(' + JSON.stringify(settings) + ');';
  await page.context().addInitScript(install({ key: KEY, downloads: false, windows: true }));
  // A page's own script on load, with no user activation (an evaluation from here would carry one).
  const origin = new URL(page.url()).origin;
  await page.route(origin + '/opener', (route) => route.fulfill({ contentType: 'text/html', body:
    '<a id="file" href="/report.pdf" download>Report</a><script>window.opened = window.open("/elsewhere");'
    + ' document.getElementById("file").click();</script>' }));
  await page.goto(origin + '/opener');
  const seen = await page.evaluate((key) => ({ opened: window.opened, blocked: window[key].blocked.slice(),
    listed: Object.keys(window).includes(key) }), KEY);
  assert.deepEqual(seen, { opened: null, blocked: ['the page tried to open a new window', 'the link downloads a file'],
    listed: false });
});
