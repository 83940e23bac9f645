// Installs the tools the page scripts are built, linted and tested with (package.json, pinned in package-lock.json)
// into node_modules with `npm ci`, unless node_modules was installed from this very lock file: a build after the
// first needs no network (mvn -o) and spends nothing here. Only the build's tools come from npm; nothing of
// node_modules goes into the plugin but what esbuild bundles of src/main/js.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const lock = readFileSync(join(root, 'package-lock.json'), 'utf8');
// Written last, so that an install that failed half-way is done again.
const stamp = join(root, 'node_modules', '.installed-from-package-lock.json');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lock) {
  // No install scripts: esbuild's only checks its binary, and the tests run the system's Chromium, not a download.
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
  });
  writeFileSync(stamp, lock);
}
