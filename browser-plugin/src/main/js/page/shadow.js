// Runs inside Chromium, as part of observe.js and extract.js. Given the environment's registry, how a script walks shadow roots as part of the page: the root an
// element hosts, open or closed (the closed ones as guards.js kept them: attached by script, or declared in HTML and
// reached through the element's own internals), and the nearest ancestor matching a selector across shadow
// boundaries. A kept root counts only if it is a shadow root of this very element: the page can reach the
// registry, and a forged entry must not lead a walk elsewhere (or round in a cycle).
export const shadowWalk = (registry) => ({
  shadowOf: (el) => {
    if (el.shadowRoot) return el.shadowRoot;
    const internals = registry && registry.internals && registry.internals.get(el);
    const kept = (registry && registry.closedRoots && registry.closedRoots.get(el)) || (internals && internals.shadowRoot);
    return kept instanceof ShadowRoot && kept.host === el ? kept : null;
  },
  closestAcross: (el, selector) => {
    for (let n = el; n; ) {
      const found = n.closest(selector);
      if (found) return found;
      const root = n.getRootNode();
      n = root && root.host ? root.host : null;
    }
    return null;
  },
});
