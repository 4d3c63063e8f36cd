// The home page: create a table and share its link, or join one.

import { $, h, copyText, toast } from "./dom.js";
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

function drawSeatPicks() {
  const picks = $("#seat-picks");
  for (let seat = 0; seat < SEATS; seat++) {
    picks.appendChild(h("label", { class: "seat-pick" },
      h("input", { type: "checkbox", name: "bot", value: String(seat), checked: seat !== 0 }),
      `Seat ${seat + 1}`,
      h("small", {}, seat === 0 ? "open" : "bot")));
  }
  picks.addEventListener("change", (e) => {
    const box = e.target.closest(".seat-pick");
    if (box) box.querySelector("small").textContent = e.target.checked ? "bot" : "open";
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
    .map((b) => ({ seat: Number(b.value), kind: "heuristic" }));
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
    showCreated(table, form.name);
  } catch (e) {
    err.textContent = e instanceof ApiError ? e.message : "Something went wrong. Please try again.";
  } finally {
    btn.disabled = false;
    btn.textContent = "Create table";
  }
}

function showCreated(table, name) {
  const id = table.table_id;
  const path = table.url || `/t/${id}`;
  // The creator sits down in the first free seat on arrival (table.js autoSit).
  const mem = { name, autosit: true };
  if (table.host_token) mem.host_token = table.host_token;
  rememberTable(id, mem);
  const link = new URL(path, location.origin).href;
  $("#table-link").value = link;
  $("#open-table").href = path;
  $("#create-form").hidden = true;
  $("#created").hidden = false;
  $("#open-table").focus();
}

async function onCopy() {
  const ok = await copyText($("#table-link").value);
  toast(ok ? "Link copied. Send it to your friends!" : "Copy failed: select the link and copy it.",
    { error: !ok });
  if (ok) $("#copy-link").textContent = "Copied";
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
$("#copy-link").addEventListener("click", onCopy);
$("#join-form").addEventListener("submit", onJoin);
