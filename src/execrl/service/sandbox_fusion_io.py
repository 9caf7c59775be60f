"""What a SandboxFusion request names, in execrl's terms: its language names, its wall-clock
timeouts, and the ``files`` and ``fetch_files`` of ``/run_code`` (base64 content, paths in the
program's working directory).

Paths: a name is relative to the working directory (``data/in.txt``), or under ``/mnt/``,
which in execrl's sandbox is the working directory itself (SandboxFusion's own tests write
``/mnt/b``; its root is a writable copy of the image, execrl's is read-only). Anything else
that leaves the working directory (``../x``, ``/etc/passwd``, an empty part) is refused.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence

from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.languages import LANGUAGES, Language, by_sandboxfusion_name
from execrl.sandbox.limits import Limits
from execrl.sandbox.native import MAX_FILES_BYTES
from execrl.sandbox.zygote.native import safe_name

LANGUAGE_NAMES: tuple[str, ...] = tuple(
    sorted({name for lang in LANGUAGES.values() for name in lang.sandboxfusion})
)
"""SandboxFusion's ``language`` values execrl runs (a toolchain not installed on the server
answers ``SandboxError``, as a SandboxFusion image without it would)."""
CPU_PER_WALL = 2.0
"""The CPU-time limit is this many times the wall-clock limit: SandboxFusion's timeouts are
wall clock, and a CPU limit is only added (it bounds programs whose processes or threads
together compute faster than the clock; the JVM's compiler and collector threads do)."""
MAX_CPU_S = 600.0
"""``Limits.cpu_time_s``' and ``BuildOptions.compile_cpu_s``' upper bound."""
MAX_RUN_TIMEOUT_S = 1800.0
"""``/run_code``'s largest ``run_timeout`` (``Limits.wall_time_s``' upper bound; SandboxFusion
sets none). Harnesses that run every test in one process ask for a lot: tinker-cookbook's code
RL recipe sends ``(timeout + 1) * tests + 5`` seconds, 705 for 100 tests at its default 6 s;
the CPU limit stays at most ``MAX_CPU_S``."""
MOUNT = "/mnt/"
"""Absolute paths under this prefix name the working directory (see the module docstring)."""
MAX_FILES_TOTAL_BYTES = MAX_FILES_BYTES
"""The most bytes ``files`` may hold together, decoded (the native runner's bound)."""


def sandbox_language(name: str) -> Language:
    """The language SandboxFusion calls ``name``; a ValueError naming the supported ones."""
    found = by_sandboxfusion_name(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(
            f"execrl serve runs {', '.join(LANGUAGE_NAMES)} (SandboxFusion's names); got "
            f"{name!r}: send other languages to a SandboxFusion server"
        )
    return found


def run_limits(run_timeout: float, memory_limit_mb: int = -1) -> Limits:
    """SandboxFusion's run limits as execrl's: ``run_timeout`` is the wall-clock limit, as in
    SandboxFusion; the CPU-time limit is ``CPU_PER_WALL`` times it; a positive
    ``memory_limit_MB`` is the memory limit (else execrl's default, 1024 MB)."""
    memory = {"memory_mb": memory_limit_mb} if memory_limit_mb > 0 else {}
    cpu = min(CPU_PER_WALL * run_timeout, MAX_CPU_S)
    return Limits(cpu_time_s=cpu, wall_time_s=run_timeout, **memory)


def build_options(compile_timeout: float) -> BuildOptions:
    """A build as SandboxFusion makes it: its own commands (the ``sandboxfusion`` profile),
    ``compile_timeout`` the wall-clock limit, a CPU limit ``CPU_PER_WALL`` times it."""
    return BuildOptions(
        profile="sandboxfusion",
        compile_wall_s=compile_timeout,
        compile_cpu_s=min(CPU_PER_WALL * compile_timeout, MAX_CPU_S),
    )


def working_path(name: str) -> str:
    """``name`` as a path in the working directory (``./a`` → ``a``, ``/mnt/b`` → ``b``); a
    ValueError for one outside it."""
    parts = (name[len(MOUNT) :] if name.startswith(MOUNT) else name).split("/")
    while len(parts) > 1 and parts[0] == ".":  # ./a is a
        parts.pop(0)
    inside = "/".join(parts)
    if not safe_name(inside):
        raise ValueError(
            f"{name!r} is not a path inside the working directory: use a relative path "
            f"without '..' (or one under {MOUNT})"
        )
    return inside


def decode_files(
    files: Mapping[str, str | None], max_bytes: int = MAX_FILES_TOTAL_BYTES
) -> dict[str, bytes]:
    """``files`` as the bytes to place, by path in the working directory. A null content is
    skipped (as SandboxFusion skips it); a ValueError for a bad path, content that is not
    base64, two names of one file, or more than ``max_bytes`` in all."""
    placed: dict[str, bytes] = {}
    total = 0
    for name, content in files.items():
        if content is None:
            continue
        inside = working_path(name)
        if inside in placed:
            raise ValueError(f"{name!r} names a file given twice (as {inside!r})")
        try:
            data = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"the content of {name!r} is not base64") from None
        total += len(data)
        if total > max_bytes:
            raise ValueError(f"the files hold more than {max_bytes} bytes")
        placed[inside] = data
    return placed


def fetch_paths(names: Sequence[str]) -> dict[str, str]:
    """Each name of ``fetch_files`` → the file it reads in the working directory; a
    ValueError for a path outside it, or one in a folder (only the working directory's own
    files are read back)."""
    paths = {}
    for name in names:
        inside = working_path(name)
        if "/" in inside:
            raise ValueError(
                f"{name!r} is in a folder: execrl reads back the files at the top of the "
                f"working directory (or directly under {MOUNT})"
            )
        paths[name] = inside
    return paths


def encode_fetched(paths: Mapping[str, str], fetched: Mapping[str, bytes]) -> dict[str, str]:
    """The fetched files as SandboxFusion answers them: by the name asked for, base64; a
    file the program did not leave (or one over the size limit) is absent."""
    return {
        name: base64.b64encode(fetched[inside]).decode("ascii")
        for name, inside in paths.items()
        if inside in fetched
    }
