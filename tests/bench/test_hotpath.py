"""bench/hotpath.py measures what it claims: real actions through the real handler."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_hot_path_benchmark_plays_whole_games_and_reports_a_cost() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "hotpath.py"), "--tables", "3",
         "--actions", "400", "--runs", "1"],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    # A game is about 45 actions: 400 over 3 tables cross game ends, so the ready
    # votes and the next deals are on the measured path too.
    head, _, tail = done.stdout.partition(" games), best of 1: ")
    assert head.startswith("3 tables, 400 actions ("), done.stdout
    assert int(head.rpartition("(")[2]) >= 6
    assert tail.split(" us CPU per action")[0].isdigit(), done.stdout
