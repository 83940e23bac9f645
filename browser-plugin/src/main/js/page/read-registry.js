// Runs inside Chromium (PageGuards): takes what the document's guards (guards.js) recorded since they were last read,
// from their registry under `key`, and empties it: what they blocked, whether the document navigated, how many new
// windows it opened in answer to the agent's input, and how many download links were clicked.

const readRegistry = (key) => {
  const r = window[key];
  if (!r) return { blocked: [], navigated: false, opened: 0, downloading: 0 };
  const blocked = r.blocked.slice();
  r.blocked.length = 0;
  const navigated = !!r.navigated;
  r.navigated = false;
  const opened = r.opened || 0;
  r.opened = 0;
  const downloading = r.downloading || 0;
  r.downloading = 0;
  return { blocked, navigated, opened, downloading };
};

export default readRegistry;
