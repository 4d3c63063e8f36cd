"""Leak test: whole matches over real WebSockets, every frame every viewer got is checked.

Four seated people and a spectator play seeded matches on the real app (SQL
store, uvicorn, the websockets client). On the way, at random, a seat
reconnects with its token (closing first, or opening a second socket that
replaces the first), asks for a resync, chats, sends intents that are refused,
and someone reads the public HTTP API. Every frame of every socket is kept.

Afterwards the table's log is replayed through the bare rules engine to know,
at each version, which cards each viewer must not see (other seats' hands,
passes it was not part of, discards under the top under default rules); no
frame tagged with that version (its ``v``, or the last ``v`` that socket saw)
may name one, anywhere, including inside error and chat text. Spectators must
never see a card in a hand. The history API must show nothing of a match
before it is recorded.

Every other registered game plays the same way (two seats and a spectator), judged by
``hardeningkit.Oracle``, which derives what each viewer may not know from the game's own
``redeal``, so it needs no game's rules (see its docstring).
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hardeningkit import (
    SHORT,
    TWO_SEAT,
    Oracle,
    check_frames,
    mentions,
    playout_entries,
    strings,
    table_body,
    variants,
)
from tablekit import Live, Player, card_strings, hidden_by_version, live_server

from app import games
from app.games.contract import Event
from app.table.options import TableOptions

#: A card code inside free text (error messages, chat), not only a whole string.
CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][CDHS](?![A-Za-z0-9])")


def cards_in_frame(frame: dict[str, Any]) -> set[str]:
    found = card_strings(frame)
    for key in ("message", "text"):
        if isinstance(frame.get(key), str):
            found |= set(CARD_IN_TEXT.findall(frame[key]))
    return found


class Viewer:
    """Everything one seat (or the spectator) received, over all its sockets in order."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.streams: list[Player] = []

    @property
    def now(self) -> Player:
        return self.streams[-1]

    def tagged(self) -> list[tuple[int, dict[str, Any]]]:
        """(version, frame) for every frame: its own ``v`` or the last one the socket saw."""
        out = []
        for player in self.streams:
            version = -1
            for frame in player.frames:
                if isinstance(frame.get("v"), int):
                    version = frame["v"]
                out.append((version, frame))
        return out


def check_viewer(viewer: Viewer, hidden: dict[int, dict[int | None, set[str]]]) -> int:
    checked = 0
    for version, frame in viewer.tagged():
        if version not in hidden:
            continue
        leaked = cards_in_frame(frame) & hidden[version][viewer.seat]
        assert not leaked, (f"viewer {viewer.seat} was shown {sorted(leaked)} at v{version} "
                            f"in {frame['type']}: {str(frame)[:300]}")
        checked += 1
    return checked


async def drain(player: Player) -> None:
    """Keep what a socket still receives until it closes (e.g. 4001 after a replacement)."""
    code = await player.closed_code(timeout=5)
    assert code in (None, 1000, 4001), code


async def reconnect(live: Live, table_id: str, viewer: Viewer, token: str | None,
                    rng: random.Random) -> None:
    old = viewer.now
    if token is None or rng.random() < 0.5:  # the phone dropped, then came back
        await old.ws.close()
        await drain(old)
        viewer.streams.append(await live.player(table_id, token))
    else:  # a second tab: the new socket replaces the old one (4001)
        viewer.streams.append(await live.player(table_id, token))
        await drain(old)
    # Intent ids are remembered per seat across sockets: a new socket must not reuse them.
    viewer.now._n = old._n


async def catch_up(viewers: list[Viewer], spectator: Viewer) -> dict[str, Any]:
    version = max(v.now.state["v"] for v in viewers)
    for v in [*viewers, spectator]:
        await v.now.until(lambda s, x=version: s["v"] >= x)
    return viewers[0].now.state


