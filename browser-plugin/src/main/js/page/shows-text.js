// Runs inside Chromium, polled by a wait for text (PageWaits): whether the page shows the text (in its rendered
// text, or a visible element's label, title, alt or value), compared with whether it should.

const showsText = ({ text, shown }) => {
  const norm = (s) => String(s ?? '').replace(/\s+/g, ' ').trim().toLowerCase();
  const want = norm(text);
  const body = document.body;
  let seen = !!body && norm(body.innerText).includes(want);
  if (!seen && body) {
    const named = body.querySelectorAll(
      '[aria-label],[title],img[alt],input[type=submit],input[type=button]');
    for (const el of named) {
      const name = el.getAttribute('aria-label') || el.getAttribute('alt')
        || el.getAttribute('title') || el.value;
      if (norm(name).includes(want)
          && (!el.checkVisibility || el.checkVisibility({ opacityProperty: true, visibilityProperty: true }))) {
        seen = true;
        break;
      }
    }
  }
  return seen === shown;
};

export default showsText;
