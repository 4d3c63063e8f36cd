"""The `dingo` command: serve, migrate, simulate."""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import signal
import sys
from collections.abc import Sequence

from app.config import get_settings
from app.observability import configure_logging, log_event

log = logging.getLogger("app.cli")

#: Garbage-collector thresholds of the server process (``gc.set_threshold``).
#: What stops every table is the time a collection takes, which grows with the number
#: of live objects in the generations it scans. A busy server keeps replacing objects
#: that live for seconds (each table's last views, each socket's pending receive), and
#: CPython counts a young collection due when allocations *minus deallocations* pass
#: the first threshold: the views built now and the old ones freed cancel out, so the
#: young generation holds far more objects than the threshold when it is collected
#: (2-5 ms each, and 15-35 ms for the middle ones, at 1,000 busy tables with 700).
#: A first threshold of 100 collects it about seven times as often, each time a
#: seventh as much: the pauses shrink, and objects that die within a few milliseconds
#: are never scanned at all. Middle collections every 5 young ones; a full collection
#: (~0.5 s over the ~700,000 live objects) waits for 16,000 middle ones (minutes apart
#: under load, as before). The server's short-lived objects are freed by reference
#: counting; the cyclic garbage it makes (uvicorn's HTTP protocol objects left behind
#: by each WebSocket upgrade) dies young and is collected by the young and middle
#: generations. docs/benchmarks.md, "Garbage-collector pauses", has the p99 figures
#: (1,000 tables paced: 23-32 ms with (700, 5, 2000), 7.4-8.2 ms with these).
GC_THRESHOLDS = (100, 5, 16000)
#: Largest request head (request line and every header, cookies included) the server
#: reads; a bigger one is answered 400 and the connection closed. uvicorn bounds the
#: head only with its h11 parser (``h11_max_incomplete_event_size``): httptools (its
#: default when installed) has no size or count limit, so an 8 MiB header or a 1 MiB
#: cookie was read whole. h11 costs a little more per HTTP request; WebSocket frames,
#: after the handshake, never go through it. docs/reliability.md, "Request heads".
MAX_REQUEST_HEAD_BYTES = 16 * 1024


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dingo", description="Dingo Online server tools.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = sub.add_parser("serve", help="apply migrations, then run the web server")
    serve.add_argument("--host", help="bind address (default: DINGO_HOST)")
    serve.add_argument("--port", type=int, help="port (default: DINGO_PORT)")
    serve.add_argument(
        "--no-migrate",
        action="store_true",
        help="skip the migrations (they were just applied, or another process owns them)",
    )
    sub.add_parser("migrate", help="upgrade the database (DATABASE_URL) to the latest schema")
    sub.add_parser(
        "simulate",
        help="play bot games offline; arguments go to app.game.simulate",
        add_help=False,
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `dingo` console script; returns the process exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    # simulate owns its whole argument list, including options like --help.
    if args_list[:1] == ["simulate"]:
        return _simulate(args_list[1:])
    args = _parser().parse_args(args_list)
    try:
        settings = get_settings()
    except ValueError as exc:  # pydantic's ValidationError: say what is wrong, no traceback
        print(f"dingo: bad settings: {exc}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    if args.command == "migrate":
        _migrate(settings.database_url)
        return 0
    if args.command == "serve":
        if not args.no_migrate:
            _migrate(settings.database_url)
        _serve(args.host or settings.host, args.port or settings.port, settings.log_level)
        return 0
    raise AssertionError(f"unhandled command {args.command!r}")  # argparse rejects others


def _migrate(database_url: str) -> None:
    from app.db.migrate import run_migrations

    run_migrations(database_url)
    log_event(log, "migrations_applied")


def _tune_gc() -> None:
    """Freeze what the server imports and make old-generation collections rare.

    Import-time objects (modules, classes, schemas: ~120,000) live as long as the
    process, so ``gc.freeze`` keeps them out of every later collection.
    """
    importlib.import_module("app.main")
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _serve(host: str, port: int, log_level: str) -> None:
    import uvicorn

    from app.api.guards import HandshakeRefusals

    _tune_gc()
    log_event(log, "serving", url=f"http://{host}:{port}")
    # uvicorn shuts down gracefully on SIGTERM (sockets 1012, then the store closes) and
    # then re-raises the signal through the handler it found, which would end the process
    # "killed by SIGTERM" (status -15/143). A clean shutdown exits with status 0 instead.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        log_level=log_level.lower(),
        log_config=None,  # keep our JSON logging
        access_log=False,  # access lines would carry seat tokens in query strings
        # docs/protocol.md: no per-message compression. With it, every browser socket
        # would cost two zlib contexts (~50-300 KB) and CPU for each frame.
        ws_per_message_deflate=False,
        http="h11",
        h11_max_incomplete_event_size=MAX_REQUEST_HEAD_BYTES,
        ws=HandshakeRefusals,
    )


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _simulate(argv: list[str]) -> int:
    # Imported lazily: the serve and migrate paths need nothing from the engine.
    simulate = importlib.import_module("app.game.simulate")
    result = simulate.main(argv)
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
