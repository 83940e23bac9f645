// shadow.js: shadow roots, open and closed, walked as part of the page; a forged registry entry leads nowhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumForTests } from './chromium.js';

const chromium = chromiumForTests();

test('an open root, a closed root the registry kept, and nothing for a forged entry', async () => {
  const page = await chromium.page('<div id="open"></div><div id="closed"></div><div id="forged"></div>');
  const found = await page.evaluate(async () => {
    const { shadowWalk } = await import('/page/shadow.js');
    const open = document.getElementById('open');
    open.attachShadow({ mode: 'open' }).innerHTML = '<section class="card"><button>In open</button></section>';
    const closed = document.getElementById('closed');
    const closedRoot = closed.attachShadow({ mode: 'closed' });
    closedRoot.innerHTML = '<button>In closed</button>';
    const forged = document.getElementById('forged');
    const registry = { closedRoots: new WeakMap([[closed, closedRoot], [forged, closedRoot]]) };
    const { shadowOf, closestAcross } = shadowWalk(registry);
    const button = shadowOf(open).querySelector('button');
    return {
      open: shadowOf(open) === open.shadowRoot,
      closed: shadowOf(closed) === closedRoot,
      closedWithoutRegistry: shadowWalk(null).shadowOf(closed),
      forged: shadowOf(forged),
      card: closestAcross(button, '.card').localName,
      host: closestAcross(button, '#open') === open,
      none: closestAcross(button, 'table'),
    };
  });
  assert.deepEqual(found, {
    open: true, closed: true, closedWithoutRegistry: null, forged: null, card: 'section', host: true, none: null,
  });
});
