"""``execrl serve``: the sandbox as an HTTP service (one per CPU node; see docs/service.md)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from execrl.cli._common import EXIT_OK, check_range
from execrl.cli._executor import MAX_JOBS, add_sandbox_arguments, sandbox_config
from execrl.cli._files import writable_file
from execrl.errors import UsageError
from execrl.service.idempotency import DEFAULT_RETENTION_H, MAX_RETENTION_H

TOKEN_ENV = "EXECRL_SERVICE_TOKEN"  # = execrl.service.wire.TOKEN_ENV (wire needs the extra)
MAX_QUEUE_LIMIT = 1_000_000
MAX_BODY_MB = 4096
MAX_GRACE_S = 600


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "serve",
        help="serve the sandbox over HTTP (native and SandboxFusion-compatible API)",
        description="Run execrl's sandbox as an HTTP service: POST /v1/execute streams "
        "records, /run_code and /submit answer SandboxFusion clients, /metrics reports. "
        "SIGTERM drains: in-flight work finishes, then the server exits 0.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    p.add_argument(
        "--port", type=int, default=8080, help="port to bind, 0 for a free one (default: 8080)"
    )
    p.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help=f"sandbox workers, 1 to {MAX_JOBS} (default: one per core, the server's own "
        "event loop on a core of its own)",
    )
    p.add_argument(
        "--token",
        help=f"require TOKEN on every endpoint but /v1/health, as 'Authorization: Bearer "
        "TOKEN', as the password of HTTP Basic (http://execrl:TOKEN@host:port) or as a "
        f"/t/TOKEN/ path prefix (default: ${TOKEN_ENV}; neither: no auth)",
    )
    p.add_argument(
        "--insecure-no-auth",
        action="store_true",
        help="allow a non-loopback --host without a token: anyone who reaches the port can "
        "run programs here (only for a network whose every client is trusted)",
    )
    p.add_argument(
        "--queue-limit",
        type=int,
        metavar="N",
        help="most requests admitted at once (running + waiting); more get 429 with "
        "Retry-After (default: max(256, 32 x workers))",
    )
    p.add_argument(
        "--max-body-mb",
        type=int,
        default=64,
        metavar="MB",
        help="largest request body; bigger ones get 413 (default: %(default)s)",
    )
    p.add_argument(
        "--port-file",
        type=Path,
        metavar="FILE",
        help="write the bound port to FILE once the server listens (useful with --port 0)",
    )
    p.add_argument(
        "--state-dir",
        type=Path,
        metavar="DIR",
        help="keep Idempotency-Keys and their records in DIR/idempotency.sqlite, so a retry "
        "after a restart replays them; one server per DIR (default: "
        "$XDG_STATE_HOME/execrl/serve/HOST-PORT; with --port 0, in memory only)",
    )
    p.add_argument(
        "--idempotency-retention-h",
        type=float,
        default=DEFAULT_RETENTION_H,
        metavar="H",
        help="hours a batch's records are kept for a retry, from its submission "
        f"(above 0, at most {MAX_RETENTION_H:g}; default: %(default)g)",
    )
    p.add_argument(
        "--abandon-grace-s",
        type=float,
        default=2.0,
        metavar="S",
        help="seconds a batch sent with an Idempotency-Key keeps running after its client went "
        "away, waiting for a retry with the same key; a batch without a key stops at once "
        "(0 to 600; default: %(default)g)",
    )
    p.add_argument(
        "--log-level",
        choices=["critical", "error", "warning", "info", "debug"],
        default="warning",
        help="uvicorn's log level (default: %(default)s)",
    )
    p.add_argument(
        "--solvers",
        action="store_true",
        help="make the installed solver packages importable by programs, read-only (for "
        "solver rewards sent here: `execrl solver ... --executor URL`)",
    )
    add_sandbox_arguments(p)
    p.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    check_range("--port", args.port, 0, 65535, "(0: a free port)")
    check_range("--workers", args.workers, 1, MAX_JOBS, "workers")
    check_range("--queue-limit", args.queue_limit, 1, MAX_QUEUE_LIMIT, "requests")
    check_range("--max-body-mb", args.max_body_mb, 1, MAX_BODY_MB, "MB")
    check_range("--abandon-grace-s", args.abandon_grace_s, 0, MAX_GRACE_S, "seconds")
    if args.port_file is not None:  # (probed beside it: a poller must never see it empty)
        partial = args.port_file.with_name(args.port_file.name + ".partial")
        writable_file(args.port_file, "--port-file", probe=partial)
    if not 0 < args.idempotency_retention_h <= MAX_RETENTION_H:
        raise UsageError(
            f"--idempotency-retention-h {args.idempotency_retention_h:g}: expected above 0 "
            f"and at most {MAX_RETENTION_H:g} hours"
        )
    config = sandbox_config(args)
    if args.solvers:
        from execrl.rewards.solver.execution import solver_sandbox_config

        config = solver_sandbox_config(config)
    serve = _serve_function()
    serve(
        host=args.host,
        port=args.port,
        workers=args.workers,
        token=args.token or os.environ.get(TOKEN_ENV) or None,
        queue_limit=args.queue_limit,
        port_file=args.port_file,
        max_body_bytes=args.max_body_mb * 1024 * 1024,
        log_level=args.log_level,
        config=config,
        insecure_no_auth=args.insecure_no_auth,
        abandon_grace_s=args.abandon_grace_s,
        state_dir=args.state_dir,
        idempotency_retention_h=args.idempotency_retention_h,
        routers=_trainer_routers(),
    )
    return EXIT_OK


def _trainer_routers() -> list:
    """The trainers' endpoints served beside execrl's own: OpenRLHF's ``/get_reward``."""
    from execrl.integrations.openrlhf_http import router

    return [router]


def _serve_function():
    """``execrl.service.server.serve``, or a one-line error when the extra is missing."""
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise UsageError(f"execrl serve needs {exc.name}: pip install 'execrl[serve]'") from None
    from execrl.service.server import serve

    return serve
