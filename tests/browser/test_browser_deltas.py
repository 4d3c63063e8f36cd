"""The page keeps its state from deltas (static/js/patch.js): after every delta it is asked
for, and must equal, a fresh full state; a gap makes it resync. For a seat and a spectator.

An init script (test-only) wraps the page's WebSocket: after a delta it sends ``sync``
(one at a time) and, when the full ``state`` answering it arrives, compares it with the
page's own state just before the page takes it in (``S.state`` of table/state.js, the
module the page runs). The answer is built after every message sent before it, so the two
must be equal, except for what differs between two builds of one moment: the events that
led to it, the game log, and the timer's reading of the server's clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .browserkit import create_table, go_to_table, play_match

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

CHECK = """(() => {
  const Native = window.WebSocket;
  const check = window.deltaCheck = {deltas: 0, checked: 0, mismatches: [], outstanding: false,
    gap: "off", pageSyncs: 0, resyncs: 0, dropSyncs: 0, S: null};
  import("/static/js/table/state.js").then((m) => { check.S = m.S; });
  const canon = (v) => Array.isArray(v) ? v.map(canon)
    : v && typeof v === "object"
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v;
  const comparable = (s) => {
    const { events, log, type, ...rest } = s;
    if (rest.timer) { const { server_time, ...timer } = rest.timer; rest.timer = timer; }
    return JSON.stringify(canon(rest));
  };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        const msg = JSON.parse(e.data);
        if (msg.type === "delta") {
          check.deltas += 1;
          if (check.gap === "armed" && !check.outstanding) {
            // Lose this page's last version: the delta no longer follows on.
            check.S.state = { ...check.S.state, v: check.S.state.v - 1 };
            check.gap = "made";
          } else if (check.gap !== "made" && !check.outstanding) {
            check.outstanding = true;
            Native.prototype.send.call(this, JSON.stringify({ type: "sync" }));
          }
        } else if (msg.type === "state" && check.gap === "made") {
          check.resyncs += 1;
          check.gap = "off";
          check.outstanding = false;
        } else if (msg.type === "state" && check.outstanding) {
          check.outstanding = false;
          const mine = comparable(check.S.state), fresh = comparable(msg);
          if (mine === fresh) check.checked += 1;
          else check.mismatches.push([mine, fresh]);
        }
      });
    }
    send(data) {
      if (JSON.parse(data).type === "sync") {
        check.pageSyncs += 1;
        if (check.dropSyncs > 0) {  // lost on the way (as a rate limit drops a frame)
          check.dropSyncs -= 1;
          return;
        }
      }
      super.send(data);
    }
  };
})();"""


def checked_page(open_page: Callable[..., Page]) -> Page:
    page = open_page()
    page.add_init_script(CHECK)
    return page


def report(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        "({deltas: deltaCheck.deltas, checked: deltaCheck.checked, "
        "mismatches: deltaCheck.mismatches.slice(0, 1), pageSyncs: deltaCheck.pageSyncs, "
        "resyncs: deltaCheck.resyncs, v: deltaCheck.S && deltaCheck.S.state.v})")
    return result


def test_a_seat_and_a_spectator_patch_together_the_full_state_and_resync_on_a_gap(
        server: str, open_page: Callable[..., Page]) -> None:
    seat = checked_page(open_page)
    link = create_table(seat, server, "Ann", bots=(1, 2, 3))
    go_to_table(seat)
    watcher = checked_page(open_page)
    watcher.goto(link)
    watcher.wait_for_function("window.deltaCheck && deltaCheck.S && deltaCheck.S.state")
    # A gap in the spectator's versions: the page asks for the full state and carries on.
    watcher.evaluate("deltaCheck.gap = 'armed'")
    seat.click("#start-btn:not([disabled])")
    moves = play_match(seat, random.Random(11))
    assert moves > 0
    for page in (seat, watcher):
        page.wait_for_function("!deltaCheck.outstanding && deltaCheck.gap === 'off'")
    mine, theirs = report(seat), report(watcher)
    for seen in (mine, theirs):
        assert not seen["mismatches"], seen["mismatches"]
        assert seen["checked"] >= 10 and seen["deltas"] >= seen["checked"], seen
    assert mine["pageSyncs"] == mine["resyncs"] == 0
    assert theirs["pageSyncs"] == theirs["resyncs"] == 1
    assert mine["v"] == theirs["v"]


def test_a_full_state_asked_for_and_never_answered_is_asked_again(
        server: str, open_page: Callable[..., Page]) -> None:
    """A player's page sees a gap and asks for the full state; that ``sync`` is lost (a
    server lets a frame over its rate limit pass unanswered). The page asks again and plays
    on; meanwhile no move went out on the state it knew was out of date."""
    seat = checked_page(open_page)
    create_table(seat, server, "Ann", bots=(1, 2, 3))
    go_to_table(seat)
    seat.wait_for_function("window.deltaCheck && deltaCheck.S && deltaCheck.S.state")
    seat.evaluate("deltaCheck.gap = 'armed'; deltaCheck.dropSyncs = 1")
    seat.click("#start-btn:not([disabled])")
    assert play_match(seat, random.Random(12)) > 0
    seat.wait_for_function("!deltaCheck.outstanding && deltaCheck.gap === 'off'")
    seen = report(seat)
    assert not seen["mismatches"], seen["mismatches"]
    assert seen["pageSyncs"] == 2 and seen["resyncs"] == 1, seen
    assert seat.locator(".toast--error").count() == 0
