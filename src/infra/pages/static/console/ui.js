// Small helpers the views share: an element builder, labelled fields, the status line, times.

/** `h("button", {type: "submit", onclick}, "Claim")`: attributes, `on…` listeners, children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

let fieldCount = 0;

/** A visible label that is the control's accessible name, and an optional hint under it. */
export function field(label, control, hint) {
  control.id ||= `f${++fieldCount}`;
  const hintEl = hint ? h("small", { id: `${control.id}-hint`, class: "hint" }, hint) : null;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hintEl);
}

/** A form whose submit runs `action` with the button busy and the error shown in the form. */
export function form(attrs, children, action) {
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const el = h("form", { ...attrs, novalidate: false }, children, error);
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = el.querySelector("button[type=submit]");
    error.hidden = true;
    if (button) button.disabled = true;
    try {
      await action(el);
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
    } finally {
      if (button) button.disabled = false;
    }
  });
  return el;
}

/** Says something in the polite status line (read by screen readers). */
export function announce(message) {
  const el = document.getElementById("status");
  el.textContent = message;
  clearTimeout(announce.timer);
  announce.timer = setTimeout(() => (el.textContent = ""), 6000);
}

/** "3 min ago", "in 2 h". */
function ago(iso) {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  const units = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto", style: "short" });
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size || unit === "second") {
      return rtf.format(Math.round(seconds / size), unit);
    }
  }
}

/** A `<time>` with the relative time shown and the exact one as its title; `none` without one. */
export function when(iso, none = "not yet") {
  if (!iso) return h("span", {}, none);
  return h("time", { datetime: iso, title: new Date(iso).toLocaleString() }, ago(iso));
}

/** A read-only value with a button that copies it. */
export function copyable(label, value) {
  // A text area, so a long key or line wraps whole on a phone instead of scrolling out of sight.
  const input = h("textarea", { readOnly: true, spellcheck: "false", class: "mono copy", rows: 1 });
  input.value = value;
  const copy = h("button", {
    type: "button",
    class: "secondary",
    onclick: async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(value);
        announce(`${label} copied`);
      } catch {
        announce("Select the text and copy it");
      }
    },
  }, "Copy");
  input.id = `f${++fieldCount}`;
  return h(
    "div",
    { class: "field" },
    h("label", { for: input.id }, label),
    h("div", { class: "row" }, input, copy),
  );
}

/** A section's heading and body in a card. */
export function card(title, ...children) {
  return h("section", { class: "card" }, h("h2", {}, title), ...children);
}

/** Replaces the main region's content; its first heading names the tab. */
export function show(...children) {
  const main = document.getElementById("main");
  main.replaceChildren(...children.filter((child) => child));
  const heading = main.querySelector("h1");
  if (heading) document.title = `${heading.textContent}: Displays`;
}

/** A panel's grey depth in words. */
export const greys = (bitDepth) => bitDepth === 1 ? "black and white" : `${2 ** bitDepth} greys`;
