// Runs inside Chromium when a wait for text to go ran out (PageWaits): the first element whose text still holds it,
// quoted to at most `most` characters.

const stillShown = ({ text, most }) => {
  const norm = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();
  const want = norm(text).toLowerCase();
  if (!document.body) return '';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(), seen = 0; n && seen < 50000; n = walker.nextNode(), seen++) {
    const at = n.parentElement;
    if (!at || at.localName === 'script' || at.localName === 'style') continue;
    if (!norm(at.textContent).toLowerCase().includes(want)) continue;
    const t = norm(at.textContent);
    return at.localName + ' "' + (t.length > most ? t.slice(0, most) + '…' : t) + '"';
  }
  return 'the page (its text holds it across elements)';
};

export default stillShown;
