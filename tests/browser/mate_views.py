"""Real Mate views from the engine, at the moments the Mate client module must draw.

Each scenario is what the table would send one browser: ``view`` (``MatchState.view``),
``match`` (the scoreboard JSON), ``seat`` (``None``: a spectator) and ``status``. The deals
of the rules page's examples (docs/rules-mate.md) give the overmate and the move-10 mate;
a seeded random match gives the rest. ``python tests/browser/mate_views.py OUT.json``
writes them all for a harness page.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from app.games.mate.state import MateMatch, check_deal

JSON = dict[str, Any]
Play = list[tuple[int, JSON]]

QUEEN_MATE = ("AC 7C AS 7S AH TH KH QH AD 7D", "TC KC QC TS KS QS 7H TD KD QD")
OVERMATE = ("AC TC QC AS TS AH TH AD TD KD", "KC 7C KS QS 7S KH QH 7H QD 7D")
MATED_ON_10 = ("AC TC AS KS 7S TH KH AD TD QD", "KC QC 7C TS QS AH QH 7H KD 7D")
BOTH_FOREPLACE_DRAW = ("AC TC KC AS KS 7S AH KH AD QD", "QC 7C TS QS TH QH 7H TD KD 7D")


def _moves(text: str, leaders: str) -> Play:
    """``"AH-KH TC-7C"`` with who led each move (``"0 0"``): the play actions in order."""
    out: Play = []
    for pair, lead in zip(text.split(), leaders.split(), strict=True):
        first, second = pair.split("-")
        seat = int(lead)
        out.append((seat, {"type": "play", "card": first}))
        if second:
            out.append((1 - seat, {"type": "play", "card": second}))
    return out


def _flip(actions: Play) -> Play:
    return [(1 - s, a) for s, a in actions]


#: Game 1 of the built match: Ann's queen mate on move 5 (15), nobody foreplaces.
DECLINE: JSON = {"type": "decline"}
QUEEN_PLAY: Play = [(0, DECLINE), (1, DECLINE),
                    *_moves("AC-QC AS-QS AD-QD AH-7H QH-", "0 0 0 0 0")]
#: The ace overmate (242): Ann foreplaces the king of diamonds, Bruno declines.
OVERMATE_PLAY: Play = [
    (0, {"type": "foreplace", "card": "KD"}), (1, DECLINE),
    *_moves("AH-KH TC-7C TS-7S TH-7H AD-7D AC-KC TD-QD QC-QS AS-KS", "0 0 0 0 0 0 0 0 0")]
#: A lone foreplacer mated on move 10 (70 for Bruno).
MATED_ON_10_PLAY: Play = [
    (0, {"type": "foreplace", "card": "KS"}), (1, DECLINE),
    *_moves("AS-QS AC-QC TC-KC TH-QH QD-7D TD-KD KH-7H 7S-TS AH-AD 7C-", "0 0 0 0 0 0 0 0 1 1")]


#: Both foreplace, a draw after nine moves.
DRAW_PLAY: Play = [
    (0, {"type": "foreplace", "card": "KC"}), (1, {"type": "foreplace", "card": "TD"}),
    *_moves("TC-QC QD-7D AD-KD KS-QS AH-TH KH-QH AS-TS AC-7C 7S-7H", "0 0 0 0 0 0 0 0 0")]


def _hands(pair: tuple[str, str]) -> list[list[str]]:
    return [pair[0].split(), pair[1].split()]


def random_play(match: MateMatch, rng: random.Random, steps: int | None = None) -> None:
    """Random legal actions for whoever is to act, ``steps`` of them or to the game's end."""
    done = 0
    while match.to_act() and (steps is None or done < steps):
        seat = min(match.to_act())
        legal = match.legal(seat)
        # Foreplace now and then, so face-down cards show up in the views.
        match.apply(seat, legal[rng.randrange(len(legal))])
        done += 1


def _shot(match: MateMatch, seat: int | None) -> JSON:
    status = ("match_over" if match.over else "between_games" if match.between_games
              else "playing")
    return {"view": match.view(seat), "match": match.scoreboard(), "seat": seat,
            "status": status}


