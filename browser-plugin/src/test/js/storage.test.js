// state-digest.js and session-entries.js: what a checkpoint reads of a frame's storage; read-registry.js: what the
// guards recorded, taken once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumForTests } from './chromium.js';

const chromium = chromiumForTests();

test('the storage digest changes with local, session and IndexedDB storage, and only then', async () => {
  const page = await chromium.page('<p>storage</p>', { own: true });
  const digests = await page.evaluate(async () => {
    const { default: digest } = await import('/page/state-digest.js');
    const out = [await digest(200), await digest(200)];
    localStorage.setItem('cart', '1');
    out.push(await digest(200));
    sessionStorage.setItem('step', '2');
    out.push(await digest(200));
    await new Promise((ok, fail) => {
      const r = indexedDB.open('app', 1);
      r.onupgradeneeded = () => r.result.createObjectStore('todos').put('milk', 1);
      r.onsuccess = () => { r.result.close(); ok(); };
      r.onerror = () => fail(r.error);
    });
    out.push(await digest(200));
    out.push(await digest(200));
    return out;
  });
  assert.equal(digests[0], digests[1], 'the same storage, the same digest');
  assert.ok(digests[0].startsWith(chromium.base + ' '), digests[0]);
  assert.equal(new Set(digests.slice(1, 5)).size, 4, 'each change changed it: ' + digests);
  assert.equal(digests[4], digests[5]);
});

test('session entries are the frame\'s origin and its session storage, values as they are', async () => {
  const page = await chromium.page('<p>session</p>', { own: true });
  const read = await page.evaluate(async () => {
    const { default: sessionEntries } = await import('/page/session-entries.js');
    sessionStorage.setItem('token', 'abc');
    return sessionEntries();
  });
  assert.deepEqual(read, { origin: chromium.base, items: [{ name: 'token', value: 'abc' }] });
});

test('the guards\' registry is read once: a second read finds it empty', async () => {
  const page = await chromium.page('<p>registry</p>');
  const reads = await page.evaluate(async () => {
    const { default: readRegistry } = await import('/page/read-registry.js');
    window['k-1'] = { blocked: ['a popup'], navigated: true, opened: 2, downloading: 1 };
    return [readRegistry('k-1'), readRegistry('k-1'), readRegistry('missing')];
  });
  assert.deepEqual(reads[0], { blocked: ['a popup'], navigated: true, opened: 2, downloading: 1 });
  assert.deepEqual(reads[1], { blocked: [], navigated: false, opened: 0, downloading: 0 });
  assert.deepEqual(reads[2], reads[1]);
});
