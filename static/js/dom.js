// Building DOM nodes safely: every string becomes a text node (never HTML),
// so player names and chat can hold anything.

/**
 * h("div", {class: "x", onclick: fn, "aria-label": "y"}, "text", childNode, [more])
 * Attributes named on* become listeners; `dataset` is an object of data-*;
 * false/null/undefined attributes and children are left out.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, val] of Object.entries(attrs || {})) {
    if (val === false || val === null || val === undefined) continue;
    if (key.startsWith("on") && typeof val === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), val);
    } else if (key === "dataset") {
      Object.assign(el.dataset, val);
    } else if (key === "class") {
      el.className = Array.isArray(val) ? val.filter(Boolean).join(" ") : val;
    } else if (key === "style" && typeof val === "object") {
      for (const [prop, v] of Object.entries(val)) el.style.setProperty(prop, v);
    } else if (val === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(val));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Put `node` in `el` unless `el` already shows the same markup. Keeps the old
 * elements (and the keyboard focus, and a button a pointer is about to press)
 * when a state update changes nothing they show.
 */
export function fillIfChanged(el, node) {
  const old = el.firstElementChild;
  if (el.childElementCount === 1 && old.outerHTML === node.outerHTML) return el;
  return fill(el, node);
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

/**
 * A yes-or-no question in a modal dialog: resolves true for `yes`. The focus starts on `no`,
 * and Escape says no.
 */
export function ask({ title, text, yes, no = "Cancel" }) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "ask", "aria-labelledby": "ask-title", "aria-describedby": "ask-text" },
      h("h2", { id: "ask-title" }, title),
      h("p", { id: "ask-text" }, text),
      h("div", { class: "btn-row ask__buttons" },
        h("button", { class: "btn btn--ghost", type: "button", id: "ask-no", onclick: () => dialog.close("no") }, no),
        h("button", { class: "btn btn--primary", type: "button", id: "ask-yes", onclick: () => dialog.close("yes") }, yes)));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "yes");
    });
    document.body.appendChild(dialog);
    dialog.showModal();
  });
}

/** A short message at the bottom of the screen. */
export function toast(text, { error = false, ms = 3200 } = {}) {
  let area = $(".toast-area");
  if (!area) {
    area = h("div", { class: "toast-area", role: "status", "aria-live": "polite" });
    document.body.appendChild(area);
  }
  const t = h("div", { class: error ? "toast toast--error" : "toast" }, text);
  area.appendChild(t);
  setTimeout(() => t.remove(), ms);
}

/** Copy text to the clipboard, falling back to a selected input where the API is missing. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const tmp = h("textarea", { style: { position: "fixed", opacity: "0" } });
    tmp.value = text;
    document.body.appendChild(tmp);
    tmp.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch { ok = false; }
    tmp.remove();
    return ok;
  }
}

/** "3 minutes ago", "Nov 21, 23:10" */
export function formatDate(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, DATE_PARTS);
}

/** From `startIso` to `endIso`, the date said once when both fall on the same day. */
export function formatSpan(startIso, endIso) {
  const a = new Date(startIso), b = new Date(endIso);
  const format = new Intl.DateTimeFormat(undefined, DATE_PARTS);
  if (Number.isNaN(a.getTime()) || Number.isNaN(b.getTime()) || b < a
      || typeof format.formatRange !== "function") { // (Safari before 14.1, Firefox before 91)
    return `${formatDate(startIso)} to ${formatDate(endIso)}`;
  }
  return format.formatRange(a, b);
}
const DATE_PARTS = { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" };

export function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}

/** "Ann", "Ann and Bea", "Ann, Bea and Cy". */
export function andList(words) {
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}` : words.join("");
}