def built_match() -> MateMatch:
    """Games 1 and 3 from the rules page's examples (game 3 with the seats swapped, as seat 1
    leads it), games 2 and 4 their exchanged hands; the first dealer is seat 0."""
    one = check_deal(_hands(QUEEN_MATE), 0)
    three = check_deal(list(reversed(_hands(OVERMATE))), 1)
    setups = [one, ((one[0][1], one[0][0]), 1), three, ((three[0][1], three[0][0]), 0)]
    return MateMatch(7, {}, setups, first_dealer=0)


def scenarios() -> dict[str, JSON]:
    """Named moments, each as one browser would receive it."""
    out: dict[str, JSON] = {}
    rng = random.Random(15)

    # A random match (seed 3): deciding, answering, leading, waiting, a spectator.
    m = MateMatch(3, {})
    leader = m.game.leader
    out["decide-leader"] = _shot(m, leader)
    m.apply(leader, {"type": "foreplace", "card": m.legal(leader)[3]["card"]})
    other = 1 - leader
    out["decide-second"] = _shot(m, other)
    out["decide-second-spectator"] = _shot(m, None)
    m.apply(other, {"type": "decline"})
    out["first-lead"] = _shot(m, leader)
    out["first-lead-waiting"] = _shot(m, other)
    random_play(m, rng, 7)
    while m.game.current is None or not m.to_act():
        random_play(m, rng, 1)
    answerer = min(m.to_act())
    out["answer"] = _shot(m, answerer)
    out["answer-waiting"] = _shot(m, 1 - answerer)
    out["answer-spectator"] = _shot(m, None)
    random_play(m, rng, 1)
    if m.to_act():
        out["lead-later"] = _shot(m, min(m.to_act()))
    random_play(m, rng)
    out["random-over"] = _shot(m, 0)

    # The built match: a queen mate, random play, the overmate, random play.
    b = built_match()
    for seat, action in QUEEN_PLAY[:-1]:
        b.apply(seat, action)
    out["before-queen-mate"] = _shot(b, 0)
    b.apply(*QUEEN_PLAY[-1])
    out["queen-mate"] = _shot(b, 0)
    out["queen-mate-mated"] = _shot(b, 1)
    b.start_next_game()
    out["game2-start"] = _shot(b, 0)
    random_play(b, rng)
    out["game2-over"] = _shot(b, 1)
    b.start_next_game()
    for seat, action in _flip(OVERMATE_PLAY)[:-2]:
        b.apply(seat, action)
    out["overmate-move9"] = _shot(b, 0)
    out["overmate-move9-foreplacer"] = _shot(b, 1)
    for seat, action in _flip(OVERMATE_PLAY)[-2:]:
        b.apply(seat, action)
    out["overmate"] = _shot(b, 0)
    out["overmate-spectator"] = _shot(b, None)
    b.start_next_game()
    random_play(b, rng, 6)
    out["game4-mid"] = _shot(b, 0)
    random_play(b, rng)
    out["match-over"] = _shot(b, 0)
    out["match-over-spectator"] = _shot(b, None)

    # The lone foreplacer mated on move 10.
    t = MateMatch(1, {}, [check_deal(_hands(MATED_ON_10), 0)], first_dealer=0)
    for seat, action in MATED_ON_10_PLAY:
        t.apply(seat, action)
    out["mated-on-10"] = _shot(t, 0)

    # Both foreplace and nobody is mated.
    d = MateMatch(2, {}, [check_deal(_hands(BOTH_FOREPLACE_DRAW), 0)], first_dealer=0)
    for seat, action in DRAW_PLAY:
        d.apply(seat, action)
    out["draw"] = _shot(d, 1)
    return out


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/mate_views.json"
    with open(path, "w") as f:
        json.dump(scenarios(), f, indent=1)
    print(path)


# --- a harness page: the Mate module drawing these views, without the table frame -----------

HARNESS_ORIGIN = "http://mate.test"

#: A page laid out like static/table.html (felt, seat plates, tray, scoreboard box, results
#: overlay) whose script hands one scenario to the module as the frame would: ``?s=NAME``,
#: ``&busy`` for an action in flight, ``&results`` for the end-of-game panel.
HARNESS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mate harness</title>
<link rel="stylesheet" href="/static/css/base.css">
<link rel="stylesheet" href="/static/css/cards.css">
<link rel="stylesheet" href="/static/css/table.css">
<link rel="stylesheet" href="/static/js/games/mate/mate.css">
</head>
<body class="table-page">
<main class="table-layout">
  <section class="play-area" aria-label="The table">
    <div class="felt" id="felt">
      <div class="pos pos--top" id="pos-top"></div>
      <div class="center" id="center"></div>
      <div class="felt-overlay" id="overlay" hidden></div>
    </div>
    <div class="tray" id="tray">
      <div class="pos pos--bottom" id="pos-bottom"></div>
      <div class="tray__now"><p class="prompt" id="prompt"></p>
        <div class="actions" id="actions"></div></div>
      <div class="hand" id="hand" role="group" aria-label="Your hand"></div>
    </div>
  </section>
  <aside class="side">
    <section class="side-card"><h2>Scoreboard</h2>
      <p class="side-note" id="rule"></p><div id="scoreboard" class="scoreboard"></div></section>
  </aside>
