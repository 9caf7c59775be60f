"""Where a command's programs run: --jobs, --site-path and --executor, checked before anything
starts, and the executor they name, opened (``execrl.service.open``)."""

from __future__ import annotations

import argparse
import os

from pydantic import ValidationError

from execrl.cli._common import check_range
from execrl.errors import UsageError, validation_issues
from execrl.sandbox.isolation import SandboxConfig, current_site_packages
from execrl.sandbox.protocol import Executor
from execrl.service.open import (
    ACCEPTED_FORMS,
    EXECUTOR_ENV,
    ExecutorSpec,
    open_executor,
    parse_executor_spec,
)

MAX_JOBS = 1024
"""The most sandbox workers a command starts (each is a fork server and its sandbox)."""


def add_jobs_argument(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--jobs N: sandbox workers; not given = one per core. Check it with :func:`jobs`."""
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help=f"sandbox workers, 1 to {MAX_JOBS} (default: one per available core)",
    )
    return parser


def jobs(args: argparse.Namespace) -> int | None:
    """The --jobs value checked: 1 to MAX_JOBS, or None for one per core (0 is refused
    rather than silently read as the default)."""
    check_range("--jobs", args.jobs, 1, MAX_JOBS, "workers (leave it out for one per core)")
    return args.jobs


SITE_PATHS_ENV = "EXECRL_SITE_PATHS"
"""Extra site paths for every sandbox the CLI starts, separated by ``os.pathsep`` (``:``)."""
CURRENT_SITE = "@current"
"""The ``--site-path`` value meaning this interpreter's own site-packages."""


def add_sandbox_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Options of the sandboxes a command starts: --site-path (repeatable)."""
    parser.add_argument(
        "--site-path",
        action="append",
        default=[],
        metavar="DIR",
        help="make the packages in DIR importable by programs, read-only (repeatable; "
        f"{CURRENT_SITE} = the site-packages execrl runs from; also ${SITE_PATHS_ENV})",
    )
    return parser


def sandbox_config(args: argparse.Namespace, **fields: object) -> SandboxConfig:
    """The SandboxConfig for a command: ``fields`` plus the site paths of --site-path and
    $EXECRL_SITE_PATHS; a path that is not a directory is a one-line user error."""
    given = [*os.environ.get(SITE_PATHS_ENV, "").split(os.pathsep), *args.site_path]
    paths: list[str] = []
    for path in filter(None, given):
        paths += current_site_packages() if path == CURRENT_SITE else [path]
    try:
        return SandboxConfig(extra_site_paths=tuple(paths), **fields)
    except ValidationError as exc:
        raise UsageError(f"--site-path: {validation_issues(exc)[0].message}") from None


MAX_FALLBACK_TIMEOUT_S = 3600.0  # (an hour: longer is no bound worth the name)


def add_executor_argument(
    parser: argparse.ArgumentParser, *, fallback_timeout: bool = True
) -> argparse.ArgumentParser:
    """--executor SPEC: where the command's programs run (``execrl.service.open``); the
    default comes from $EXECRL_EXECUTOR, else this machine's sandbox pool. ``fallback_timeout``:
    also --fallback-timeout-s (read by :func:`open_executor_from_args` only)."""
    parser.add_argument(
        "--executor",
        metavar="URL|ray|local",
        help=f"where programs run: {ACCEPTED_FORMS} (default: ${EXECUTOR_ENV}, else 'local', "
        "a sandbox pool on this machine); --jobs and --site-path set up local (and Ray "
        "nodes') sandboxes, a server uses its own",
    )
    if fallback_timeout:
        parser.add_argument(
            "--fallback-timeout-s",
            type=float,
            metavar="S",
            help="with server URLs: how long each step of the spec §6 fallback (the retry, "
            "then the run on another server) may take beyond its tests' own limits before "
            "they stay inconclusive (default: 30)",
        )
    return parser


def fallback_timeout_s(args: argparse.Namespace, spec: ExecutorSpec) -> float | None:
    """--fallback-timeout-s checked (None: not given): more than 0 and at most an hour, and
    only with server URLs (the §6 fallback is the remote executor's)."""
    value = getattr(args, "fallback_timeout_s", None)
    if value is None:
        return None
    if not 0 < value <= MAX_FALLBACK_TIMEOUT_S:
        raise UsageError(
            f"--fallback-timeout-s {value:g}: expected more than 0 and at most "
            f"{MAX_FALLBACK_TIMEOUT_S:g} seconds"
        )
    if spec.kind != "remote":
        raise UsageError(
            f"--fallback-timeout-s bounds the fallback between servers; the {spec.kind} "
            "executor has none (give --executor http://HOST:PORT,...)"
        )
    return value


def executor_text(args: argparse.Namespace) -> str | None:
    """The executor spec as given: --executor, else $EXECRL_EXECUTOR, else None."""
    return getattr(args, "executor", None) or os.environ.get(EXECUTOR_ENV) or None


def executor_spec(args: argparse.Namespace) -> ExecutorSpec:
    """The --executor value (or $EXECRL_EXECUTOR) parsed and checked, before anything starts;
    a bad spec is a one-line UsageError naming the accepted forms."""
    try:
        return parse_executor_spec(executor_text(args))
    except UsageError as exc:
        where = "--executor" if getattr(args, "executor", None) else f"${EXECUTOR_ENV}"
        raise UsageError(f"{where}: {exc}") from None


def open_executor_from_args(
    args: argparse.Namespace,
    *,
    workers: int | None = None,
    config: SandboxConfig | None = None,
    reserve_host_core: bool = False,
    default_workers: int | None = None,
    workers_option: str = "--jobs",
) -> Executor:
    """The executor --executor names, opened (close it, or use ``with``). ``workers`` and
    ``config`` are the command's --jobs and sandbox settings, which only the sandboxes this
    command starts can take: with a server URL, a --jobs or --site-path the user gave is a
    UsageError, and $EXECRL_SITE_PATHS (for sandboxes the CLI starts) does not apply.
    ``reserve_host_core`` applies to the local pool (timed commands keep their bookkeeping
    off the timed cores). ``default_workers`` replaces a ``workers`` of None for sandboxes
    this command starts (None: one per core). ``workers_option`` names the option."""
    spec = executor_spec(args)
    fallback = fallback_timeout_s(args, spec)
    if spec.kind == "remote":
        _local_only(spec, workers_option, workers is not None)
        _local_only(spec, "--site-path", bool(getattr(args, "site_path", None)))
        config = None
    else:
        workers = workers or default_workers
    return open_executor(
        spec,
        workers=workers,
        config=config,
        reserve_host_core=reserve_host_core,
        fallback_timeout_s=fallback,
    )


def add_timed_jobs_argument(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--jobs N of a timing command: one worker unless asked, so timed runs do not share the
    machine (per node on Ray; a server runs its own). Open with :func:`open_timed_executor`."""
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help=f"sandbox workers, 1 to {MAX_JOBS} (default: 1, so timed runs do not share the "
        "machine; per node with --executor ray)",
    )
    return parser


def open_timed_executor(args: argparse.Namespace) -> Executor:
    """The executor of a timing command: --jobs workers (default 1) with the calling process
    kept off their cores when they are local; a server's own workers with a URL. (The
    command checks --jobs first, with its other options.)"""
    return open_executor_from_args(
        args, workers=args.jobs, default_workers=1, reserve_host_core=True
    )


def _local_only(spec: ExecutorSpec, option: str, given: bool) -> None:
    """A sandbox setting given with a server URL: refused, since the server has its own."""
    if given:
        raise UsageError(
            f"{option} sets up sandboxes this command starts; the servers of --executor "
            f"{','.join(spec.urls)} use the settings they were started with"
        )
