// Runs inside Chromium (FieldRoom, on a field's handle): focuses the field and puts the caret at the end of its value,
// wherever the page's handling of a fill put it. A field without a selection (a date, a number) keeps its own.

export default function caretAtEnd(el) {
  el.focus();
  try {
    const n = el.value.length;
    el.setSelectionRange(n, n);
  } catch {
    // no selection in this kind of field
  }
}
