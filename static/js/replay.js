// The replay viewer: a finished game step by step, every hand visible, each
// score change with the rule behind it (GET /api/matches/{id}/games/{n}/replay).

import { $, h, fill } from "./dom.js";
import { ApiError, getJSON } from "./api.js";
import { cardEl, pileValue, rankLabel, rankPlural } from "./cards.js";
import { avatar, cardRow, lineEl, seatNames } from "./render.js";
import { describeEvent, signed } from "./words.js";

const [, , matchId, , gameNumber] = location.pathname.split("/").map(decodeURIComponent);
const POSITIONS = ["bottom", "left", "top", "right"];
const AUTOPLAY_MS = 900;

const R = { data: null, index: 0, timer: null };

const frames = () => [R.data.deal, ...R.data.steps];
const nameOf = (seat) => seatNames(R.data.players)[seat];

function show(index, { scroll = true } = {}) {
  const all = frames();
  R.index = Math.max(0, Math.min(all.length - 1, index));
  const frame = all[R.index];
  drawTable(frame);
  drawNow(frame);
  $("#slider").value = String(R.index);
  $("#step-count").textContent = `${R.index} / ${all.length - 1}`;
  $("#prev").disabled = $("#first").disabled = R.index === 0;
  $("#next").disabled = $("#last").disabled = R.index === all.length - 1;
  for (const li of document.querySelectorAll("#steps li")) {
    const current = Number(li.dataset.index) === R.index;
    li.classList.toggle("current", current);
    if (current) {
      li.setAttribute("aria-current", "step");
      if (scroll) {
        const list = $("#steps");
        if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
          list.scrollTop = li.offsetTop - list.clientHeight / 2;
        }
      }
    } else {
      li.removeAttribute("aria-current");
    }
  }
  const q = new URLSearchParams(location.search);
  q.set("step", String(R.index));
  history.replaceState(null, "", `${location.pathname}?${q}`);
  if (R.index === all.length - 1) stop();
}

function drawTable(frame) {
  const felt = $("#rfelt");
  const lastEvents = frame.events || [];
  fill(felt);
  for (let seat = 0; seat < 4; seat++) {
    const pos = POSITIONS[seat];
    const turn = frame.to_act === seat;
    const scoreVal = pileValue(frame.score_piles[seat]);
    const penaltyVal = pileValue(frame.penalty_piles[seat], { penalty: true });
    felt.appendChild(h("div", { class: ["rseat", `rseat--${pos}`, turn && "rseat--turn"], dataset: { seat: String(seat) } },
      h("div", { class: "rseat__head" }, avatar(nameOf(seat), seat),
        h("span", { class: "rseat__name" }, nameOf(seat)),
        R.data.players[seat].bot ? h("span", { class: "badge badge--bot" }, "Bot") : null,
        seat === R.data.dealer ? h("span", { class: "badge badge--dealer", title: "Dealer" }, "D") : null,
        h("span", { class: "rseat__score", title: "Points this game" }, signed(frame.scores[seat]))),
      h("div", { class: "rseat__hand" }, cardRow(frame.hands[seat], { size: "sm", label: `${nameOf(seat)}'s hand` })),
      h("div", { class: "rseat__piles" },
        h("span", { class: "pile-tag pile-tag--score" }, `Score pile ${scoreVal}`),
        cardRow(frame.score_piles[seat], { overlap: true, label: "Score pile" }),
        h("span", { class: "pile-tag pile-tag--penalty" }, `Penalty ${penaltyVal}`),
        cardRow(frame.penalty_piles[seat], { overlap: true, label: "Penalty pile" }))));
  }
  const center = h("div", { class: "rcenter" });
  center.appendChild(h("div", { class: "spot" }, h("span", { class: "spot__label" }, `Rabbits (${frame.rabbits.length})`),
    frame.rabbits.length ? cardEl(frame.rabbits[0], { size: "sm" }) : h("span", { class: "muted-dark" }, "none left")));
  const hunt = frame.hunt;
  const huntBox = h("div", { class: "spot rhunt" });
  if (hunt) {
    huntBox.appendChild(h("span", { class: "spot__label" }, hunt.rank === "A" ? "The ace hunt" : `Hunting the ${rankPlural(hunt.rank)}`));
    huntBox.appendChild(cardEl(hunt.rabbit, { size: "sm" }));
    huntBox.appendChild(h("div", { class: "rplays" }, hunt.plays.map((p) => h("div", { class: "rplay" },
      h("span", { class: "rplay__who" }, nameOf(p.seat)), cardRow(p.cards, { size: "xs" })))));
  } else {
    huntBox.appendChild(h("span", { class: "spot__label" }, frame.stage === "over" ? "Game over" : frame.stage));
  }
  center.appendChild(huntBox);
  const discardedNow = lastEvents.filter((e) => e.type === "discard").map((e) => e.card);
  center.appendChild(h("div", { class: "spot" }, h("span", { class: "spot__label" }, `Discards (${frame.discards.length})`),
    h("div", { class: "card-row rdiscards" }, frame.discards.map((c) => cardEl(c, { size: "xs", classes: [discardedNow.includes(c) && "card--just"] })))));
  center.appendChild(h("div", { class: "spot" }, h("span", { class: "spot__label" }, `Dead rabbits (${frame.dead_rabbits.length})`),
    cardRow(frame.dead_rabbits, { overlap: true })));
  felt.appendChild(center);
}

