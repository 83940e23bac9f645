// Runs inside Chromium (LivePage): each local and session storage entry's key with a digest of its value, never
// the value itself.

const storageDigests = () => {
  const hash = s => {
    let h1 = 0x811c9dc5, h2 = 0x01000193;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
    }
    return h1.toString(16) + h2.toString(16);
  };
  const out = [];
  for (const [kind, store] of [['local', () => localStorage], ['session', () => sessionStorage]]) {
    let s;
    try { s = store(); } catch (e) { continue; }
    for (let i = 0; i < s.length; i++) {
      const k = s.key(i);
      out.push([kind, k, hash(s.getItem(k) || '')]);
    }
  }
  return out;
};

export default storageDigests;
