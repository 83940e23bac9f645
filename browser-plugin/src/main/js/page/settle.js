// Runs inside Chromium, before an observation of the main document (observe-settled.js). Waits, at most ms milliseconds, for the CSS transitions and finite animations running in the page to
// end, so that what is observed is where the page comes to rest (a menu its own start-up script is sliding closed,
// a panel an action opened) and the same on every run, not whatever frame the observation happened to catch. An
// animation that would run past the wait, or never ends (a spinner), is not waited for.
export const settle = async (ms) => {
  if (!ms || !document.getAnimations) return;
  const deadline = performance.now() + ms;
  const ending = () => document.getAnimations().filter((a) => {
    if (a.playState !== 'running' || !a.effect) return false;
    const t = a.effect.getComputedTiming();
    return Number.isFinite(t.endTime) && t.endTime - (t.localTime || 0) <= deadline - performance.now();
  });
  for (let round = 0; round < 3; round++) {
    const running = ending();
    const left = deadline - performance.now();
    if (!running.length || left <= 0) return;
    await Promise.race([Promise.all(running.map((a) => a.finished.catch(() => null))),
      new Promise((resolve) => setTimeout(resolve, left))]);
  }
};
