// Runs inside Chromium, as part of observe.js. Evaluates
// to { name(el), hint(el) }: the element's accessible name by the ARIA accessible-name computation (accname 1.2 with
// HTML-AAM), and for a field with no name, what a user sees beside it. Read-only: it writes nothing into the DOM or
// into globals, so a page cannot notice it. Everything it learns is cached for this one evaluation only.

import { makeHint } from './hints.js';
import { makeLabelsOf } from './labels.js';

export const makeNames = () => {
  // ---- Text ---------------------------------------------------------------------------------------------------
  // Accname collapses and trims ASCII whitespace only: a no-break space in an aria-label stays.
  const ASCII_WS = /[ \t\n\f\r]+/g;
  const collapse = (s) => (s || '').replace(/[\u200b\u00ad]/g, '').replace(ASCII_WS, ' ');
  const asciiTrim = (s) => s.replace(/^[ \t\n\f\r]+|[ \t\n\f\r]+$/g, '');
  const hasText = (s) => !!s && /[^ \t\n\f\r]/.test(s);
  // An element's labels (labels.js).
  const labelsOf = makeLabelsOf();

  // ---- Styles and hiddenness (cached per evaluation) -----------------------------------------------------------
  const styles = new Map();
  const style = (el) => {
    let s = styles.get(el);
    if (s === undefined) {
      s = el.nodeType === 1 ? getComputedStyle(el) : null;
      styles.set(el, s);
    }
    return s;
  };
  // The parent in the flat tree: a slotted node's slot, a shadow root's host.
  const parentOf = (node) => {
    if (node.assignedSlot) return node.assignedSlot;
    if (node.parentElement) return node.parentElement;
    const p = node.parentNode;
    return p && p.nodeType === 11 && p.host ? p.host : null;
  };
  const notDisplayedSelf = (el) => {
    const s = style(el);
    return (s && s.display === 'none') || el.hasAttribute('hidden');
  };
  const undisplayed = new Map();
  // Not rendered: display:none (or the hidden attribute) here or on an ancestor, or inside a closed <details>.
  const notDisplayed = (el) => {
    let v = undisplayed.get(el);
    if (v !== undefined) return v;
    const parent = parentOf(el);
    v = notDisplayedSelf(el);
    if (!v && parent && parent.tagName === 'DETAILS' && !parent.open) {
      const summary = Array.from(parent.children).find((c) => c.tagName === 'SUMMARY');
      v = el !== summary;
    }
    if (!v && parent) v = notDisplayed(parent);
    undisplayed.set(el, v);
    return v;
  };
  const ariaHiddenCache = new Map();
  const ariaHidden = (el) => {
    let v = ariaHiddenCache.get(el);
    if (v !== undefined) return v;
    const parent = parentOf(el);
    v = el.getAttribute('aria-hidden') === 'true' || (!!parent && ariaHidden(parent));
    ariaHiddenCache.set(el, v);
    return v;
  };
  const invisible = (el) => {
    const s = style(el);
    return !!s && (s.visibility === 'hidden' || s.visibility === 'collapse');
  };
  // Hidden from everyone (accname's "hidden"): the whole test for a node that is named or referenced.
  const hidden = (el) => !el.isConnected || notDisplayed(el) || ariaHidden(el) || invisible(el);

  // ---- Roles --------------------------------------------------------------------------------------------------
  const ROLES = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code '
    + 'columnheader combobox comment complementary contentinfo definition deletion dialog directory document '
    + 'emphasis feed figure form generic grid gridcell group heading img image insertion link list listbox listitem '
    + 'log main mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note '
    + 'option paragraph presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search '
    + 'searchbox separator slider spinbutton status strong subscript suggestion superscript switch tab table '
    + 'tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem associationlist '
    + 'associationlistitemkey associationlistitemvalue').split(' '));
  const GLOBAL_ARIA = ['aria-label', 'aria-labelledby', 'aria-describedby', 'aria-description', 'aria-details',
    'aria-owns', 'aria-controls', 'aria-live', 'aria-keyshortcuts', 'aria-roledescription', 'aria-errormessage'];
  const TEXT_TYPES = ['text', 'password', 'number', 'search', 'tel', 'email', 'url'];
  const BUTTON_TYPES = ['button', 'submit', 'reset', 'image'];
  const inputType = (el) => (el.getAttribute('type') || 'text').trim().toLowerCase();
  const focusable = (el) => el.hasAttribute('tabindex') || el.isContentEditable
    || (['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName) && !el.disabled)
    || ((el.tagName === 'A' || el.tagName === 'AREA') && el.hasAttribute('href'));
  const editableRoot = (el) => el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
  const implicitRole = (el) => {
    const tag = el.tagName;
    switch (tag) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'BUTTON': case 'SUMMARY': return 'button';
      case 'INPUT': {
        const type = inputType(el);
        if (BUTTON_TYPES.includes(type)) return 'button';
        if (type === 'checkbox' || type === 'radio') return type;
        if (type === 'range') return 'slider';
        if (type === 'number') return 'spinbutton';
        if (['text', 'search', 'email', 'tel', 'url'].includes(type) && el.hasAttribute('list')) return 'combobox';
        if (type === 'search') return 'searchbox';
        if (TEXT_TYPES.includes(type)) return 'textbox';
        return 'generic';
      }
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'TEXTAREA': return 'textbox';
      case 'OPTION': return 'option';
      case 'OPTGROUP': case 'FIELDSET': case 'DETAILS': return 'group';
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'IMG':
        return el.getAttribute('alt') === '' && !el.hasAttribute('title') && !GLOBAL_ARIA.some((a) => el.hasAttribute(a))
          ? 'presentation' : 'img';
      case 'TABLE': return 'table';
      case 'TR': return 'row';
      case 'TD': return el.closest('[role=grid],[role=treegrid]') ? 'gridcell' : 'cell';
      case 'TH': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'THEAD': case 'TBODY': case 'TFOOT': return 'rowgroup';
      case 'CAPTION': return 'caption';
      case 'UL': case 'OL': case 'MENU': return 'list';
      case 'LI': return 'listitem';
      case 'NAV': return 'navigation';
      case 'MAIN': return 'main';
      case 'ASIDE': return 'complementary';
      case 'FORM': return 'form';
      case 'ARTICLE': return 'article';
      case 'DIALOG': return 'dialog';
      case 'FIGURE': return 'figure';
      case 'P': return 'paragraph';
      case 'PROGRESS': return 'progressbar';
      case 'METER': return 'meter';
      case 'OUTPUT': return 'status';
      case 'HR': return 'separator';
      case 'DD': return 'definition';
      case 'DT': return 'term';
      case 'BLOCKQUOTE': return 'blockquote';
      case 'CODE': return 'code';
      case 'EM': return 'emphasis';
      case 'STRONG': return 'strong';
      case 'DEL': return 'deletion';
      case 'INS': return 'insertion';
      case 'SUB': return 'subscript';
      case 'SUP': return 'superscript';
      case 'TIME': return 'time';
      case 'MARK': return 'mark';
      case 'SECTION': return 'region';
      case 'HEADER': return 'banner';
      case 'FOOTER': return 'contentinfo';
      case 'MATH': return 'math';
      default:
        if (el.localName === 'svg') return 'img';
        if (el.localName === 'math') return 'math';
        return editableRoot(el) ? 'textbox' : 'generic';
    }
  };
  const roles = new Map();
  const roleOf = (el) => {
    let role = roles.get(el);
    if (role !== undefined) return role;
    role = null;
    for (const token of (el.getAttribute('role') || '').trim().toLowerCase().split(ASCII_WS)) {
      if (ROLES.has(token)) { role = token; break; }
    }
    // A presentational role gives way when the element is focusable or carries a global ARIA attribute.
    if ((role === 'presentation' || role === 'none') && (focusable(el) || GLOBAL_ARIA.some((a) => el.hasAttribute(a)))) {
      role = null;
    }
    if (role === 'image') role = 'img';
    if (!role) role = implicitRole(el);
    roles.set(el, role);
    return role;
  };
  const presentational = (role) => role === 'presentation' || role === 'none';
  // Roles whose name comes from their content (ARIA's nameFrom: contents, as browsers apply it).
  const FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem']);

  // ---- References ---------------------------------------------------------------------------------------------
  const idrefs = (el, attr) => {
    const value = el.getAttribute(attr);
    if (!value || !hasText(value)) return [];
    const root = el.getRootNode();
    const byId = (id) => (root.getElementById ? root.getElementById(id) : document.getElementById(id));
    const found = [];
    for (const id of asciiTrim(value).split(ASCII_WS)) {
      const target = byId(id);
      if (target && !found.includes(target)) found.push(target);
    }
    return found;
  };

  // ---- CSS generated content ----------------------------------------------------------------------------------
  // The text of a computed `content` value: its strings and attr() values, or only its alternative text (after
  // `/`) when it has one; url(), counters and quotes add nothing.
  const contentText = (value, el) => {
    const tokens = [];
    let i = 0;
    while (i < value.length) {
      const c = value[i];
      if (c === '"' || c === "'") {
        let s = '';
        i++;
        while (i < value.length && value[i] !== c) {
          if (value[i] === '\\') {
            const hex = /^[0-9a-fA-F]{1,6} ?/.exec(value.slice(i + 1, i + 8));
            if (hex) {
              s += String.fromCodePoint(parseInt(hex[0], 16));
              i += 1 + hex[0].length;
            } else {
              s += value[i + 1] || '';
              i += 2;
            }
          } else {
            s += value[i++];
          }
        }
        i++;
        tokens.push({ text: s });
      } else if (c === '/') {
        tokens.push({ slash: true });
        i++;
      } else if (/[a-zA-Z-]/.test(c)) {
        const fn = /^([a-zA-Z-]+)\(([^)]*)\)/.exec(value.slice(i));
        if (fn) {
          if (fn[1].toLowerCase() === 'attr') tokens.push({ text: el.getAttribute(fn[2].trim().split(/\s+/)[0]) || '' });
          i += fn[0].length;
        } else {
          i += /^[a-zA-Z-]+/.exec(value.slice(i))[0].length;
        }
      } else {
        i++;
      }
    }
    const slash = tokens.findIndex((t) => t.slash);
    return (slash >= 0 ? tokens.slice(slash + 1) : tokens).filter((t) => !t.slash).map((t) => t.text).join('');
  };
  const pseudoText = (el, which) => {
    const s = getComputedStyle(el, which);
    const value = s.content;
    if (!value || value === 'none' || value === 'normal' || s.display === 'none'
      || s.visibility === 'hidden' || s.visibility === 'collapse') return '';
    const text = contentText(value, el);
    return text && s.display !== 'inline' ? ' ' + text + ' ' : text;
  };

  // ---- The computation ----------------------------------------------------------------------------------------
  // One computation's state: the nodes already visited (so no node counts twice and no reference loops), whether
  // hidden nodes count (inside a traversal whose referenced root was hidden), and which traversal this is.
  const MAX_NODES = 4000;
  const childNodes = (el) => {
    if (el.tagName === 'SLOT') {
      const assigned = el.assignedNodes();
      if (assigned.length) return assigned;
    }
    const kids = Array.from((el.shadowRoot || el).childNodes);
    for (const owned of idrefs(el, 'aria-owns')) kids.push(owned);
    return kids;
  };
  const BREAKING = (el) => {
    if (el.tagName === 'BR') return true;
    const s = style(el);
    return !!s && s.display !== 'inline' && s.display !== 'contents';
  };
  // 2F/2G: the element's ::before, its children in order (an element that is not inline stands apart with
  // spaces), its ::after.
  // An item's name leaves out the items it holds (as Chromium's does): an open folder of a tree is named by its own
  // words, not by its files.
  const ITEMS = new Set(['treeitem', 'menuitem', 'option']);
  const ITEM_CONTAINERS = new Set(['group', 'tree', 'menu', 'listbox']);
  const contentOf = (el, ctx) => {
    const shown = ctx.includeHidden || !invisible(el);
    let text = shown ? pseudoText(el, '::before') : '';
    if (ctx.rootIsItem === undefined) ctx.rootIsItem = !!ctx.root && ITEMS.has(roleOf(ctx.root));
    for (const child of childNodes(el)) {
      if (++ctx.nodes > MAX_NODES) break;
      if (child.nodeType === 3) {
        const parent = parentOf(child) || el;
        if (ctx.includeHidden || !invisible(parent)) text += child.data;
      } else if (child.nodeType === 1) {
        if (ctx.rootIsItem && ITEM_CONTAINERS.has(roleOf(child))) continue;
        const part = compute(child, ctx, false);
        text += BREAKING(child) ? ' ' + part + ' ' : part;
      }
    }
    if (shown) text += pseudoText(el, '::after');
    return text;
  };
  const labelsText = (el, ctx) => {
    const parts = [];
    for (const label of labelsOf(el)) {
      const inner = { ...ctx, inLabel: true, inLabelledBy: false, includeHidden: ctx.includeHidden || hidden(label) };
      const t = compute(label, inner, false);
      if (hasText(t)) parts.push(t);
    }
    return parts.join(' ');
  };
  // The value an embedded control shows, for the name of what it is embedded in (2E). A password's value never.
  const controlValue = (el, role, ctx) => {
    const tag = el.tagName;
    if (tag === 'INPUT' && ['password', 'hidden'].includes(inputType(el))) return '';
    if (role === 'textbox' || role === 'searchbox') {
      if (tag === 'INPUT') return inputType(el) === 'password' ? '' : el.value;
      if (tag === 'TEXTAREA') return el.value;
      return el.textContent;
    }
    if (role === 'combobox' || role === 'listbox') {
      if (tag === 'SELECT') {
        const selected = Array.from(el.selectedOptions);
        if (!selected.length && el.options.length) selected.push(el.options[0]);
        return selected.map((o) => collapse(o.label || o.textContent)).join(' ');
      }
      let listbox = role === 'listbox' ? el : null;
      if (!listbox) {
        const around = [el, ...idrefs(el, 'aria-owns'), ...idrefs(el, 'aria-controls')];
        for (const node of around) {
          listbox = roleOf(node) === 'listbox' && node !== el ? node
            : Array.from(node.querySelectorAll('[role=listbox]')).find((l) => roleOf(l) === 'listbox');
          if (listbox) break;
        }
      }
      if (listbox) {
        const options = [...listbox.querySelectorAll('[aria-selected=true]'),
          ...idrefs(listbox, 'aria-owns').filter((o) => o.getAttribute('aria-selected') === 'true')]
          .filter((o) => roleOf(o) === 'option');
        if (options.length || tag !== 'INPUT') return options.map((o) => compute(o, ctx, false)).join(' ');
      }
      if (tag === 'INPUT') return el.value;
      return contentOf(el, ctx); // a combobox that is only its text
    }
    if (['progressbar', 'scrollbar', 'slider', 'spinbutton', 'meter'].includes(role)) {
      if (el.hasAttribute('aria-valuetext')) return el.getAttribute('aria-valuetext');
      if (el.hasAttribute('aria-valuenow')) return el.getAttribute('aria-valuenow');
      return tag === 'INPUT' ? el.value : (el.getAttribute('value') || '');
    }
    if (role === 'menu') return '';
    return null;
  };
  const childNamed = (el, tag) => Array.from(el.children).find((c) => c.localName === tag);
  // 2E (HTML-AAM): the host language's own source of a name; null when it has none for this element.
  const hostLanguage = (el, role, ctx) => {
    const tag = el.tagName;
    const title = el.getAttribute('title') || '';
    if (tag === 'INPUT') {
      const type = inputType(el);
      if (type === 'button' || type === 'submit' || type === 'reset') {
        if (hasText(el.value)) return el.value;
        if (type === 'submit') return 'Submit';
        if (type === 'reset') return 'Reset';
        return title;
      }
      const labels = ctx.inLabelledBy ? '' : labelsText(el, ctx);
      if (hasText(labels)) return labels;
      if (type === 'image') {
        const alt = el.getAttribute('alt') || '';
        return hasText(alt) ? alt : hasText(title) ? title : 'Submit';
      }
      if (hasText(title)) return title;
      const placeholder = TEXT_TYPES.includes(type) ? el.getAttribute('placeholder') || '' : '';
      return hasText(placeholder) ? placeholder : el.getAttribute('aria-placeholder') || '';
    }
    if (tag === 'TEXTAREA' || tag === 'SELECT') {
      const labels = ctx.inLabelledBy ? '' : labelsText(el, ctx);
      if (hasText(labels)) return labels;
      if (hasText(title)) return title;
      const placeholder = tag === 'TEXTAREA' ? el.getAttribute('placeholder') || '' : '';
      return hasText(placeholder) ? placeholder : el.getAttribute('aria-placeholder') || '';
    }
    if (tag === 'BUTTON' || tag === 'METER' || tag === 'PROGRESS' || tag === 'OUTPUT') {
      const labels = ctx.inLabelledBy ? '' : labelsText(el, ctx);
      return hasText(labels) ? labels : null;
    }
    if (tag === 'IMG' || tag === 'AREA') {
      const alt = el.getAttribute('alt') || '';
      return hasText(alt) ? alt : title;
    }
    if (tag === 'OPTION' || tag === 'OPTGROUP' || tag === 'TRACK') {
      const label = el.getAttribute('label') || '';
      return hasText(label) ? label : null;
    }
    const alternative = tag === 'FIELDSET' ? childNamed(el, 'legend')
      : tag === 'FIGURE' ? (el.firstElementChild && el.firstElementChild.localName === 'figcaption'
        ? el.firstElementChild : el.lastElementChild && el.lastElementChild.localName === 'figcaption'
          ? el.lastElementChild : null)
        : tag === 'TABLE' ? childNamed(el, 'caption') : null;
    if (alternative) {
      const t = compute(alternative, { ...ctx, inLabel: true, includeHidden: ctx.includeHidden || hidden(alternative) },
        false);
      if (hasText(t)) return t;
    }
    if (tag === 'TABLE' && hasText(el.getAttribute('summary'))) return el.getAttribute('summary');
    if (el instanceof SVGElement) {
      const svgTitle = childNamed(el, 'title');
      if (svgTitle && hasText(svgTitle.textContent)) return svgTitle.textContent;
      if (el.localName === 'a' && hasText(el.getAttribute('xlink:title'))) return el.getAttribute('xlink:title');
    }
    return null;
  };

  // The text alternative of one element (accname step 2), as a piece of a name: not yet collapsed or trimmed.
  const compute = (el, ctx, isRoot) => {
    if (ctx.visited.has(el)) return '';
    // 2A: hidden and not inside a traversal of a hidden referenced node: nothing. Within a traversal only this
    // element's own state matters (its ancestors were walked through), apart from visibility, which a child can
    // undo: an invisible element still lets its visible descendants speak.
    if (!ctx.includeHidden && !isRoot && (notDisplayedSelf(el) || el.getAttribute('aria-hidden') === 'true')) {
      ctx.visited.add(el);
      return '';
    }
    // 2B: aria-labelledby, unless already inside one; its references are named without further labelledby.
    if (!ctx.inLabelledBy) {
      const refs = idrefs(el, 'aria-labelledby');
      if (refs.length) {
        const text = refs.map((ref) => compute(ref, {
          visited: ctx.visited, nodes: ctx.nodes, root: ctx.root, inLabelledBy: true, inLabel: false,
          includeHidden: ctx.includeHidden || hidden(ref)
        }, false)).join(' ');
        if (hasText(text)) return text;
      }
    }
    ctx.visited.add(el);
    if (!ctx.includeHidden && invisible(el)) return contentOf(el, ctx);
    const role = roleOf(el);
    const recursion = !isRoot;
    // 2C: inside a label or content traversal, an embedded control is its value, whatever its aria-label says
    // (not the element being named, when it is among its own labels).
    if (recursion && el !== ctx.root) {
      const value = controlValue(el, role, ctx);
      if (value !== null) return value;
    }
    // 2D: aria-label (a slot is no node of its own in the accessibility tree).
    const label = el.getAttribute('aria-label');
    if (hasText(label) && el.tagName !== 'SLOT') {
      if (isRoot) ctx.fromAriaLabel = true;
      return label;
    }
    // 2E: the host language's label, unless the element is presentational.
    if (!presentational(role)) {
      const host = hostLanguage(el, role, ctx);
      if (host !== null) return host;
    }
    // 2F: name from content, for roles that take it and for every node reached by recursion.
    if (recursion || FROM_CONTENT.has(role) || el.tagName === 'SUMMARY') {
      const text = contentOf(el, ctx);
      if (recursion ? text !== '' : hasText(text)) return text;
    }
    // 2I: the tooltip.
    if (!presentational(role) || el.tagName === 'IFRAME') {
      const title = el.getAttribute('title');
      if (hasText(title)) return title;
    }
    if (['textbox', 'searchbox', 'combobox'].includes(role) && hasText(el.getAttribute('aria-placeholder'))) {
      return el.getAttribute('aria-placeholder');
    }
    return '';
  };

  // Not the specification: a generic element a user can click (it takes focus or has a click handler, or the
  // pointer says so) is called by its text, as a user would, rather than left unnamed.
  const clickable = (el) => el.hasAttribute('tabindex') || el.hasAttribute('onclick')
    || (style(el) && style(el).cursor === 'pointer' && !(el.parentElement && style(el.parentElement)
      && style(el.parentElement).cursor === 'pointer'));

  const names = new Map();
  const name = (el) => {
    let result = names.get(el);
    if (result !== undefined) return result;
    result = '';
    if (el && el.nodeType === 1 && !hidden(el)) {
      const ctx = { visited: new Set(), nodes: 0, root: el, inLabelledBy: false, inLabel: false, includeHidden: false };
      let text = compute(el, ctx, true);
      if (!hasText(text) && roleOf(el) === 'generic' && !editableRoot(el) && clickable(el)) {
        text = contentOf(el, { visited: new Set([el]), nodes: 0, root: el, inLabelledBy: false, inLabel: false,
          includeHidden: false });
      }
      // An aria-label keeps its no-break spaces; text from content loses them at its ends, as rendered text does.
      result = ctx.fromAriaLabel ? asciiTrim(collapse(text)) : collapse(text).trim();
    }
    names.set(el, result);
    return result;
  };

  // A field's hint (hints.js), from what names.js knows of roles, visibility and text.
  const hint = makeHint({ name, roleOf, inputType, editableRoot, notDisplayed, invisible, collapse, hasText,
    BREAKING });
  return { name, hint };
};

export default makeNames;
