// Runs inside Chromium (ProxyBootstrap, through CDP's Runtime.evaluate on a new blank page): a request to the policy
// proxy's own bootstrap address, not a navigation, so the page stays the new page it was. 'ready' once it answered,
// else the failure in words.

export default function reachProxy(url) {
  return fetch(url, { mode: 'no-cors', cache: 'no-store', credentials: 'omit' }).then(
    () => 'ready',
    (e) => String(e),
  );
}
