// Runs inside Chromium, as part of observe.js, names.js and a pointer action's hit test (hit-test.js). Makes labelsOf(el): el's labels in tree order, as el.labels has them (the label elements of el's
// document or shadow root whose control is el; a form-associated custom element, which has no el.labels, gets those
// whose control it is, as its ElementInternals.labels has them), found by one pass over that root's labels the first
// time any of its elements is asked. el.labels walks the whole document on each element's first call, and again after any change to
// the page: asked of each of 10,000 cards' buttons it took seconds. For one script's run only: the page does not
// change while it runs.
export const makeLabelsOf = () => {
  const byRoot = new Map();
  const none = Object.freeze([]);
  return (el) => {
    const root = el.getRootNode();
    if (root.nodeType !== 9 && root.nodeType !== 11) return Array.from(el.labels || none);
    let controls = byRoot.get(root);
    if (!controls) {
      controls = new Map();
      for (const label of root.querySelectorAll('label')) {
        const control = label.control;
        if (!control) continue;
        const list = controls.get(control);
        if (list) list.push(label);
        else controls.set(control, [label]);
      }
      byRoot.set(root, controls);
    }
    return controls.get(el) || none;
  };
};

export default makeLabelsOf;
