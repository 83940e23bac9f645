// Runs inside Chromium before typing (TypingReactions): watches the document for changes under the environment's
// registry, so that typing-settled.js can wait for the page's reaction to what was typed.

const watchTyping = (key) => {
  const r = window[key];
  if (!r) return;
  if (r.reaction) r.reaction.stop();
  const seen = { last: -1 };
  const watcher = new MutationObserver(() => { seen.last = performance.now(); });
  watcher.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  Object.defineProperty(r, 'reaction', { configurable: true, writable: true, enumerable: false,
    value: { seen, stop: () => watcher.disconnect() } });
};

export default watchTyping;