</main>
<script type="module">
import mate from "/static/js/games/mate/index.js";
import { secondPerson } from "/static/js/words.js";
const all = await (await fetch("/harness/views.json")).json();
const params = new URLSearchParams(location.search);
const sc = all[params.get("s")];
const seat = sc.seat;
const names = ["Ann", "Bruno"];
window.acted = [];
const ctx = {
  seat, reader: seat, seats: 2,
  name: (s) => (s === seat ? "You" : names[s]),
  say: (t) => t.replace(/\\{(\\d)\\}/g, (_, d) => ctx.name(Number(d))),
  // as the table frame's: this seat in the second person, then the names
  sayYou: (t) => ctx.say(secondPerson(t, seat)),
  act: (a) => { window.acted.push(a); },
  busy: params.has("busy"),
  myTurn: seat !== null && sc.view.to_act.includes(seat),
  status: sc.status,
  position: (s) => (s === (seat === null ? 0 : seat) ? "bottom" : "top"),
};
const plate = (s) => {
  const el = document.createElement("div");
  el.className = "seat" + (sc.view.to_act.includes(s) ? " seat--turn" : "")
    + (s === seat ? " seat--me" : "");
  el.dataset.seat = String(s);
  el.innerHTML = `<div class="seat__head"><span class="avatar avatar--${s}">${names[s][0]}</span>`
    + `<span class="seat__name"></span></div><div class="seat__game"></div>`;
  el.querySelector(".seat__name").textContent = ctx.name(s);
  return el;
};
const seats = {};
for (const s of [0, 1]) {
  const p = plate(s);
  document.getElementById(`pos-${ctx.position(s)}`).appendChild(p);
  seats[s] = p.querySelector(".seat__game");
}
document.getElementById("prompt").textContent = ctx.say(sc.view.prompt);
mate.render(sc.view, ctx, {board: document.getElementById("center"),
                           hand: document.getElementById("hand"),
                           actions: document.getElementById("actions"), seats});
document.getElementById("rule").textContent = mate.rule();
document.getElementById("scoreboard").appendChild(mate.scoreboard(sc.match, ctx));
if (params.has("results")) {
  const panel = document.createElement("div");
  panel.className = "center-panel";
  panel.id = "results";
  const head = document.createElement("h2");
  head.className = "mate-headline";
  head.textContent = mate.headline(sc.view, ctx);
  panel.appendChild(head);
  const body = mate.results(sc.view, null, ctx);
  if (body) panel.appendChild(body);
  const overlay = document.getElementById("overlay");
  overlay.appendChild(panel);
  overlay.hidden = false;
}
document.body.dataset.ready = "1";
</script>
</body></html>
"""


def serve_harness(page: Any, root: Path) -> None:
    """Answer ``HARNESS_ORIGIN`` on ``page``: /harness.html, /harness/views.json (the
    scenarios, made now from the engine) and /static/ from the repository ``root``."""
    views = json.dumps(scenarios())
    types = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
             ".html": "text/html", ".json": "application/json"}

    def handle(route: Any) -> None:
        path = route.request.url[len(HARNESS_ORIGIN):].split("?")[0]
        if path == "/harness.html":
            route.fulfill(body=HARNESS_HTML, content_type="text/html")
        elif path == "/harness/views.json":
            route.fulfill(body=views, content_type="application/json")
        elif path.startswith("/static/") and ".." not in path and (root / path[1:]).is_file():
            file = root / path[1:]
            route.fulfill(body=file.read_bytes(),
                          content_type=types.get(file.suffix, "application/octet-stream"))
        else:
            route.fulfill(status=404, body="not found")

    page.route(f"{HARNESS_ORIGIN}/**", handle)
