"""Choosing a backend at the edge: one spec string names where programs run.

``open_executor(spec)`` turns the value of a CLI ``--executor`` flag or a config's
``executor`` field into an :class:`~execrl.sandbox.protocol.Executor`::

    None, "" or "local"            LocalExecutor: a sandbox pool on this machine
    "http://a:8000,http://b:8000"  RemoteExecutor over those `execrl serve` servers
    "ray"                          RayExecutor on the Ray cluster ray.init() finds
                                   ($RAY_ADDRESS, a cluster started here, or a new local one)
    "ray:auto", "ray:HOST:PORT"    RayExecutor on that cluster (its GCS address)
    "ray://HOST:PORT"              RayExecutor through the Ray client

Library code never reads the environment to pick a backend (a config is read at the edge):
``open_executor(None)`` is always local. The CLI reads :data:`EXECUTOR_ENV` as the default of
``--executor`` (``execrl.cli._common.add_executor_argument``), so a job script can point every
command at a cluster once.

The remote and Ray backends import their optional extras (``execrl[serve]``,
``execrl[ray]``) only when they are chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from execrl.errors import UsageError

if TYPE_CHECKING:
    from execrl.sandbox.isolation import SandboxConfig
    from execrl.sandbox.protocol import Executor

EXECUTOR_ENV = "EXECRL_EXECUTOR"
"""The environment variable the CLI reads as the default of ``--executor``."""

ACCEPTED_FORMS = (
    "'local', one or more execrl serve URLs separated by commas (http://host:port,...), "
    "'ray', 'ray:auto', 'ray:HOST:PORT' or 'ray://HOST:PORT'"
)
"""What a spec may be, for error messages and ``--help``."""

Kind = Literal["local", "remote", "ray"]


@dataclass(frozen=True)
class ExecutorSpec:
    """A parsed executor spec: which backend, and where it is."""

    kind: Kind
    urls: tuple[str, ...] = ()
    """The servers of a remote executor, in the order given."""
    address: str | None = None
    """The Ray cluster's address (None: let ``ray.init`` find or start one)."""

    @property
    def is_local(self) -> bool:
        """Whether the programs run in sandboxes this process starts."""
        return self.kind == "local"


def parse_executor_spec(spec: str | None) -> ExecutorSpec:
    """The backend ``spec`` names, checked without starting or contacting anything; a
    UsageError naming the accepted forms otherwise."""
    text = (spec or "").strip()
    if text in ("", "local"):
        return ExecutorSpec("local")
    if text == "ray" or text.startswith("ray:"):
        return ExecutorSpec("ray", address=_ray_address(text))
    return ExecutorSpec("remote", urls=tuple(_server_url(part, text) for part in text.split(",")))


def _ray_address(text: str) -> str | None:
    """``ray`` → None; ``ray://h:p`` as given (the Ray client); ``ray:ADDR`` → ``ADDR``."""
    if text == "ray":
        return None
    if text.startswith("ray://"):
        _require(bool(urlsplit(text).netloc), text, "a ray:// address needs HOST:PORT")
        return text
    address = text.removeprefix("ray:")
    _require(bool(address), text, "'ray:' needs an address after it")
    return address


def _server_url(part: str, text: str) -> str:
    """One server of the comma-separated list ``text``: an http(s) URL with a host."""
    url = part.strip()
    parts = urlsplit(url)
    ok = parts.scheme in ("http", "https") and bool(parts.netloc)
    _require(ok, text, f"{url!r} is not an http(s)://HOST:PORT URL" if "," in text else "")
    return url.rstrip("/")


def _require(ok: bool, value: str, why: str) -> None:
    if not ok:
        reason = f"{why}; " if why else ""
        raise UsageError(f"executor {value!r}: {reason}expected {ACCEPTED_FORMS}")


def open_executor(
    spec: str | ExecutorSpec | None = None,
    *,
    workers: int | None = None,
    config: SandboxConfig | None = None,
    reserve_host_core: bool = False,
    fallback_timeout_s: float | None = None,
) -> Executor:
    """The executor ``spec`` names (module docstring), opened; close it (or use ``with``).

    ``workers`` and ``config`` (the sandbox's settings, e.g. extra site paths) apply to
    sandboxes this process starts: the local pool, or each Ray node's pool (``workers`` per
    node). A server runs as many workers, with the sandbox settings, it was started with, so
    giving either with a URL is a UsageError rather than a setting silently ignored.
    ``reserve_host_core`` keeps the calling process off the local pool's cores (timed runs);
    it has nothing to reserve for the other backends. ``fallback_timeout_s`` bounds a
    remote executor's spec §6 fallback (``RemoteExecutor``; None: its default).
    """
    parsed = spec if isinstance(spec, ExecutorSpec) else parse_executor_spec(spec)
    if parsed.kind == "remote":
        return _open_remote(parsed, workers, config, fallback_timeout_s)
    if parsed.kind == "ray":
        return _open_ray(parsed, workers, config)
    from execrl.sandbox.pool import LocalExecutor

    return LocalExecutor(workers=workers, config=config, reserve_host_core=reserve_host_core)


def _open_remote(
    spec: ExecutorSpec,
    workers: int | None,
    config: SandboxConfig | None,
    fallback_timeout_s: float | None = None,
) -> Executor:
    shown = ",".join(spec.urls)
    if workers is not None:
        raise UsageError(
            f"executor {shown}: a server runs the workers it was started with "
            f"(got workers={workers}); set them with `execrl serve --workers`"
        )
    if config is not None:
        raise UsageError(
            f"executor {shown}: a server uses the sandbox settings (site paths, ...) it was "
            "started with; set them on the server instead"
        )
    try:
        from execrl.service.remote import RemoteExecutor
    except ImportError as exc:
        raise UsageError(_missing_extra("a remote executor", "serve", exc)) from None
    if fallback_timeout_s is None:
        return RemoteExecutor(list(spec.urls))
    return RemoteExecutor(list(spec.urls), fallback_timeout_s=fallback_timeout_s)


def _open_ray(spec: ExecutorSpec, workers: int | None, config: SandboxConfig | None) -> Executor:
    try:
        from execrl.service.ray import RayExecutor
    except ImportError as exc:
        raise UsageError(_missing_extra("the Ray executor", "ray", exc)) from None
    return RayExecutor(spec.address, workers_per_node=workers, config=config)


def _missing_extra(what: str, extra: str, exc: ImportError) -> str:
    missing = f" ({exc.name} is missing)" if exc.name else ""
    return (
        f"{what} needs optional packages{missing}; "
        f"install them with `pip install 'execrl[{extra}]'`"
    )
