// The module the table frame uses when a game's own module cannot be loaded: the server's
// prompt, the legal moves as plain buttons, and the scoreboard's totals. Enough to play
// any game on the contract (badly drawn), never used for a game that has its module.

import { h } from "../dom.js";

function label(action) {
  const fields = Object.entries(action).filter(([k]) => k !== "seat" && k !== "type")
    .map(([, v]) => (Array.isArray(v) ? v.join(" ") || "nothing" : String(v)));
  return [action.type, ...fields].join(" ");
}

export default {
  render(view, ctx, slots) {
    if (!view) return;
    slots.board.appendChild(h("div", { class: "center-panel" }, h("p", {}, ctx.say(view.prompt || ""))));
    if (!ctx.myTurn) return;
    for (const action of view.legal || []) {
      slots.actions.appendChild(h("button", {
        class: "btn move", type: "button", disabled: ctx.busy, onclick: () => ctx.act(action),
      }, label(action)));
    }
  },

  scoreboard(match, ctx) {
    const totals = match.totals || match.standing;
    if (!Array.isArray(totals)) return null;
    const seats = [...Array(ctx.seats).keys()];
    return h("table", { id: "scoreboard-table" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), seats.map((s) => h("th", {}, ctx.name(s))))),
      h("tbody", {}, h("tr", { class: "totals" }, h("td", {}, "Total"), totals.map((t) => h("td", {}, String(t))))));
  },

  results() {
    return null;
  },
};
