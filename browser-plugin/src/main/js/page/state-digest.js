// Runs inside Chromium (EnvironmentState, through BrowserStorage): one frame's storage, digested in the page, so that a
// checkpoint is taken only when something changed. Its origin and a hash of its local storage, session storage and
// IndexedDB: each database's version, and each store's count and first `records` keys and records. A database that
// cannot be opened within a second is `busy`, which counts as a change (the hash differs each time).

// A 53-bit hash of a string (two 32-bit lanes mixed at the end).
const hash = (s) => {
  let a = 0xdeadbeef;
  let b = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 2654435761);
    b = Math.imul(b ^ c, 1597334677);
  }
  a = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return (4294967296 * (2097151 & b) + (a >>> 0)).toString(36);
};

// A Web Storage area's entries, sorted; null when the page may not read it.
const entries = (name) => {
  try {
    const s = window[name];
    const e = [];
    for (let i = 0; i < s.length; i++) {
      const k = s.key(i);
      e.push([k, s.getItem(k)]);
    }
    e.sort();
    return e;
  } catch {
    return null;
  }
};

const request = (r) =>
  new Promise((ok, fail) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error);
  });

// Each database: its name, version, and each store's name, count, first keys and first records.
const databases = async (records) => {
  const out = [];
  if (!window.indexedDB || !indexedDB.databases) return out;
  for (const d of await indexedDB.databases()) {
    const db = await new Promise((ok, fail) => {
      const r = indexedDB.open(d.name);
      // Opening must not create or upgrade a database: an upgrade is aborted.
      r.onupgradeneeded = () => r.transaction.abort();
      r.onsuccess = () => ok(r.result);
      r.onerror = () => fail(r.error);
    });
    try {
      const stores = Array.from(db.objectStoreNames);
      const part = [d.name, db.version];
      if (stores.length) {
        const tx = db.transaction(stores, 'readonly');
        for (const s of stores) {
          const st = tx.objectStore(s);
          part.push(
            s,
            await request(st.count()),
            JSON.stringify(await request(st.getAllKeys(null, records))),
            JSON.stringify(await request(st.getAll(null, records))),
          );
        }
      }
      out.push(part);
    } finally {
      db.close();
    }
  }
  return out;
};

const stateDigest = async (records) => {
  let idb;
  try {
    idb = await Promise.race([
      databases(records),
      new Promise((ok) => setTimeout(() => ok('busy ' + Math.random()), 1000)),
    ]);
  } catch {
    idb = 'unreadable';
  }
  return location.origin + ' ' + hash(JSON.stringify([entries('localStorage'), entries('sessionStorage'), idb]));
};

export default stateDigest;
