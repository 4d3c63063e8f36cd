// The home page: create a table and share its link, or join one.

import { $, h } from "./dom.js";
import { cardEl } from "./cards.js";
import { ApiError, getJSON, postJSON, rememberTable, saveName, savedName, tableIdFrom } from "./api.js";

const SEATS = 4;

function drawHero() {
  const fan = $("#hero-cards");
  const cards = ["QC", "QD", "QH", "QS"];
  cards.forEach((code, i) => {
    const angle = (i - 1.5) * 16;
    fan.appendChild(cardEl(code, {
      size: "lg",
      attrs: { style: { transform: `translateX(-50%) rotate(${angle}deg)` }, "aria-hidden": "true" },
    }));
  });
  const roles = $("#roles");
  for (const [code, text] of [["7D", "Rabbits are hunted"], ["7H", "Dingoes start a hunt"],
    ["7C", "Wolves catch rabbits"], ["AD", "The ace rabbit: 10"]]) {
    roles.appendChild(h("div", { class: "role-demo" }, cardEl(code, { size: "sm" }), text));
  }
}

/** Each seat: a box to put a bot there, and how strong the bot plays (the server's kinds). */
async function drawSeatPicks() {
  const picks = $("#seat-picks");
  let kinds = [{ kind: "heuristic", strength: "normal" }];
  try {
    kinds = await getJSON("/api/bots");
  } catch { /* keep the server's default kind */ }
  const preferred = (kinds.find((k) => k.kind === "heuristic") || kinds[0]).kind;
  for (let seat = 0; seat < SEATS; seat++) {
    picks.appendChild(h("div", { class: "seat-pick" },
      h("label", {},
        h("input", { type: "checkbox", name: "bot", value: String(seat), checked: seat !== 0 }),
        `Seat ${seat + 1}`,
        h("small", {}, seat === 0 ? "open" : "bot")),
      h("select", { name: "bot-kind", dataset: { seat: String(seat) }, "aria-label": `Bot strength, seat ${seat + 1}`, disabled: seat === 0 },
        kinds.map((k) => h("option", { value: k.kind, selected: k.kind === preferred }, k.strength)))));
  }
  picks.addEventListener("change", (e) => {
    const box = e.target.closest(".seat-pick");
    if (box && e.target.name === "bot") {
      box.querySelector("small").textContent = e.target.checked ? "bot" : "open";
      box.querySelector("select").disabled = !e.target.checked;
    }
  });
}

function readForm() {
  const name = $("#name").value.trim();
  const games = Number($("#games").value);
  const pointsOn = $("#points-on").checked;
  const points = Number($("#points").value);
  if (!name) return { error: "Please enter your name.", focus: "#name" };
  if (!Number.isInteger(games) || games < 1 || games > 50) {
    return { error: "Games to win must be a whole number from 1 to 50.", focus: "#games" };
  }
  if (pointsOn && (!Number.isInteger(points) || points < 1 || points > 1000)) {
    return { error: "The points total must be a whole number from 1 to 1000.", focus: "#points" };
  }
  const bots = [...document.querySelectorAll('input[name="bot"]:checked')]
    .map((b) => ({ seat: Number(b.value), kind: $(`select[data-seat="${b.value}"]`)?.value || "heuristic" }));
  if (bots.length === SEATS) {
    return { error: "Leave at least one seat open for a person.", focus: "#seat-picks input" };
  }
  return {
    name,
    body: {
      games_to_win: games,
      points_to_win: pointsOn ? points : null,
      open_discards: $("#open-discards").checked,
      turn_seconds: Number($("#timer").value) || null,
      bots,
    },
  };
}

async function onCreate(event) {
  event.preventDefault();
  const err = $("#create-error");
  err.textContent = "";
  const form = readForm();
  if (form.error) {
    err.textContent = form.error;
    $(form.focus)?.focus();
    return;
  }
  saveName(form.name);
  const btn = $("#create-btn");
  btn.disabled = true;
  btn.textContent = "Creating…";
  try {
    const table = await postJSON("/api/tables", form.body);
    goToTable(table, form.name);
  } catch (e) {
    err.textContent = e instanceof ApiError ? e.message : "Something went wrong. Please try again.";
    btn.disabled = false;
    btn.textContent = "Create table";
  }
}

/** One click: the new table opens at once; its lobby shows the link to send. */
function goToTable(table, name) {
  const id = table.table_id;
  const path = table.url || `/t/${id}`;
  // The creator sits down in the first free seat on arrival (table.js autoSit).
  const mem = { name, autosit: true };
  if (table.host_token) mem.host_token = table.host_token;
  rememberTable(id, mem);
  location.assign(path);
}

async function onJoin(event) {
  event.preventDefault();
  const error = $("#join-error");
  const id = tableIdFrom($("#join-code").value);
  if (!id) {
    error.textContent = "That doesn't look like a table link or code.";
    return;
  }
  try {
    const table = await getJSON(`/api/tables/${encodeURIComponent(id)}`);
    location.href = table.url;
  } catch (e) {
    error.textContent = e instanceof ApiError && e.status === 404
      ? "There is no open table with this code. Tables close after a long time without players."
      : e.message;
  }
}

drawHero();
drawSeatPicks();
$("#name").value = savedName();
$("#points-on").addEventListener("change", (e) => { $("#points").hidden = !e.target.checked; });
$("#create-form").addEventListener("submit", onCreate);
$("#join-form").addEventListener("submit", onJoin);
