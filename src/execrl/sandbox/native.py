"""The host's side of programs that run as commands (``execrl.sandbox.zygote.native``): packing
a job (argv, environment, files), the absolute program paths a sandbox can execute, and the
host folders outside ``/usr`` that toolchains need made visible (read-only) in the sandbox."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from execrl.errors import UsageError
from execrl.sandbox.languages import LANGUAGES, Language
from execrl.sandbox.testlib import TESTLIB_DIR
from execrl.sandbox.zygote.native import MAGIC, safe_name
from execrl.sandbox.zygote.scratch import PATH as SCRATCH

ENVIRONMENT = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": SCRATCH,
    "TMPDIR": SCRATCH,
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "GOCACHE": SCRATCH + "/.gocache",
    "GOPATH": SCRATCH + "/.go",
    "GO111MODULE": "off",
    "GOTOOLCHAIN": "local",
    "GOFLAGS": "-buildvcs=false",
}
"""What an exec'd program (or compiler) finds in its environment: nothing of the host's."""


def default_cache_dir() -> Path:
    """``$EXECRL_BUILD_CACHE``, else ``$XDG_CACHE_HOME/execrl/builds`` (``~/.cache/...``)."""
    chosen = os.environ.get("EXECRL_BUILD_CACHE")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "execrl" / "builds"


def pch_root() -> Path:
    """Where precompiled headers are built (``execrl.sandbox.builds.precompiled_header``)."""
    return default_cache_dir() / "pch"


MAX_FILES_BYTES = 64 * 1024 * 1024
"""The most bytes of files one job may place (SandboxFusion's ``files`` included)."""


def pack_job(
    argv: Sequence[str], files: Mapping[str, bytes], executable: Sequence[str] = ()
) -> bytes:
    """A job for the native runner: ``argv`` run in scratch after ``files`` are written there
    (``executable`` ones with mode 0755). A file name must be a relative path without ``..``."""
    listed, total = [], 0
    for name, data in files.items():
        if not safe_name(name):
            raise UsageError(
                f"file name {name!r} must be a relative path inside the working directory "
                "(no leading '/', no '..')"
            )
        total += len(data)
        listed.append([name, len(data), 0o755 if name in executable else 0o644])
    if total > MAX_FILES_BYTES:
        raise UsageError(f"the program's files hold {total} bytes; at most {MAX_FILES_BYTES}")
    header = json.dumps({"argv": list(argv), "env": ENVIRONMENT, "files": listed})
    return b"".join([MAGIC, header.encode(), b"\n", *files.values()])


def executable(argv: Sequence[str]) -> tuple[str, ...]:
    """``argv`` with its program as an absolute, real path (``./main`` stays: it is in scratch).
    The sandbox has no PATH search of the host's and only ``/usr`` and the folders of
    :func:`toolchain_folders`; a real path avoids links it cannot follow."""
    program = argv[0]
    if program.startswith("./"):
        return tuple(argv)
    if program == "rustc":
        sysroot = _rust_sysroot()
        if sysroot is not None:
            return (str(Path(sysroot) / "bin" / "rustc"), *argv[1:])
    found = shutil.which(program) if not os.path.isabs(program) else program
    return (os.path.realpath(found) if found else program, *argv[1:])


@functools.cache
def _rust_sysroot() -> str | None:
    """rustup's proxy (``~/.cargo/bin/rustc``) needs ``$RUSTUP_HOME``; the toolchain's own
    rustc does not: its sysroot, from ``rustc --print sysroot``."""
    if shutil.which("rustc") is None:
        return None
    try:
        done = subprocess.run(
            ["rustc", "--print", "sysroot"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    sysroot = done.stdout.strip()
    return sysroot if done.returncode == 0 and os.path.isdir(sysroot) else None


_VISIBLE = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/alternatives/")


@functools.cache
def toolchain_folders() -> tuple[str, ...]:
    """Host folders outside ``/usr`` that a toolchain lives in (rustup's toolchain, pyenv's
    Python 2, a JDK under /opt), bound read-only into every sandbox so their programs run."""
    folders = []
    sysroot = _rust_sysroot()
    if sysroot is not None:
        folders.append(sysroot)
    for lang in LANGUAGES.values():
        for argv in (lang.compile, lang.run):
            if argv is None or argv[0].startswith("./") or argv[0] == sys.executable:
                continue
            path = executable(argv)[0]
            if os.path.isabs(path) and not path.startswith(_VISIBLE):
                folders.append(str(Path(path).parent.parent))  # (its prefix: bin/..)
    return tuple(dict.fromkeys(f for f in folders if os.path.isdir(f)))


def run_argv(
    lang: Language,
    profile: str,
    flags: Sequence[str],
    memory_mb: int,
    source_file: str,
    binary: str | None = None,
) -> tuple[str, ...]:
    """The run command of ``lang`` as the sandbox executes it (``binary``: what it runs, when
    not the source's stem: a Java main class)."""
    return executable(lang.commands(profile, flags, memory_mb, source_file, binary).run)


def build_argv(
    lang: Language, profile: str, flags: Sequence[str], source_file: str
) -> tuple[str, ...]:
    """The build command of ``lang`` as the sandbox executes it (``lang`` is compiled)."""
    commands = lang.commands(profile, flags, source_file=source_file)
    assert commands.compile is not None
    return executable(commands.compile)


def sandbox_folders() -> tuple[str, ...]:
    """Host folders every sandbox shows read-only for builds and runs: toolchains outside
    /usr, the precompiled headers' folder (made here if missing) and testlib.h's."""
    folders = list(toolchain_folders())
    with contextlib.suppress(OSError):
        pch_root().mkdir(parents=True, exist_ok=True)
        folders.append(str(pch_root()))
    if TESTLIB_DIR.is_dir():
        folders.append(str(TESTLIB_DIR))
    return tuple(folders)
