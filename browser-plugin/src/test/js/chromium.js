// What the page scripts' tests share: one headless Chromium per test file (the system's own, as the plugin runs it,
// never a download) and a server on 127.0.0.1 that serves the modules of src/main/js/page under /page/, so a test
// imports the very module it tests into a page of its own. Nothing here dials out: pages are set from the test's
// HTML, and Chromium's own background traffic is switched off.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

const PAGE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'main', 'js', 'page');

// PERISCOPE_CHROMIUM, else the Chromium the plugin runs headless: its headless shell's binary when it is installed,
// else the first browser on the usual paths (scripts/ensure-browser installs Debian's).
const executable = () => {
  const found = [process.env.PERISCOPE_CHROMIUM, '/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium',
    '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => p && existsSync(p));
  if (!found) throw new Error('no Chromium: set PERISCOPE_CHROMIUM or run scripts/ensure-browser');
  return found;
};

/** Starts Chromium and the server before the file's tests and stops them after; `page()` opens a fresh page. */
export function chromiumForTests() {
  const state = {};
  before(async () => {
    state.server = createServer(async (req, res) => {
      const path = new URL(req.url, 'http://127.0.0.1').pathname;
      if (path.startsWith('/page/')) {
        const file = normalize(join(PAGE, path.slice('/page/'.length)));
        if (file.startsWith(PAGE) && file.endsWith('.js')) {
          try {
            const body = await readFile(file);
            res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(body);
            return;
          } catch { /* not a module: 404 below */ }
        }
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>blank</title>');
    });
    await new Promise((resolve) => state.server.listen(0, '127.0.0.1', resolve));
    state.base = 'http://127.0.0.1:' + state.server.address().port;
    state.browser = await chromium.launch({
      executablePath: executable(),
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
        '--no-first-run', '--disable-default-apps', '--disable-domain-reliability'],
    });
  });
  after(async () => {
    await state.browser?.close();
    await new Promise((resolve) => (state.server ? state.server.close(resolve) : resolve()));
  });
  return {
    /**
     * A page of the test server's origin showing `html`, where `import('/page/<module>.js')` finds a module: a new
     * document in the file's one page (a context costs a second), or in a page of its own context when the test
     * installs scripts in it (`own`).
     */
    async page(html = '', { width = 800, height = 600, own = false } = {}) {
      let page = own ? null : state.page;
      if (!page) {
        const context = await state.browser.newContext({ viewport: { width, height } });
        // Only the test server answers: whatever else a page asks for fails at once.
        await context.route((url) => !url.href.startsWith(state.base), (route) => route.abort());
        page = await context.newPage();
        if (!own) state.page = page;
      }
      await page.setViewportSize({ width, height });
      await page.goto(state.base + '/');
      if (html) await page.setContent(html);
      return page;
    },
    get base() { return state.base; },
  };
}
