// Runs inside Chromium (PageWaits, on the elements a wait's role matched): the first five elements' names as a
// failure quotes them, each its aria-label or text, whitespace collapsed and cut to `most` characters.

export default function quoteNames(elements, most) {
  return elements
    .slice(0, 5)
    .map((e) => '"' + (e.getAttribute('aria-label') || e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, most) + '"');
}