async def play_match(live: Live, seed: int, games: int) -> tuple[int, int, list[str]]:
    rng = random.Random(seed)
    table_id, host = await live.create(games_to_win=games)
    spectator = Viewer(None)
    spectator.streams.append(await live.player(table_id))
    viewers = [Viewer(seat) for seat in range(4)]
    tokens: list[str | None] = []
    for seat, viewer in enumerate(viewers):
        viewer.streams.append(await live.player(table_id, host if seat == 0 else None))
        answer = await viewer.now.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
        assert answer["type"] == "ack", answer
        tokens.append(host if seat == 0 else viewer.now.token)
    assert (await viewers[0].now.intent({"type": "start"}))["type"] == "ack"
    http_seen: list[Any] = []
    extras = step = 0
    while True:
        state = await catch_up(viewers, spectator)
        if state["table"]["status"] == "match_over" and state["table"]["match_id"] is not None:
            break
        step += 1
        # Random disturbances, plus a reconnect and a refused intent every 12 steps for sure.
        roll = {5: 0.01, 9: 0.17}.get(step % 12, rng.random())
        who = rng.randrange(4)
        if roll < 0.06:
            await reconnect(live, table_id, viewers[who], tokens[who], rng)
        elif roll < 0.08:
            await reconnect(live, table_id, spectator, None, rng)
        elif roll < 0.12:
            await viewers[who].now.send({"type": "sync"})
            await viewers[who].now.next_state(lambda s: s["events"] == [])
        elif roll < 0.15:
            await viewers[who].now.send({"type": "chat", "text": f"good luck {seed}"})
            await viewers[who].now.expect("chat")
        elif roll < 0.20 and state["table"]["status"] == "playing":
            # Refused intents: out of turn, or on an old version, with a card of one's own.
            game = viewers[who].now.state["game"]
            if game["hand"]:
                card = rng.choice(game["hand"])
                stale = rng.random() < 0.5 or who in viewers[who].now.state["to_act"]
                kind = "discard" if game["phase"] == "discard" else "pass"
                answer = await viewers[who].now.intent(
                    {"type": kind, "card": card, "v": state["v"] - 1 if stale else state["v"]})
                assert answer["type"] == "error", answer
                extras += 1
        elif roll < 0.23:
            r1 = await live.http.get(f"/api/tables/{table_id}")
            r2 = await live.http.get("/api/matches", params={"table": table_id})
            assert r1.status_code == 200 and r2.status_code == 200
            assert r2.json()["items"] == [], "a match is in the history before it ended"
            http_seen += [r1.json(), r2.json()]
        elif state["table"]["status"] == "between_games":
            for viewer in viewers:
                if not viewer.now.state["seats"][viewer.seat]["ready"]:
                    assert (await viewer.now.intent({"type": "ready"}))["type"] == "ack"
            await viewers[0].now.until(lambda s: s["table"]["status"] != "between_games")
        else:
            to_act = (state["to_act"] or [None])[0]
            await viewers[to_act].now.play_random(rng)
    # The history of the finished match may show everything; the table's public info never.
    match_id = state["table"]["match_id"]
    detail = await live.http.get(f"/api/matches/{match_id}")
    assert detail.status_code == 200
    http_seen.append(detail.json())
    for body in http_seen:
        assert not card_strings(body) or body is http_seen[-1], body
    for viewer in [*viewers, spectator]:
        await viewer.now.ws.close()
        await drain(viewer.now)
    stored = {t.table_id: t for t in await live.store.unfinished_tables()}[table_id]
    # Seat tokens never leave the browser: not in the log, the history, the API or a frame.
    everything = orjson.dumps([stored.entries, http_seen]).decode() + "".join(
        orjson.dumps(f).decode() for v in [*viewers, spectator] for p in v.streams
        for f in p.frames if f["type"] != "seated")
    for token in tokens:
        assert token and len(token) >= 32 and token not in everything
    hidden = hidden_by_version(TableOptions.from_dict(stored.options), stored.entries)
    checked = sum(check_viewer(v, hidden) for v in [*viewers, spectator])
    reconnects = sum(len(v.streams) - 1 for v in [*viewers, spectator])
    return checked, reconnects + extras, [t for t in tokens if t]


def test_the_check_finds_a_leak() -> None:
    """The checker itself: a hidden card in a state, or inside an error text, is caught."""
    hidden = {7: {0: {"AS"}, None: {"AS", "7H"}}}
    viewer = Viewer(0)
    player = Player.__new__(Player)
    player.frames = [{"type": "state", "v": 7, "game": {"hand": ["2C"]}}]
    viewer.streams.append(player)
    assert check_viewer(viewer, hidden) == 1
    player.frames.append({"type": "error", "code": "illegal", "message": "AS is not yours",
                          "v": 7})
    with pytest.raises(AssertionError, match="AS"):
        check_viewer(viewer, hidden)
    player.frames[1:] = [{"type": "state", "v": 7, "events": [{"cards": ["AS"]}]}]
    with pytest.raises(AssertionError, match="AS"):
        check_viewer(viewer, hidden)


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record) + repr(record.__dict__))


@pytest.mark.parametrize("seed,games", [(s, 2 if s % 3 == 0 else 1) for s in range(1, 11)])
async def test_no_frame_shows_a_viewer_a_hidden_card(tmp_path: Path, seed: int,
                                                     games: int) -> None:
    async for live in live_server(tmp_path, real_store=True,
                                  reconnect_grace_seconds=30.0):
        lines = Lines()
        logging.getLogger().addHandler(lines)
        try:
            checked, disturbances, tokens = await asyncio.wait_for(
                play_match(live, seed, games), 50)
        finally:
            logging.getLogger().removeHandler(lines)
        assert len(lines.lines) > 20  # uvicorn and the tables did log
        log_text = "\n".join(lines.lines)
        assert not [t for t in tokens if t in log_text], "a seat token was logged"
        assert checked > 150 * games
        assert disturbances >= 3  # the run really reconnected / was refused on the way


