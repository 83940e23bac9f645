// Installed in every document before the page's own scripts. Lets a new window (a tab of the environment) open
// only in answer to the agent's own input, and keeps the page from handing anything to the operating system: file
// pickers, external protocols. What it blocks it records, so the action that caused it fails with
// BROWSER_POLICY_DENIED; the windows it lets open it counts (registry.opened), so the action waits for its tabs. A
// file picker opens only while browser_upload runs (registry.uploading), and then only into Playwright's file
// chooser, which that tool answers with its files.
//
// The provider calls it with its settings as data (PageScripts.guards): key, this environment's registry name,
// which the page cannot guess; downloads, whether the project keeps downloads (what an action downloads goes to the
// attachment store, anything else is cancelled by the provider): then a download link is let through here; windows,
// whether a window may open at all: not in a person's own Chromium under request-level enforcement, where a new
// window's first request would leave before its checks are in place (the agent opens tabs with browser_tabs).
const installGuards = ({ key: KEY, downloads: DOWNLOADS, windows: WINDOWS }) => {
  const NO_WINDOWS = 'this browser is a person\'s own: a page opens no new window in it; open the address with'
    + ' browser_tabs open';
  const registry = window[KEY] || (() => {
    const r = { ids: new WeakMap(), next: 1, blocked: [], closedRoots: new WeakMap() };
    Object.defineProperty(window, KEY, { value: r, enumerable: false });
    return r;
  })();
  const block = (what) => { registry.blocked.push(what); };

  // A closed shadow root is out of reach of every script but the one that made it: the observation keeps each
  // one as it is attached, under this environment's registry, so that what a web component shows is seen and
  // acted on as the page's own elements are.
  if (!registry.closedRoots) registry.closedRoots = new WeakMap();
  // A closed root declared in HTML (<template shadowrootmode="closed">) is attached by the parser, not by script:
  // a custom element reaches its own through attachInternals().shadowRoot, and so does the observation, from the
  // internals kept here as the element asks for them.
  if (!registry.internals) registry.internals = new WeakMap();
  const attachInternals = HTMLElement.prototype.attachInternals;
  if (attachInternals) {
    const keptInternals = {
      attachInternals() {
        const internals = attachInternals.call(this);
        registry.internals.set(this, internals);
        return internals;
      }
    }.attachInternals;
    Object.defineProperty(HTMLElement.prototype, 'attachInternals', { value: keptInternals, writable: true, configurable: true });
  }
  const attachShadow = Element.prototype.attachShadow;
  if (attachShadow) {
    const kept = {
      attachShadow(init) {
        const root = attachShadow.call(this, init);
        if (init && init.mode === 'closed') registry.closedRoots.set(this, root);
        return root;
      }
    }.attachShadow;
    Object.defineProperty(Element.prototype, 'attachShadow', { value: kept, writable: true, configurable: true });
  }
  const BROWSER_OWNED = ['http:', 'https:', 'javascript:', 'blob:', 'data:', 'about:'];
  const external = (url) => {
    try { return !BROWSER_OWNED.includes(new URL(url, document.baseURI).protocol); } catch (e) { return false; }
  };
  const newPageTarget = (target) => {
    const t = (target || '').toLowerCase();
    return t !== '' && t !== '_self' && t !== '_parent' && t !== '_top';
  };

  // A navigation this document starts (a link, a form, a script) makes the action that ran wait for its response
  // headers; an action that started none returns at once.
  if (window.navigation) window.navigation.addEventListener('navigate', () => { registry.navigated = true; });

  // Only the agent's input gives the page a user activation (a click, a key): a window opened with one is the
  // action's, and becomes a tab; one opened without (a timer, a script on load) is blocked.
  const activated = () => !!(navigator.userActivation && navigator.userActivation.isActive);
  const opening = () => { registry.opened = (registry.opened || 0) + 1; };
  const open = window.open;
  window.open = function () {
    if (!activated()) { block('the page tried to open a new window'); return null; }
    if (!WINDOWS) { block(NO_WINDOWS); return null; }
    opening();
    return open.apply(window, arguments);
  };

  // WebRTC would send UDP (STUN, TURN, peers) around the policy proxy, and this Chromium sends it despite
  // --force-webrtc-ip-handling-policy=disable_non_proxied_udp: peer connections are not offered at all.
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCIceCandidate', 'RTCSessionDescription',
    'RTCDataChannel', 'RTCRtpSender', 'RTCRtpReceiver', 'RTCRtpTransceiver', 'RTCIceTransport', 'RTCDtlsTransport',
    'RTCSctpTransport', 'RTCCertificate']) {
    try { Object.defineProperty(window, name, { value: undefined, writable: false, configurable: false }); } catch (e) {}
  }

  document.addEventListener('click', (event) => {
    const anchor = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (anchor) {
      if (newPageTarget(anchor.getAttribute('target')) && !external(anchor.href)) {
        if (!WINDOWS) { event.preventDefault(); block(NO_WINDOWS); }
        else if (activated()) opening(); else { event.preventDefault(); block('the link opens a new page'); }
      } else if (external(anchor.href)) {
        event.preventDefault(); block('the link hands ' + new URL(anchor.href).protocol + ' to another program');
      } else if (anchor.hasAttribute('download')) {
        // Counted, so the action waits for the downloads its clicks start (registry.downloading).
        if (DOWNLOADS) registry.downloading = (registry.downloading || 0) + 1;
        else { event.preventDefault(); block('the link downloads a file'); }
      }
    }
    const label = event.target instanceof Element ? event.target.closest('label') : null;
    if (label && label.control && label.control.type === 'file' && !registry.uploading) {
      event.preventDefault(); block('the page tried to open a file picker');
    }
  }, true);

  const guardForm = (form) => {
    if (newPageTarget(form.getAttribute('target')) && !external(form.action)) {
      if (!activated()) { block('the form opens a new page'); return false; }
      if (!WINDOWS) { block(NO_WINDOWS); return false; }
      opening();
    }
    if (external(form.action)) { block('the form hands its data to another program'); return false; }
    return true;
  };
  document.addEventListener('submit', (event) => {
    if (!guardForm(event.target)) event.preventDefault();
  }, true);
  // A form submission navigates from a task of its own, after the click or key that submitted it has returned: the
  // navigate event may come after the action looked. A submission no handler stopped counts as the navigation.
  window.addEventListener('submit', (event) => { if (!event.defaultPrevented) registry.navigated = true; });
  const submit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function () {
    if (guardForm(this)) { registry.navigated = true; submit.call(this); }
  };

  const click = HTMLInputElement.prototype.click;
  HTMLInputElement.prototype.click = function () {
    if (this.type === 'file' && !registry.uploading) { block('the page tried to open a file picker'); return; }
    click.call(this);
  };
  if (HTMLInputElement.prototype.showPicker) {
    const showPicker = HTMLInputElement.prototype.showPicker;
    HTMLInputElement.prototype.showPicker = function () {
      if (this.type === 'file' && !registry.uploading) { block('the page tried to open a file picker'); return; }
      showPicker.call(this);
    };
  }
};

export default installGuards;
