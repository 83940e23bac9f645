// Runs inside Chromium, as part of observe.js. For a
// control drawn only as an icon, what the icon depicts, in a word or two: from a data-icon attribute, an SVG's
// <title>, the symbol a <use> points at (#icon-trash), an icon font's ligature (<i class="material-icons">delete</i>),
// a class token that names an icon (fa-trash, bi-star, glyphicon-remove, icon-reply, or a bare "trash"), or the file
// an image or a background image is drawn from. A hint for the model, never the element's accessible name; '' when
// nothing names an icon.
export const makeIconFor = () => {
  // Prefixes of icon sets' class tokens, and the words of theirs that say how, not what (fa-solid, fa-2x, bi).
  const PREFIXED = /^(?:fa[srlbdt]?|fa-(?:solid|regular|light|thin|duotone|brands|sharp)|bi|glyphicon|icon|icons|mdi|ti|tabler|ion|ion-md|ion-ios|la|las|lar|lab|octicon|feather|lucide|ri|codicon|bx|bxs|bxl|gg|typcn|oi|fe|uil|ph|si|ic|fi|iconoir|heroicon|hi)-(.+)$/;
  const STYLE_WORDS = new Set(['fw', 'lg', 'xs', 'sm', 'xl', '2xs', '2xl', 'spin', 'pulse', 'border', 'inverse', 'stack',
    'solid', 'regular', 'light', 'thin', 'duotone', 'brands', 'sharp', 'fill', 'filled', 'outline', 'outlined', 'line',
    'o', 'alt', 'round', 'rounded', 'two', 'tone', 'sm', 'md', 'ios', 'logo', 'icon', 'svg', 'inline', 'fa', 'bold',
    'mini', 'micro', 'small', 'large', 'size', 'btn', 'button', 'link', 'wrap', 'wrapper', 'container', 'primary',
    'secondary', 'default', 'light', 'dark', 'white', 'black', 'muted', 'action', 'actions', 'only']);
  // Words that are icons on their own, as bare class tokens or file names.
  const ICON_WORDS = new Set(['trash', 'delete', 'remove', 'close', 'cancel', 'edit', 'pencil', 'pen', 'star', 'heart',
    'like', 'thumbs', 'reply', 'share', 'search', 'menu', 'hamburger', 'burger', 'cart', 'basket', 'bag', 'user',
    'account', 'profile', 'avatar', 'settings', 'gear', 'cog', 'home', 'bell', 'notification', 'notifications', 'mail',
    'envelope', 'inbox', 'bookmark', 'download', 'upload', 'plus', 'add', 'minus', 'check', 'tick', 'info', 'help',
    'question', 'warning', 'alert', 'filter', 'sort', 'refresh', 'reload', 'sync', 'more', 'dots', 'ellipsis', 'kebab',
    'play', 'pause', 'stop', 'next', 'prev', 'previous', 'back', 'forward', 'undo', 'redo', 'copy', 'paste', 'link',
    'lock', 'unlock', 'eye', 'visibility', 'calendar', 'clock', 'print', 'printer', 'save', 'send', 'attach',
    'paperclip', 'camera', 'image', 'photo', 'video', 'mic', 'microphone', 'phone', 'location', 'map', 'pin', 'flag',
    'tag', 'archive', 'folder', 'file', 'cloud', 'logout', 'login', 'expand', 'collapse', 'fullscreen', 'zoom',
    'comment', 'comments', 'chat', 'message', 'retweet', 'repost', 'like', 'dislike', 'mute', 'volume', 'sound',
    'shuffle', 'repeat', 'list', 'grid', 'grip', 'drag', 'handle', 'external', 'globe', 'language', 'moon', 'sun',
    'times', 'caret', 'chevron', 'arrow', 'angle']);
  const words = (token) => token.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/[-_\s.]+/)
    .filter((w) => w && !STYLE_WORDS.has(w) && !/^\d+x?$/.test(w));
  const fromToken = (token) => {
    const m = PREFIXED.exec(token);
    if (m) {
      const w = words(m[1]);
      return w.length ? w.join(' ') : '';
    }
    const w = words(token);
    return w.length && w.length <= 3 && ICON_WORDS.has(w[0]) ? w.join(' ') : '';
  };
  const fromClasses = (el) => {
    const list = el.classList ? Array.from(el.classList) : [];
    for (const token of list) {
      if (/^(?:fa|fas|far|fal|fab|bi|glyphicon|icon|icons|mdi|material-icons|material-symbols)$/.test(token)) continue;
      const hint = fromToken(token);
      if (hint) return hint;
    }
    return '';
  };
  const fromFile = (url) => {
    const m = /([^/?#]+?)(?:\.(?:svg|png|gif|jpe?g|webp|ico))(?:[?#].*)?$/i.exec(url || '');
    if (!m) return '';
    const w = words(decodeURIComponent(m[1]));
    return w.length && w.length <= 3 && ICON_WORDS.has(w[0]) ? w.join(' ') : '';
  };
  const LIGATURES = /^(?:material-icons(?:-\w+)?|material-symbols(?:-\w+)?|material-icons-round|md-icon)$/;
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const hintOf = (el) => {
    const data = el.getAttribute('data-icon');
    if (data) return words(data).join(' ');
    if (el.localName === 'svg') {
      const title = el.querySelector('title');
      if (title && clean(title.textContent)) return clean(title.textContent).toLowerCase();
    }
    if (el.localName === 'use') {
      const href = el.getAttribute('href') || el.getAttribute('xlink:href') || '';
      const id = href.slice(href.indexOf('#') + 1);
      const hint = fromToken(id) || words(id.replace(/^(?:icon|icons|i|ic|ico|svg|glyph|sprite|symbol)[-_]/i, '')).join(' ');
      if (hint) return hint;
    }
    if (Array.from(el.classList || []).some((c) => LIGATURES.test(c))) {
      const text = clean(el.textContent);
      if (/^[a-z0-9_]{2,40}$/.test(text)) return text.replace(/_/g, ' ');
    }
    if (el.localName === 'img' && !el.getAttribute('alt')) {
      const hint = fromFile(el.getAttribute('src'));
      if (hint) return hint;
    }
    const classes = fromClasses(el);
    if (classes) return classes;
    const background = getComputedStyle(el).backgroundImage;
    if (background && background !== 'none' && !background.startsWith('url("data:')) {
      const hint = fromFile(background.replace(/^url\("?|"?\)$/g, ''));
      if (hint) return hint;
    }
    return '';
  };
  // The element itself first, then what it holds (a few levels, the first icon found).
  return (el) => {
    const own = hintOf(el);
    if (own) return own.slice(0, 40);
    let seen = 0;
    for (const inner of el.querySelectorAll('svg,use,i,span,img,em,b')) {
      if (++seen > 12) break;
      const hint = hintOf(inner);
      if (hint) return hint.slice(0, 40);
    }
    return '';
  };
};