# -- every other game: the engine decides what each viewer may not be shown ----------------
#
# Dingo's check above knows Dingo's cards. For the other games the oracle of
# tests/hardeningkit.py knows no rules: it replays the table's log with the game's engine
# and asks the game's ``redeal`` what a viewer cannot know (see its docstring).


def mangled(rng: random.Random, mine: list[dict[str, Any]], states: list[dict[str, Any]]
            ) -> dict[str, Any] | None:
    """One of the seat's (or another seat's) offered actions with a field set to a value
    seen anywhere (another seat's hand or face-down card too), and not one it may send."""
    offered = [a for s in states for a in (s["game"] or {}).get("legal", [])]
    if not offered:
        return None
    action = dict(rng.choice(offered))
    fields = [k for k in action if k != "type"]
    values = sorted({t for s in states for t in strings(s["game"]) if len(t) <= 8})
    if fields and values:
        action[rng.choice(fields)] = rng.choice(values)
    return None if action in mine else action


async def play_other_match(live: Live, name: str, options: dict[str, Any], seed: int
                           ) -> tuple[Oracle, dict[int, dict[Any, Any]], list[Viewer], list[str]]:
    rng = random.Random(seed)
    spec = games.get(name)
    table_id, host = await live.create(**table_body(name, options))
    spectator = Viewer(None)
    spectator.streams.append(await live.player(table_id))
    viewers = [Viewer(seat) for seat in range(spec.seats)]
    tokens: list[str | None] = []
    for seat, viewer in enumerate(viewers):
        viewer.streams.append(await live.player(table_id, host if seat == 0 else None))
        answer = await viewer.now.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
        assert answer["type"] == "ack", answer
        tokens.append(host if seat == 0 else viewer.now.token)
    assert (await viewers[0].now.intent({"type": "start"}))["type"] == "ack"
    refused: dict[str, tuple[int, dict[str, Any]]] = {}
    public: list[tuple[int, Any]] = []
    step = 0
    while True:
        state = await catch_up(viewers, spectator)
        if state["table"]["status"] == "match_over" and state["table"]["match_id"] is not None:
            break
        step += 1
        roll = {5: 0.01, 9: 0.17}.get(step % 12, rng.random())
        who = rng.randrange(spec.seats)
        if roll < 0.06:
            await reconnect(live, table_id, viewers[who], tokens[who], rng)
        elif roll < 0.08:
            await reconnect(live, table_id, spectator, None, rng)
        elif roll < 0.12:
            await viewers[who].now.send({"type": "sync"})
            await viewers[who].now.next_state(lambda s: s["events"] == [])
        elif roll < 0.15:
            await viewers[who].now.send({"type": "chat", "text": f"good luck {seed}"})
            await viewers[who].now.expect("chat")
        elif roll < 0.21 and state["table"]["status"] == "playing":
            # Refused intents: someone else's move, a mangled one, or one on an old version.
            mine = viewers[who].now.state["game"]["legal"]
            states = [v.now.state for v in viewers]
            action = mangled(rng, mine, states)
            tries = 0 if refused else 20  # until one is refused: a short match may have
            while action is None and tries:  # few chances to refuse one
                action, tries = mangled(rng, mine, states), tries - 1
            stale = action is None or (bool(refused) and rng.random() < 0.2)
            if stale:
                action = rng.choice(mine) if mine else {"type": sorted(spec.actions)[0]}
            assert action is not None
            # (From before the match: an action is in time while its seat's decision
            # stands, which under a simultaneous decision includes the version before.)
            version = 0 if stale else state["v"]
            answer = await viewers[who].now.intent({**action, "v": version})
            assert answer["type"] == "error", (action, answer)
            if not stale:
                refused[answer["id"]] = (who, action)
        elif roll < 0.24:
            r1 = await live.http.get(f"/api/tables/{table_id}")
            r2 = await live.http.get("/api/matches", params={"table": table_id})
            assert r1.status_code == 200 and r2.status_code == 200
            assert r2.json()["items"] == [], "a match is in the history before it ended"
            public.append((state["v"], r1.json()))
        elif state["table"]["status"] == "between_games":
            for viewer in viewers:
                if not viewer.now.state["seats"][viewer.seat]["ready"]:
                    assert (await viewer.now.intent({"type": "ready"}))["type"] == "ack"
            await viewers[0].now.until(lambda s: s["table"]["status"] != "between_games")
        else:
            await viewers[rng.choice(state["to_act"])].now.play_random(rng)
    for viewer in [*viewers, spectator]:
        await viewer.now.ws.close()
        await drain(viewer.now)
    stored = {t.table_id: t for t in await live.store.unfinished_tables()}[table_id]
    oracle = Oracle(spec, TableOptions.from_dict(stored.options).rules, random.Random(seed))
    for viewer in viewers:
        for player in viewer.streams:
            oracle.refusals += [(f["v"], viewer.seat, refused[f["id"]][1]) for f in player.frames
                                if f["type"] == "error" and f.get("id") in refused]
    oracle.vouched = frozenset(refused)
    expected = oracle.replay(stored.entries)
    for version, body in public:  # the public table info: a spectator's knowledge at most
        assert not mentions(body, expected[version][None].hidden), body
    everything = orjson.dumps(stored.entries).decode() + "".join(
        orjson.dumps(f).decode() for v in [*viewers, spectator] for p in v.streams
        for f in p.frames if f["type"] != "seated")
    for token in tokens:
        assert token and len(token) >= 32 and token not in everything
    return oracle, expected, [*viewers, spectator], [t for t in tokens if t]


