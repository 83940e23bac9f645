'use strict';
// Periscope's code cache for Playwright's Node.js driver (DriverFiles writes this file next to the
// unpacked driver; Lane starts the driver with `node --require` of it). V8 keeps what it compiled of
// the driver's files in code-cache/ beside this file, so the next driver start reads compiled code
// instead of parsing and compiling 3.6 MB of JavaScript again: a driver starts in about half the
// time, which is most of what a cold host waits for before its first browser runs.
//
// Node 22.8 and later have this built in (module.enableCompileCache): that is used when present.
// Otherwise the driver's own files (and nothing else) are compiled through vm.Script with the
// cached data; V8 checks that data against its own version, flags and the source, and a cache it
// rejects (another Node.js, a damaged file) is only a slower start, after which it is written anew.
// Written twice at most per process: some seconds after the start, so that what the first browser
// launch and page compiled is in it, and at exit; each file is written under a temporary name and
// renamed into place, so a driver that is killed, or two that start at once, leave no torn file.
// Nothing here may stop the driver from starting: whatever fails only costs the cache.
const Module = require('module');
const path = require('path');
const cacheDir = path.join(__dirname, 'code-cache');

try {
  // V8 checks a cache's header and length, but its checksum only when asked: a file damaged on disk
  // with its length intact would otherwise be run as code (seen: a crash at every start after).
  require('v8').setFlagsFromString('--verify-snapshot-checksum');
  if (typeof Module.enableCompileCache === 'function') {
    Module.enableCompileCache(cacheDir);
  } else {
    const vm = require('vm');
    // Without it, a dynamic import() in the driver would fail under vm.Script (Node 20.12 and later
    // have it); on an older Node.js nothing is cached.
    const importLoader = vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER;
    if (importLoader !== undefined) {
      cacheDriverCode(vm, importLoader);
    }
  }
} catch (failed) {
  // the driver starts without its cache
}

function cacheDriverCode(vm, importLoader) {
  const fs = require('fs');
  const crypto = require('crypto');
  const driverRoot = __dirname + path.sep;
  const SAVE_AFTER_MS = 8000;
  const unsaved = [];
  const compile = Module.prototype._compile;

  Module.prototype._compile = function (content, filename, format) {
    if (
      (format !== undefined && format !== 'commonjs') ||
      typeof content !== 'string' ||
      typeof filename !== 'string' ||
      !filename.startsWith(driverRoot) ||
      !filename.endsWith('.js')
    ) {
      return compile.apply(this, arguments);
    }
    const key = crypto
      .createHash('sha256')
      .update(process.version + '\0' + process.arch + '\0' + filename + '\0')
      .update(content)
      .digest('hex')
      .slice(0, 40);
    const file = path.join(cacheDir, key + '.bin');
    let cachedData;
    try {
      cachedData = fs.readFileSync(file);
    } catch (absent) {
      cachedData = undefined;
    }
    let script;
    try {
      script = new vm.Script(Module.wrap(content), {
        filename,
        cachedData,
        importModuleDynamically: importLoader,
      });
    } catch (failed) {
      // Node.js itself reports what is wrong with the file.
      return compile.apply(this, arguments);
    }
    if (cachedData === undefined || script.cachedDataRejected) {
      unsaved.push({ script, file });
    }
    const wrapper = script.runInThisContext({ displayErrors: true });
    const module = this;
    const require = function require(id) {
      return module.require(id);
    };
    require.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
    require.resolve.paths = (request) => Module._resolveLookupPaths(request, module);
    require.main = process.mainModule;
    require.extensions = Module._extensions;
    require.cache = Module._cache;
    return wrapper.call(module.exports, module.exports, require, module, filename, path.dirname(filename));
  };

  function save() {
    for (const { script, file } of unsaved.splice(0)) {
      const temporary = file + '.' + process.pid + '.tmp';
      try {
        fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        // On disk before it takes the name: a power loss leaves the old file or the whole new one.
        const fd = fs.openSync(temporary, 'wx', 0o600);
        try {
          fs.writeSync(fd, script.createCachedData());
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(temporary, file);
      } catch (failed) {
        // The next start compiles again and tries once more.
        try {
          fs.unlinkSync(temporary);
        } catch (gone) {
          // nothing was written
        }
      }
    }
  }

  // What a driver killed while it wrote left behind, once it is an hour old.
  try {
    const hourAgo = Date.now() - 3600 * 1000;
    for (const name of fs.readdirSync(cacheDir)) {
      const left = path.join(cacheDir, name);
      if (name.endsWith('.tmp') && fs.lstatSync(left).mtimeMs < hourAgo) {
        fs.unlinkSync(left);
      }
    }
  } catch (absent) {
    // no cache yet
  }

  setTimeout(save, SAVE_AFTER_MS).unref();
  process.once('exit', save);
}
