"""The simulate command: its stable JSON format, its text report, and its arguments."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.game import simulate as simulate_module
from app.game.bots import HeuristicBot, make_bot
from app.game.simulate import main, simulate


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main([*args, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    report: dict[str, Any] = json.loads(out)
    return report


def test_the_json_report_has_the_stable_shape(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--games", "40", "--bots", "heuristic,random,random,random",
                      "--seed", "5")
    assert list(report) == ["games", "games_per_second", "results"]
    assert report["games"] == 40 and isinstance(report["games_per_second"], float)
    assert report["games_per_second"] > 0
    assert [list(r) for r in report["results"]] == [
        ["seat", "bot", "wins", "win_rate", "avg_score"]] * 4
    assert [(r["seat"], r["bot"]) for r in report["results"]] == [
        (0, "heuristic"), (1, "random"), (2, "random"), (3, "random")]
    assert sum(r["wins"] for r in report["results"]) <= 40
    for r in report["results"]:
        assert r["win_rate"] == round(r["wins"] / 40, 4)
        assert isinstance(r["avg_score"], float)


def test_a_run_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--games", "25", "--bots", "random,heuristic,random,heuristic", "--seed", "9")
    first, second = run_json(capsys, *args), run_json(capsys, *args)
    assert first["results"] == second["results"]
    other = run_json(capsys, "--games", "25", "--bots", "random,heuristic,random,heuristic",
                     "--seed", "10")
    assert other["results"] != first["results"]


def test_four_random_bots_share_the_wins() -> None:
    report = simulate(400, ["random"] * 4, seed=1)
    assert all(60 < r.wins < 140 for r in report.results)
    assert report.draws == report.games - sum(r.wins for r in report.results)


def test_the_text_report_names_each_seat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "10", "--seed", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["seat", "bot", "wins", "win", "rate", "avg", "score"]
    assert [line.split()[:2] for line in lines[1:5]] == [[str(s), "random"] for s in range(4)]
    assert lines[5].startswith("10 games, ") and lines[5].endswith(" games/s")


@pytest.mark.parametrize("args", [
    ["--games", "0"], ["--games", "ten"], ["--bots", "random,random,random"],
    ["--bots", "random,random,random,genius"], ["--seed", "x"],
])
def test_bad_arguments_exit_with_usage(args: list[str],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(args)
    assert caught.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_the_deal_passes_left_and_bots_get_each_game_start(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []

    class Recorder(HeuristicBot):
        def observe(self, event: dict[str, Any]) -> None:
            if event["type"] == "game_start":
                seen.append(event)
            super().observe(event)

    def make(kind: str, seed: int | None = None) -> Any:
        return Recorder(seed) if kind == "heuristic" else make_bot(kind, seed)

    monkeypatch.setattr(simulate_module, "make_bot", make)
    simulate(6, ["heuristic", "random", "random", "random"], seed=3)
    assert [e["number"] for e in seen] == [1, 2, 3, 4, 5, 6]
    first = seen[0]["dealer"]
    assert [e["dealer"] for e in seen] == [(first + i) % 4 for i in range(6)]


def test_the_hard_bots_budget_can_count_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``--hard-cpu-clock`` the hard bot reads ``time.process_time``: here a fake one
    that moves a second each reading, so every decision reports a thousand ms or more."""
    ticks = iter(range(10**9))
    monkeypatch.setattr(simulate_module.time, "process_time", lambda: float(next(ticks)))
    timed = simulate(1, ["hard", "heuristic", "heuristic", "heuristic"], seed=3,
                     hard_budget_ms=5, hard_cpu_clock=True).hard_summary()
    assert timed["mean_ms_per_decision"] >= 1000  # type: ignore[operator]
    walled = simulate(1, ["hard", "heuristic", "heuristic", "heuristic"], seed=3,
                      hard_budget_ms=5).hard_summary()
    assert walled["mean_ms_per_decision"] < 1000  # type: ignore[operator]