@pytest.mark.parametrize("name,options,seed", [
    pytest.param(name, options, seed, id=f"{name}-{'options' if number else 'default'}-{seed}")
    for name in TWO_SEAT for number, options in enumerate(variants(name))
    for seed in (3 + number, 11 + number)])
async def test_no_frame_shows_a_viewer_what_its_game_hides(
        tmp_path: Path, name: str, options: dict[str, Any], seed: int) -> None:
    """Whole matches of every other game over real WebSockets, with reconnects, second tabs,
    resyncs, chat, refused and mangled intents and HTTP reads on the way: every frame every
    seat and the spectator got is what the engine says it may see at that version."""
    async for live in live_server(tmp_path, real_store=True, reconnect_grace_seconds=30.0):
        lines = Lines()
        logging.getLogger().addHandler(lines)
        try:
            oracle, expected, viewers, tokens = await asyncio.wait_for(
                play_other_match(live, name, options, seed), 90)
        finally:
            logging.getLogger().removeHandler(lines)
        checked = sum(check_frames(v.seat, [p.frames for p in v.streams], expected,
                                   oracle.vouched) for v in viewers)
        log_text = "\n".join(lines.lines)
        assert not [t for t in tokens if t in log_text], "a seat token was logged"
        print(f"\n{name}: {checked} frames checked; {oracle.agreed} of {oracle.compared} "
              f"worlds indistinguishable, their events equal; {oracle.refusals_checked} "
              f"refusals alike in other worlds")
        assert checked > 60
        assert oracle.agreed > 20
        assert oracle.refusals_checked > 0
        assert sum(len(v.streams) for v in viewers) > len(viewers)  # it did reconnect


def leaky_for_seat(self: Event, seat: int | None) -> dict[str, Any]:
    """A table bug to catch: every recipient gets the first private form there is."""
    return next(iter(self.private.values()), self.public)


@pytest.mark.parametrize("name", TWO_SEAT)
def test_the_oracle_finds_an_event_that_leaks(name: str, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    spec = games.get(name)
    rules = spec.check_options(SHORT.get(name, {}))
    entries = playout_entries(spec, rules, 2)
    monkeypatch.setattr(Event, "for_seat", leaky_for_seat)
    with pytest.raises(AssertionError, match="viewer"):
        Oracle(spec, rules, random.Random(1)).replay(entries)


@pytest.mark.parametrize("name", TWO_SEAT)
def test_the_frame_check_finds_a_leak(name: str) -> None:
    """Frames with another seat's view, another seat's event form, or a hidden value in a
    text are caught; the real ones pass."""
    spec = games.get(name)
    rules = spec.check_options(SHORT.get(name, {}))
    entries = playout_entries(spec, rules, 2)[:30]
    expected = Oracle(spec, rules, random.Random(1)).replay(entries)
    # Where seat 1 was given an event form seat 0 was not.
    v, form = next((v, f) for v, per in expected.items() for f in per[1].events
                   if f not in per[0].log)
    honest = {"type": "state", "v": v, "game": expected[v][0].view, "events": [],
              "log": expected[v][0].log}
    assert check_frames(0, [[honest]], expected) == 1
    for bad in ({**honest, "game": expected[v][1].view}, {**honest, "events": [form]},
                {**honest, "log": [*expected[v][0].log, form]}):
        with pytest.raises(AssertionError, match="viewer 0"):
            check_frames(0, [[bad]], expected)
    hidden = [(v, h) for v, per in expected.items() for h in sorted(per[0].hidden)]
    if hidden:  # a game whose hidden values are nowhere public (Bingo's tiles)
        v, value = hidden[len(hidden) // 2]
        error = {"type": "error", "code": "illegal", "v": v, "message": f"{value} is not yours"}
        with pytest.raises(AssertionError, match="shown hidden"):
            check_frames(0, [[error]], expected)
