// Bundles each script the provider runs in Chromium from its ES module in page/ (and what it imports) into one
// expression whose value is the module's default export, a function, as Playwright evaluates it: a page.evaluate of
// the text calls that function with the call's argument. The scripts land among the plugin's classes, under
// dev/periscope/browser/playwright/scripts/, where PageScripts reads them. Usage:
// node build.js <classes directory> <test classes directory>.
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The modules the provider evaluates, each with a default export: a function of the evaluation's argument (and of
// the element first, for a script an element handle evaluates), or guards.js's of its settings.
export const SCRIPTS = [
  'observe', 'observe-settled', 'extract', 'guards', 'hit-test', 'ready-point',
  'mark-secret', 'fill-secret', 'shows-text', 'still-shown', 'storage-digests', 'choose-suggestion', 'select-fit',
  'watch-typing', 'typing-settled', 'view', 'screenshot-size', 'state-digest', 'session-entries',
  'read-registry', 'hand-over', 'focused-field', 'quote-names', 'reach-proxy',
  'caret-at-end',
];
// Parts of the observation the Java tests run on their own (LabelsTest, AccessibleNamesTest): among the test
// classes only.
export const TEST_SCRIPTS = ['labels', 'names'];

const here = dirname(fileURLToPath(import.meta.url));
// The name esbuild gives the module's exports inside the bundle: local to the function the bundle is wrapped in.
const EXPORTS = 'pageScript';

/** Each script's text by name, bundled from page/<name>.js. */
export async function bundle(names = SCRIPTS) {
  const result = await build({
    entryPoints: names.map((name) => join(here, 'page', name + '.js')),
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    globalName: EXPORTS,
    // What Chromium runs as it is: no syntax is lowered, and names stay as written for a stack trace's sake.
    target: 'esnext',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'warning',
  });
  const scripts = new Map();
  for (const file of result.outputFiles) {
    // Wrapped in a function, esbuild's `var pageScript = ...` names nothing in the page; its value is the function.
    scripts.set(basename(file.path, '.js'), `(() => {\n${file.text}return ${EXPORTS}.default;\n})()\n`);
  }
  return scripts;
}

const write = async (names, classes) => {
  const out = join(classes, 'dev', 'periscope', 'browser', 'playwright', 'scripts');
  mkdirSync(out, { recursive: true });
  for (const [name, text] of await bundle(names)) writeFileSync(join(out, name + '.js'), text);
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = join(here, '..', '..', '..', 'target');
  await write(SCRIPTS, process.argv[2] || join(target, 'classes'));
  await write(TEST_SCRIPTS, process.argv[3] || join(target, 'test-classes'));
}
