"""The `dingo` command: argument handling, what serve runs, and a real migrate process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.api.guards import HandshakeRefusals

REPO = Path(__file__).resolve().parents[1]


def test_help_lists_the_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in ("serve", "migrate", "simulate"):
        assert name in out


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main([])
    assert exc.value.code == 2


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[str, Any]]:
    """Replace migrations and uvicorn with recorders, in call order."""
    calls: list[tuple[str, Any]] = []
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.setenv("DINGO_HOST", "127.0.0.9")
    monkeypatch.setenv("DINGO_PORT", "8123")
    monkeypatch.setattr("app.db.migrate.run_migrations", lambda url: calls.append(("migrate", url)))
    monkeypatch.setattr(
        "uvicorn.run", lambda app, **kwargs: calls.append(("uvicorn", (app, kwargs)))
    )
    # The server process's GC settings (freeze, thresholds) must not leak into pytest's.
    monkeypatch.setattr("app.cli._tune_gc", lambda: None)
    return calls


def test_serve_tunes_the_garbage_collector_before_uvicorn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[int, int, int] | str] = []
    monkeypatch.setattr("app.cli.gc.freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr("app.cli.gc.set_threshold", lambda *t: calls.append(t))
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: calls.append("uvicorn"))
    cli._serve("127.0.0.1", 8123, "INFO")
    assert calls == ["freeze", cli.GC_THRESHOLDS, "uvicorn"]


def test_serve_migrates_then_runs_the_factory(
    recorded: list[tuple[str, Any]], tmp_path: Path
) -> None:
    assert cli.main(["serve"]) == 0
    (step1, url), (step2, (target, kwargs)) = recorded
    assert (step1, url) == ("migrate", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    assert (step2, target) == ("uvicorn", "app.main:create_app")
    assert kwargs["factory"] is True
    assert (kwargs["host"], kwargs["port"]) == ("127.0.0.9", 8123)
    assert kwargs["access_log"] is False and kwargs["log_config"] is None
    assert kwargs["ws_per_message_deflate"] is False  # docs/protocol.md: compression off
    # docs/reliability.md, "Request heads": the head is bounded, and a handshake head
    # websockets refuses is answered (tests/hardening/test_hostile_http.py, live).
    assert kwargs["http"] == "h11"
    assert kwargs["h11_max_incomplete_event_size"] == cli.MAX_REQUEST_HEAD_BYTES
    assert kwargs["ws"] is HandshakeRefusals


def test_serve_flags_override_settings(recorded: list[tuple[str, Any]]) -> None:
    cli.main(["serve", "--host", "0.0.0.0", "--port", "9999"])
    _app, kwargs = recorded[-1][1]
    assert (kwargs["host"], kwargs["port"]) == ("0.0.0.0", 9999)


def test_serve_can_skip_migrations(recorded: list[tuple[str, Any]]) -> None:
    cli.main(["serve", "--no-migrate"])
    assert [step for step, _ in recorded] == ["uvicorn"]


def test_simulate_forwards_its_arguments_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    def fake_main(argv: list[str]) -> int:
        seen.append(argv)
        return 3

    fake = types.ModuleType("app.game.simulate")
    fake.main = fake_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "app.game.simulate", fake)
    assert cli.main(["simulate", "--games", "5", "--help"]) == 3
    assert seen == [["--games", "5", "--help"]]


def test_migrate_as_a_process_logs_json(tmp_path: Path) -> None:
    db = tmp_path / "proc.db"
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{db}", "LOG_LEVEL": "INFO"}
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line)["event"] for line in proc.stderr.splitlines()]
    assert "migrations_applied" in events
    assert db.exists()


def test_redis_without_postgresql_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", "sqlite+aiosqlite:///./never-created.db")
    monkeypatch.setenv("REDIS_URL", "redis://:hunter2@127.0.0.1:6379/0")
    assert cli.main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "DATABASE_URL must be PostgreSQL" in err
    assert "hunter2" not in err
