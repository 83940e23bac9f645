// Runs inside Chromium, on the element a choice is made in (Choices.select): whether it is a select, takes more than
// one value, and which of the values none of its options has as its value, label or text.

const selectFit = (el, values) => ({
  isSelect: el.tagName === 'SELECT', multiple: !!el.multiple,
  unmatched: values.filter((v) => !Array.from(el.options || []).some(
    (o) => o.value === v || o.label === v || o.text.trim() === v)),
});

export default selectFit;
