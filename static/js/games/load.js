// Loading a game's client module (static/js/games/<name>/index.js) and its CSS, and filling
// the server's narration with names: shared by the table frame and the replay viewer.
import { h } from "../dom.js";

/**
 * The default export of the game's module, once its CSS has loaded too (or after 3 s);
 * null if the module cannot be loaded (the error is logged).
 */
export async function loadGameModule(name) {
  const css = h("link", { rel: "stylesheet", href: `/static/js/games/${name}/${name}.css` });
  const cssLoaded = new Promise((resolve) => {
    css.addEventListener("load", resolve);
    css.addEventListener("error", resolve);
    setTimeout(resolve, 3000);
  });
  document.head.appendChild(css);
  let module = null;
  try {
    module = (await import(`/static/js/games/${name}/index.js`)).default;
  } catch (e) {
    console.error(e);
  }
  await cssLoaded;
  return module;
}

/** A game's name as the server gives it, if it is one a module path may be built from. */
export const safeGameName = (game) => (/^[a-z][a-z0-9_-]*$/.test(game || "") ? game : "");

/** The server's narration with `{0}`, `{1}` … replaced by `name(seat)`. */
export const fillNames = (text, name) =>
  String(text ?? "").replace(/\{(\d+)\}/g, (_, i) => name(Number(i)));
