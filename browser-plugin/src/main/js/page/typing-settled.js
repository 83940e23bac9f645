// Runs inside Chromium after typing (TypingReactions): waits while the page reacts to what was typed (at least
// `least` ms, `suggestLeast` for a field that suggests, until `quiet` ms pass without a change, at most `most`),
// then stops watching. Whether the page changed.

const typingSettled = async ({ key, least, suggestLeast, quiet, most }) => {
  const r = window[key];
  const watching = r && r.reaction;
  if (!watching) return false;
  const start = performance.now();
  const el = document.activeElement;
  const suggests = !!el && (el.getAttribute('role') === 'combobox' || el.hasAttribute('aria-autocomplete')
    || el.hasAttribute('list') || el.type === 'search' || el.hasAttribute('aria-controls')
    || el.hasAttribute('aria-owns') || /autocomplete|typeahead|suggest|search|query|combo/i.test(
      (typeof el.className === 'string' ? el.className : '') + ' ' + (el.id || '') + ' ' + (el.name || '')));
  const wait = Math.max(least, suggests ? suggestLeast : 0);
  try {
    for (;;) {
      const now = performance.now();
      const changed = watching.seen.last >= start;
      if (now - start >= most) return changed;
      if (now - start >= wait && (!changed || now - watching.seen.last >= quiet)) return changed;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    watching.stop();
    delete r.reaction;
  }
};

export default typingSettled;
