// Runs inside Chromium (BrowserStorage): the session storage of one frame, its origin and entries, for a checkpoint;
// null when the page may not read it.

const sessionEntries = () => {
  try {
    const items = [];
    for (let i = 0; i < sessionStorage.length; i++) {
      const k = sessionStorage.key(i);
      items.push({ name: k, value: sessionStorage.getItem(k) });
    }
    return { origin: location.origin, items };
  } catch {
    return null;
  }
};

export default sessionEntries;
