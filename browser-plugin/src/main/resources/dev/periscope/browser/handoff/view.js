// The live view of a handoff: frames of the page come one request at a time; the person's mouse
// and keyboard go back as one JSON event each, sent strictly in order. A watch (data-mode="watch")
// only shows the frames: it has no controls and sends nothing.
(() => {
  const base = location.pathname; // /handoff/ID/ or /watch/ID/
  const watch = document.body.dataset.mode === 'watch';
  const img = document.getElementById('view');
  const status = document.getElementById('status');
  let seq = 0, width = 0, height = 0, ended = false, chain = Promise.resolve();

  function finish(text) {
    ended = true;
    status.textContent = text;
    for (const id of ['done', 'give-up']) {
      const button = document.getElementById(id);
      if (button) button.disabled = true;
    }
  }

  async function frames() {
    while (!ended) {
      try {
        const r = await fetch(base + 'frame?after=' + seq, { cache: 'no-store' });
        if (r.status === 410 || r.status === 404) { finish(watch ? 'The watch has ended. You can close this page.' : 'The handoff has ended. You can close this page.'); return; }
        if (r.status === 200) {
          seq = Number(r.headers.get('X-Frame-Seq'));
          width = Number(r.headers.get('X-Viewport-Width'));
          height = Number(r.headers.get('X-Viewport-Height'));
          const url = URL.createObjectURL(await r.blob());
          const old = img.src;
          img.src = url;
          if (old.startsWith('blob:')) URL.revokeObjectURL(old);
          status.textContent = watch ? 'Live. You are watching: this view only shows the page.' : 'Live. Click the page to use it; press Done when you have finished.';
        }
      } catch (e) {
        await new Promise(done => setTimeout(done, 500));
      }
    }
  }

  frames();
  if (watch) return;

  function send(event) {
    if (ended) return;
    chain = chain
      .then(() => fetch(base + 'input', { method: 'POST', body: JSON.stringify(event) }))
      .then(async r => { if (r.status === 409) status.textContent = await r.text(); })
      .catch(() => {});
  }

  function at(e) {
    const box = img.getBoundingClientRect();
    return { x: (e.clientX - box.left) * width / box.width, y: (e.clientY - box.top) * height / box.height };
  }

  const buttons = ['left', 'middle', 'right', 'back', 'forward'];
  img.addEventListener('mousedown', e => {
    e.preventDefault();
    const point = at(e); // before the focus, which must not scroll this page
    img.focus({ preventScroll: true });
    send({ kind: 'down', button: buttons[e.button] || 'left', ...point });
  });
  img.addEventListener('mouseup', e => { e.preventDefault(); send({ kind: 'up', button: buttons[e.button] || 'left', ...at(e) }); });
  let lastMove = 0;
  img.addEventListener('mousemove', e => {
    const now = Date.now();
    if (now - lastMove < 50) return;
    lastMove = now;
    send({ kind: 'move', ...at(e) });
  });
  img.addEventListener('wheel', e => { e.preventDefault(); send({ kind: 'wheel', deltaX: e.deltaX, deltaY: e.deltaY, ...at(e) }); }, { passive: false });
  img.addEventListener('contextmenu', e => e.preventDefault());
  img.addEventListener('keydown', e => {
    e.preventDefault();
    if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      send({ kind: 'text', text: e.key });
    } else {
      const mods = (e.ctrlKey ? 'Control+' : '') + (e.altKey ? 'Alt+' : '') + (e.metaKey ? 'Meta+' : '') + (e.shiftKey && e.key.length > 1 ? 'Shift+' : '');
      send({ kind: 'key', key: mods + (e.key === ' ' ? 'Space' : e.key) });
    }
  });

  function end(how) {
    chain = chain.then(() => fetch(base + 'end', { method: 'POST', body: how })).catch(() => {});
    finish(how === 'done' ? 'Handed back. You can close this page.' : 'Given up. You can close this page.');
  }
  document.getElementById('done').addEventListener('click', () => end('done'));
  document.getElementById('give-up').addEventListener('click', () => end('give-up'));
})();
