// Runs inside Chromium (ClickListeners, through CDP's Runtime.callFunctionOn on the document): hands the elements the
// DevTools protocol found listeners on to the guards' registry under `key`, so that observe.js knows them as targets.
// `kinds` has one letter per element: p (a pointer listener), k (keydown), b (both). With `replace`, or the first
// time, the registry's sets start over (a new document, or a full look).

export default function handOver(key, replace, kinds, ...elements) {
  const r = window[key];
  if (!r) return;
  if (replace || !r.listened) {
    r.listened = new WeakSet();
    r.keyed = new WeakSet();
  }
  elements.forEach((e, i) => {
    if (!e || e.nodeType !== 1 || e === document.body || e === document.documentElement) return;
    if (kinds[i] !== 'k') r.listened.add(e);
    if (kinds[i] !== 'p') r.keyed.add(e);
  });
}
