// Runs inside Chromium, in the main document, as part of observe.js. Recognises a bot wall or challenge from the
// page's structure only (the markers each vendor's embed puts in a page; no call to anyone): a challenge page
// standing in front of the site, a captcha widget that is shown and not solved yet, a sign-in form laid over the
// content. Given the observation's kept elements ({el, target, covered}), every element shown (kept or not: a
// summary leaves most of them out), the shadow roots the walk went through (open and closed: a widget may draw in
// one) and what covers an element's centre (null when nothing does), returns what it found and which kept elements
// an action cannot go past, or null. Reads nothing of a field's value but whether a response field is empty.
export const findChallenge = (kept, shownElements, shadowRoots, coverOf) => {
  const shown = (el) => {
    if (!el) return false;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none' && s.opacity !== '0';
  };
  // The document and every shadow root: a widget's frame and response field may sit in one.
  const scopes = [document, ...shadowRoots];
  const all = (selector) => scopes.flatMap((s) => Array.from(s.querySelectorAll(selector)));
  const srcOf = (frame) => {
    try { return new URL(frame.getAttribute('src') || '', document.baseURI); } catch (e) { return null; }
  };
  const withoutQuery = (u) => u ? u.origin + u.pathname : '';
  const frames = all('iframe');
  const frameWhere = (test) => frames.find((f) => { const u = srcOf(f); return u && test(u, f); });
  const keptIn = (root) => kept.filter((k) => root && root.contains(k.el));

  // Cloudflare's challenge page ("Just a moment..."), which runs its check before the site is shown: two of its
  // markers at least, since a loading page may share its title. Its error pages (1020, 5xx) are not one.
  const cloudflareMarkers = [
    /^(just a moment\.\.\.|attention required! \| cloudflare)$/i.test(document.title.trim()),
    typeof window._cf_chl_opt === 'object',
    !!document.querySelector('#challenge-form,#cf-challenge-running,#challenge-stage,#challenge-body-text,'
      + '.cf-browser-verification,#cf-please-wait'),
    !!frameWhere((u) => u.hostname === 'challenges.cloudflare.com' || /\/cdn-cgi\/challenge-platform\//.test(u.pathname))
      || !!document.querySelector('script[src*="/cdn-cgi/challenge-platform/"]')
  ].filter(Boolean).length;
  if (cloudflareMarkers >= 2 && !document.querySelector('#cf-error-details')) {
    const frame = frameWhere((u) => u.hostname === 'challenges.cloudflare.com'
      || /\/cdn-cgi\/challenge-platform\//.test(u.pathname));
    return {
      kind: 'interstitial', vendor: 'cloudflare', frame: frame ? withoutQuery(srcOf(frame)) : '',
      target: null, frameSrc: frame ? srcOf(frame).href : '', gated: kept.map((k) => k.target), wholePage: true
    };
  }

  // Each vendor's widget: the container its embed asks for, the frame it draws in, and the field its token lands
  // in once a person (or the vendor's check) passes it. An invisible widget runs on submit by itself and is not
  // one: a container that asks for it, a button bound to one (the container is the button itself), reCAPTCHA's
  // badge (v3 and invisible v2).
  const invisible = (el) => (el.getAttribute('data-size') || '').toLowerCase() === 'invisible'
    || el.matches('button,input,a') || !!el.closest('.grecaptcha-badge');
  const WIDGETS = [
    { vendor: 'recaptcha', container: '.g-recaptcha,[data-recaptcha-sitekey]', response: 'g-recaptcha-response',
      frame: (u, f) => (/\/recaptcha\/(api2|enterprise)\/anchor/.test(u.pathname) || /^reCAPTCHA$/i.test(f.title))
        && u.searchParams.get('size') !== 'invisible' },
    { vendor: 'hcaptcha', container: '.h-captcha', response: 'h-captcha-response',
      frame: (u, f) => (/(^|\.)hcaptcha\.com$/.test(u.hostname) || f.hasAttribute('data-hcaptcha-widget-id')
        || /hcaptcha/i.test(f.title)) && u.searchParams.get('size') !== 'invisible' },
    { vendor: 'turnstile', container: '.cf-turnstile', response: 'cf-turnstile-response',
      frame: (u) => u.hostname === 'challenges.cloudflare.com'
        || /\/cdn-cgi\/challenge-platform\/.*turnstile/.test(u.pathname) }
  ];
  for (const w of WIDGETS) {
    const containers = all(w.container).filter((c) => !invisible(c));
    const frame = frames.find((f) => { const u = srcOf(f); return u && w.frame(u, f) && shown(f) && !invisible(f); });
    const container = containers.find((c) => shown(c) || (frame && c.contains(frame)));
    if (!frame && !container) continue;
    const root = container || frame.parentElement;
    const responses = all('[name="' + w.response + '"]');
    if (responses.some((r) => r.value && r.value.length > 0)) continue; // solved: it stands in no one's way
    const own = keptIn(root).filter((k) => !responses.includes(k.el));
    // The submit buttons of the form it guards, only when its response field is there to say it is not solved
    // (a widget that keeps the field out of reach may have passed on its own).
    const form = responses.length > 0 ? root.closest('form') : null;
    const submits = form
      ? kept.filter((k) => k.el.form === form && (k.el.type === 'submit' || k.el.type === 'image'))
      : [];
    return {
      kind: 'captcha', vendor: w.vendor, frame: frame ? withoutQuery(srcOf(frame)) : '',
      target: own.length ? own[0].target : null, frameSrc: frame ? srcOf(frame).href : '',
      gated: own.concat(submits).map((k) => k.target), wholePage: false
    };
  }

  // A login wall: a shown password field in a modal (a dialog, or a fixed layer over a quarter of the viewport or
  // more) that covers the page's other elements (the first few of them looked at), itself or by its backdrop (a
  // fixed layer over most of the viewport). A sign-in page of its own is a page like any other, and so is one
  // under a cookie banner.
  const area = Math.max(1, innerWidth * innerHeight);
  const covering = (n, share) => { const r = n.getBoundingClientRect(); return r.width * r.height >= share * area; };
  const large = (n) => covering(n, 0.25);
  const modalOf = (el) => {
    for (let n = el; n && n !== document.body; n = n.parentElement) {
      if (n.matches('dialog[open],[aria-modal=true]')) return n;
      if (n.getAttribute('role') === 'dialog' || n.getAttribute('role') === 'alertdialog') return n;
      if (getComputedStyle(n).position === 'fixed' && large(n)) return n;
    }
    return null;
  };
  // A modal's backdrop: a fixed layer over most of the viewport (a cookie banner is less).
  const backdrop = (n) => getComputedStyle(n).position === 'fixed' && covering(n, 0.6);
  for (const field of all('input[type=password]')) {
    if (!shown(field)) continue;
    const modal = modalOf(field);
    if (!modal) continue;
    const wallCovers = (el) => {
      if (modal.contains(el)) return false;
      const cover = coverOf(el);
      return !!cover && (modal.contains(cover) || backdrop(cover));
    };
    const behind = shownElements.filter((el) => !modal.contains(el)).slice(0, 20);
    if (!behind.some(wallCovers)) continue;
    const covered = kept.filter((k) => k.covered && wallCovers(k.el));
    const mine = kept.find((k) => k.el === field);
    return {
      kind: 'login_wall', vendor: '', frame: '', target: mine ? mine.target : null, frameSrc: '',
      gated: covered.map((k) => k.target), wholePage: false
    };
  }
  return null;
};