function drawNow(frame) {
  const box = $("#step-now");
  if (R.index === 0) {
    fill(box, h("p", { class: "step-now__title" }, "The deal"),
      h("p", { class: "muted" }, `${nameOf(frame.dealer)} deals ten cards to each player. Step through the game with the buttons or the arrow keys.`));
    return;
  }
  const names = (seat) => nameOf(seat);
  const lines = (frame.events || []).filter((ev) => ev.type !== "hunt_result")
    .map((ev) => describeEvent(ev, names)).filter(Boolean);
  fill(box,
    h("p", { class: "step-now__title" }, `Step ${frame.index}: ${frame.text}`),
    lines.length ? h("ul", { class: "step-events" }, lines.map((parts) => lineEl(parts, "li"))) : null,
    frame.score_changes.map((ch) => h("div", { class: "score-change" },
      h("div", { class: "score-change__head" }, cardEl(ch.rabbit, { size: "xs" }),
        h("span", {}, ch.rule === "void" ? "No hunt" : "Score change"),
        h("span", { class: "score-change__points" }, ch.points.map((p, s) => (p ? `${nameOf(s)} ${signed(p)}` : null)).filter(Boolean).join(", ") || "no points")),
      h("p", {}, ch.explanation))),
    R.index === frames().length - 1 && R.data.result ? resultEl(R.data.result) : null);
}

function resultEl(result) {
  // The server's words for the rule that decided the game, the same the live table shows.
  const who = R.data.winner_rule;
  return h("div", { class: "score-change score-change--final" },
    h("p", { class: "step-now__title" }, who),
    h("p", { class: "muted" }, [0, 1, 2, 3].map((s) => `${nameOf(s)}: ${signed(result.scores[s])}`).join(" · ")));
}

function drawSteps() {
  const list = $("#steps");
  fill(list, frames().map((frame, i) => h("li", { dataset: { index: String(i) } },
    h("button", { type: "button", class: "step-btn", onclick: () => { stop(); show(i); } },
      h("span", { class: "step-btn__n" }, String(i)),
      h("span", {}, i === 0 ? "The deal" : frame.text),
      frame.score_changes && frame.score_changes.some((c) => c.rule !== "void")
        ? h("span", { class: "badge badge--win" }, frame.score_changes.map((c) => rankLabel(c.rank)).join(" ")) : null))));
}

function play() {
  if (R.timer) return stop();
  if (R.index === frames().length - 1) show(0);
  setPlaying(true);
  R.timer = setInterval(() => show(R.index + 1), AUTOPLAY_MS);
  return undefined;
}

function setPlaying(on) {
  $("#play .ico-play").toggleAttribute("hidden", on);
  $("#play .ico-pause").toggleAttribute("hidden", !on);
  $("#play-text").textContent = on ? "Pause" : "Play";
  $("#play").setAttribute("aria-label", on ? "Pause" : "Play");
}

function stop() {
  clearInterval(R.timer);
  R.timer = null;
  setPlaying(false);
}

function wire() {
  $("#first").onclick = () => { stop(); show(0); };
  $("#prev").onclick = () => { stop(); show(R.index - 1); };
  $("#next").onclick = () => { stop(); show(R.index + 1); };
  $("#last").onclick = () => { stop(); show(frames().length - 1); };
  $("#play").onclick = play;
  $("#slider").max = String(frames().length - 1);
  $("#slider").addEventListener("input", (e) => { stop(); show(Number(e.target.value)); });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea, select")) return;
    const keys = { ArrowLeft: () => show(R.index - 1), ArrowRight: () => show(R.index + 1), Home: () => show(0), End: () => show(frames().length - 1) };
    if (keys[e.key]) {
      stop();
      keys[e.key]();
      e.preventDefault();
    } else if (e.key === " " && !e.target.closest("button")) {
      play();
      e.preventDefault();
    }
  });
}

async function main() {
  $("#back").href = `/matches/${encodeURIComponent(matchId)}`;
  try {
    R.data = await getJSON(`/api/matches/${encodeURIComponent(matchId)}/games/${encodeURIComponent(gameNumber)}/replay`);
  } catch (e) {
    fill($("#replay"), h("div", { class: "panel empty-state" },
      h("h1", {}, "Replay not found"),
      h("p", {}, e instanceof ApiError && e.status === 404 ? "This match has no such game." : (e.message || "Could not load the replay.")),
      h("a", { class: "btn btn--primary", href: "/history" }, "Back to the history")));
    return;
  }
  document.title = `Match #${matchId}, game ${gameNumber} replay · Dingo Online`;
  $("#replay-title").textContent = `Match #${matchId} · Game ${gameNumber}`;
  drawSteps();
  wire();
  const start = Number.parseInt(new URLSearchParams(location.search).get("step") || "0", 10) || 0;
  show(start);
}

main();
