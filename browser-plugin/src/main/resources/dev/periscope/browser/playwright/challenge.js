// Runs inside Chromium, in the main document, as part of observe.js. Recognises a bot wall or challenge from the
// page's structure only (the markers each vendor's embed puts in the page; no call to anyone): a captcha widget
// that is shown and not solved yet, a challenge page standing in front of the site, a sign-in form laid over the
// content. Given the observation's kept elements ({el, target, covered}), every element shown (kept or not: a
// summary leaves most of them out) and what tells whether something covers an element's centre, returns what it
// found and which kept elements an action cannot go past, or null. Reads nothing of a field's value but whether a
// response field is empty.
(kept, shownElements, isCovered) => {
  const shown = (el) => {
    if (!el) return false;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none' && s.opacity !== '0';
  };
  const srcOf = (frame) => {
    try { return new URL(frame.getAttribute('src') || '', document.baseURI); } catch (e) { return null; }
  };
  const withoutQuery = (u) => u ? u.origin + u.pathname : '';
  const frames = Array.from(document.querySelectorAll('iframe'));
  // Each vendor's widget: the container its embed asks for, the frame it draws in, and the field its token lands
  // in once a person (or the vendor's check) passes it. An invisible widget runs on submit by itself: not one.
  const WIDGETS = [
    { vendor: 'recaptcha', container: '.g-recaptcha,[data-recaptcha-sitekey]', response: 'g-recaptcha-response',
      frame: (u, f) => /\/recaptcha\/(api2|enterprise)\/anchor/.test(u.pathname) || /^reCAPTCHA$/i.test(f.title) },
    { vendor: 'hcaptcha', container: '.h-captcha', response: 'h-captcha-response',
      frame: (u, f) => /(^|\.)hcaptcha\.com$/.test(u.hostname) || f.hasAttribute('data-hcaptcha-widget-id')
        || /hcaptcha/i.test(f.title) },
    { vendor: 'turnstile', container: '.cf-turnstile', response: 'cf-turnstile-response',
      frame: (u) => u.hostname === 'challenges.cloudflare.com' || /\/cdn-cgi\/challenge-platform\/.*turnstile/.test(u.pathname) }
  ];
  const inside = (frame, container) => container && container.contains(frame);
  const keptIn = (root) => kept.filter((k) => root && root.contains(k.el));
  for (const w of WIDGETS) {
    const containers = Array.from(document.querySelectorAll(w.container))
      .filter((c) => (c.getAttribute('data-size') || '').toLowerCase() !== 'invisible');
    const frame = frames.find((f) => { const u = srcOf(f); return u && w.frame(u, f) && shown(f); });
    const container = containers.find((c) => shown(c) || (frame && inside(frame, c)));
    if (!frame && !container) continue;
    const root = container || frame.parentElement;
    const responses = Array.from(document.getElementsByName(w.response));
    if (responses.some((r) => r.value && r.value.length > 0)) continue; // solved: it stands in no one's way
    const form = root.closest('form');
    const submits = form
      ? kept.filter((k) => k.el.form === form && (k.el.type === 'submit' || k.el.type === 'image'))
      : [];
    const own = keptIn(root).filter((k) => !responses.includes(k.el));
    return {
      kind: 'captcha', vendor: w.vendor, frame: frame ? withoutQuery(srcOf(frame)) : '',
      target: own.length ? own[0].target : null, frameSrc: frame ? srcOf(frame).href : '',
      gated: own.concat(submits).map((k) => k.target), wholePage: false
    };
  }
  // Cloudflare's challenge page ("Just a moment..."), which runs its check before the site is shown.
  const cloudflarePage = document.querySelector('#challenge-form,#cf-challenge-running,#challenge-stage,'
      + '#challenge-body-text,.cf-browser-verification,#cf-please-wait,#cf-wrapper #cf-error-details')
    || typeof window._cf_chl_opt === 'object'
    || /^(just a moment\.\.\.|attention required! \| cloudflare)$/i.test(document.title.trim());
  if (cloudflarePage) {
    const frame = frames.find((f) => { const u = srcOf(f); return u && /challenges\.cloudflare\.com|\/cdn-cgi\/challenge-platform\//.test(u.href); });
    return {
      kind: 'interstitial', vendor: 'cloudflare', frame: frame ? withoutQuery(srcOf(frame)) : '',
      target: null, frameSrc: frame ? srcOf(frame).href : '', gated: kept.map((k) => k.target), wholePage: true
    };
  }
  // A login wall: a shown password field in a modal (a dialog, or a fixed layer over a quarter of the viewport or
  // more) that covers the page's other elements (the first few of them looked at). A sign-in page of its own is a
  // page like any other.
  const area = Math.max(1, innerWidth * innerHeight);
  const modalOf = (el) => {
    for (let n = el; n && n !== document.body; n = n.parentElement) {
      if (n.matches('dialog[open],[aria-modal=true]')) return n;
      if (n.getAttribute('role') === 'dialog' || n.getAttribute('role') === 'alertdialog') return n;
      const s = getComputedStyle(n);
      if (s.position === 'fixed') {
        const r = n.getBoundingClientRect();
        if (r.width * r.height >= 0.25 * area) return n;
      }
    }
    return null;
  };
  for (const field of document.querySelectorAll('input[type=password]')) {
    if (!shown(field)) continue;
    const modal = modalOf(field);
    if (!modal) continue;
    const behind = shownElements.filter((el) => !modal.contains(el)).slice(0, 20);
    if (!behind.some(isCovered)) continue;
    const covered = kept.filter((k) => k.covered && !modal.contains(k.el));
    const mine = kept.find((k) => k.el === field);
    return {
      kind: 'login_wall', vendor: '', frame: '', target: mine ? mine.target : null, frameSrc: '',
      gated: covered.map((k) => k.target), wholePage: false
    };
  }
  return null;
}
