"""Building a program of a compiled language once, in the sandbox, and what its tests run.

``prepare`` turns ``(language, source)`` into a *job* for the native runner (the zygote's
``native`` module): the files a test's run starts with (the binary, Java's classes, or an
interpreted program's source) and its argv. For a compiled language the build runs first,
as a test of its own on the same worker: the compiler is exec'd in the sandbox (namespaces,
seccomp, no network, the toolchain read-only, the sandbox uid) under limits of its own
(:class:`BuildOptions`), and only its outputs (``Language.outputs``) come back. A build that
fails is ``compile_error`` (the compiler's stderr tail, escaped); one past its limits is
``compile_timeout``; a toolchain that is not installed is ``inconclusive``
(``language_unavailable: ...``), never a wrong answer.

Builds are cached on disk (:class:`BuildCache`), keyed by everything that decides the
result: language, toolchain version, the build's argv, the source's hash and the build's
memory and output limits. A program is built once and run on all its tests and repeats,
across requests and workers.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from execrl.errors import ExecutionError
from execrl.sandbox.languages import Language, probe
from execrl.sandbox.limits import Limits, wall_limit_for
from execrl.sandbox.native import (
    TESTLIB_DIR,
    build_argv,
    default_cache_dir,
    pack_job,
    pch_root,
    run_argv,
)

if TYPE_CHECKING:
    from execrl.sandbox.forkserver import ForkServer

BuildStatus = Literal["ok", "compile_error", "compile_timeout", "language_unavailable"]


class BuildOptions(BaseModel):
    """How a program of a compiled language is built (ignored for an interpreted one, except
    ``profile`` and ``flags``, which also fill its run command)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    profile: Literal["judge", "sandboxfusion"] = "judge"
    """``judge`` (Codeforces/ICPC flags: ``g++ -O2 -std=gnu++17 -DONLINE_JUDGE``) or
    ``sandboxfusion`` (SandboxFusion's exact commands); docs/languages.md lists both."""
    flags: tuple[str, ...] = ()
    """More flags, after the profile's (the compiler's; an interpreter's for an interpreted
    language)."""
    compile_cpu_s: float = Field(default=30.0, gt=0, le=600)
    """CPU seconds the build may use, all its processes together."""
    compile_wall_s: float | None = Field(default=None, gt=0, le=1800)
    """Wall-clock seconds; None: ``max(3 × compile_cpu_s, compile_cpu_s + 2 s)`` (90 s)."""
    compile_memory_mb: int = Field(default=2048, gt=0)
    """Memory of the build (cc1plus on a large template program needs ~1 GiB)."""
    compile_output_mb: int = Field(default=64, gt=0, le=1024)
    """The largest file the build may write, and the most its outputs may hold together."""

    def limits(self, processes: int) -> Limits:
        """The build's limits as a test's."""
        wall = self.compile_wall_s or wall_limit_for(self.compile_cpu_s)
        output = self.compile_output_mb * 1024 * 1024
        return Limits(
            cpu_time_s=self.compile_cpu_s,
            wall_time_s=wall,
            memory_mb=self.compile_memory_mb,
            max_processes=max(64, processes),
            max_file_bytes=output,
            max_output_bytes=1024 * 1024,
            max_open_files=256,
        )


class BuildInfo(BaseModel):
    """What building a program did: in every record of a compiled language."""

    model_config = ConfigDict(frozen=True)

    status: BuildStatus
    language: str
    profile: str = "judge"
    command: list[str] = Field(default_factory=list)
    """The build's argv (empty for an interpreted language)."""
    toolchain: str | None = None
    """The toolchain's version line."""
    cached: bool = False
    """Served from the build cache (no compiler ran)."""
    seconds: float = 0.0
    """Wall-clock seconds of the build (0 for a cache hit)."""
    cpu_s: float = 0.0
    detail: str = ""
    """The compiler's stderr tail (warnings for a build that succeeded), or why it failed."""
    artifact_sha256: str = ""


@dataclass(frozen=True)
class Prepared:
    """A program ready to run: ``job`` for the native runner, or None when the build failed
    (``info.status`` says how; every test gets that verdict)."""

    job: bytes | None
    info: BuildInfo


DEFAULT_CACHE_BYTES = 1 << 30


class BuildCache:
    """Built programs on disk, one file per key (content-addressed), least recently used
    evicted past ``max_bytes``. Writes are atomic (a temporary file renamed into place), so
    two workers building the same source at once both succeed and readers never see half a
    file; a hit touches the file's mtime (the LRU order)."""

    def __init__(self, folder: Path | None = None, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.folder = Path(folder) if folder is not None else default_cache_dir()
        self.max_bytes = max_bytes
        self.hits = self.misses = 0

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.build"

    def get(self, key: str) -> tuple[dict, dict[str, bytes]] | None:
        path = self.path(key)
        try:
            data = path.read_bytes()
            os.utime(path)
        except OSError:
            self.misses += 1
            return None
        try:
            meta, files = _unpack(data)
        except (ValueError, KeyError):
            self.misses += 1
            return None
        self.hits += 1
        return meta, files

    def put(self, key: str, meta: dict, files: dict[str, bytes]) -> None:
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(_pack(meta, files))
            os.replace(temporary, path)
        except OSError:  # a full or read-only disk: the build is simply not cached
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(temporary)
            return
        self.evict()

    def evict(self) -> None:
        """Remove the least recently used builds until the cache holds ``max_bytes``."""
        entries = []
        with contextlib.suppress(OSError):
            for path in self.folder.glob("*/*.build"):
                with contextlib.suppress(OSError):
                    info = path.stat()
                    entries.append((info.st_mtime, info.st_size, path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size


def _pack(meta: dict, files: dict[str, bytes]) -> bytes:
    header = dict(meta, files=[[name, len(data)] for name, data in files.items()])
    return json.dumps(header).encode() + b"\n" + b"".join(files.values())


def _unpack(data: bytes) -> tuple[dict, dict[str, bytes]]:
    end = data.index(b"\n")
    meta = json.loads(data[:end])
    files, offset = {}, end + 1
    for name, size in meta.pop("files"):
        files[name] = data[offset : offset + size]
        if len(files[name]) != size:
            raise ValueError("truncated build")
        offset += size
    return meta, files


_SHARED_CACHE: dict[str, BuildCache] = {}


def shared_cache() -> BuildCache:
    """One cache per folder in this process."""
    folder = str(default_cache_dir())
    return _SHARED_CACHE.setdefault(folder, BuildCache(Path(folder)))


def prepare(
    server: ForkServer,
    lang: Language,
    source: str,
    options: BuildOptions,
    *,
    memory_mb: int,
    files: dict[str, bytes] | None = None,
    cache: BuildCache | None = None,
) -> Prepared:
    """``source`` in ``lang`` as a job for the native runner, built first on ``server`` if
    ``lang`` is compiled (or taken from the cache). ``files`` are placed beside it."""
    toolchain = probe(lang)
    if not toolchain.installed:
        detail = f"language_unavailable: {lang.name}: {toolchain.why_not}"
        return Prepared(
            None, BuildInfo(status="language_unavailable", language=lang.name, detail=detail)
        )
    source_file = lang.source_file_for(source)
    data = source.encode("utf-8", "surrogateescape")
    extra = dict(files or {})
    if not lang.compiled:
        argv = run_argv(lang, options.profile, options.flags, memory_mb, source_file)
        job = pack_job(argv, {**extra, source_file: data})
        info = BuildInfo(
            status="ok", language=lang.name, profile=options.profile, toolchain=toolchain.version
        )
        return Prepared(job, info)
    built = build(server, lang, data, source_file, options, toolchain.version, cache)
    if built.info.status != "ok" or built.outputs is None:
        return Prepared(None, built.info)
    argv = run_argv(lang, options.profile, (), memory_mb, source_file, lang.main_class_for(source))
    binary = Path(source_file).stem
    job = pack_job(argv, {**extra, **built.outputs}, executable=[binary])
    return Prepared(job, built.info)


@dataclass(frozen=True)
class Built:
    info: BuildInfo
    outputs: dict[str, bytes] | None


def build(
    server: ForkServer,
    lang: Language,
    data: bytes,
    source_file: str,
    options: BuildOptions,
    version: str | None,
    cache: BuildCache | None = None,
) -> Built:
    """Build ``data`` (the source, in ``source_file``) on ``server``, or take it from the
    cache."""
    cache = cache if cache is not None else shared_cache()
    argv = list(build_argv(lang, options.profile, options.flags, source_file))
    argv += extra_build_flags(lang, options.profile)
    limits = options.limits(lang.processes)
    key = hashlib.sha256(
        json.dumps(
            [
                lang.name,
                version,
                argv,
                hashlib.sha256(data).hexdigest(),
                limits.memory_mb,
                limits.max_file_bytes,
            ]
        ).encode()
    ).hexdigest()
    common = {
        "language": lang.name,
        "profile": options.profile,
        "command": argv,
        "toolchain": version,
    }
    hit = cache.get(key)
    if hit is not None:
        meta, outputs = hit
        info = BuildInfo(**{**meta, **common, "cached": True, "seconds": 0.0, "cpu_s": 0.0})
        return Built(info, outputs if info.status == "ok" else None)
    job = pack_job(argv, {source_file: data})
    spec = {
        "id": "build",
        "kind": "stdio",
        "runner": "native",
        "fetch": [o.format(binary=Path(source_file).stem) for o in lang.outputs],
        "fetch_max_bytes": limits.max_file_bytes,
    }
    start = time.perf_counter()
    try:
        raw = server.run(job, spec, b"", limits, address_space=lang.build_address_space)
    except ExecutionError as exc:  # (SandboxCrashed)
        detail = f"the build's sandbox failed: {exc}"
        return Built(BuildInfo(status="language_unavailable", detail=detail, **common), None)
    seconds = time.perf_counter() - start
    run = raw.runs[0] if raw.runs else {}
    stderr = _tail(raw.stderr.decode("utf-8", "replace") + raw.stdout.decode("utf-8", "replace"))
    status: BuildStatus = "ok"
    if run.get("setup_failed"):
        return Built(
            BuildInfo(
                status="language_unavailable",
                detail=f"the build could not start: {run['setup_failed']}",
                **common,
            ),
            None,
        )
    if _past_time_limit(run, limits):
        status, stderr = (
            "compile_timeout",
            f"the build ran past its limit ({run.get('limit_hit') or 'cpu'}); {stderr}",
        )
    elif run.get("outcome") != "exited" or run.get("exit_code") != 0 or run.get("limit_hit"):
        status = "compile_error"
        if not stderr:
            stderr = _why(run)
    elif not raw.fetched or any(size < 0 for size in raw.fetched_sizes.values()):
        status, stderr = (
            "compile_error",
            "the build left no program (or one larger than compile_output_mb)",
        )
    outputs = raw.fetched if status == "ok" else None
    digest = hashlib.sha256(b"".join(outputs.values())).hexdigest() if outputs else ""
    info = BuildInfo(
        status=status,
        seconds=round(seconds, 4),
        cpu_s=round(float(run.get("cpu_s", 0.0)), 4),
        detail=stderr,
        artifact_sha256=digest,
        **common,
    )
    if status != "compile_timeout":  # (a timeout may be the load's: build it again next time)
        cache.put(
            key,
            info.model_dump(exclude=set(common) | {"cached", "seconds", "cpu_s"}),
            outputs or {},
        )
    return Built(info, outputs)


def _past_time_limit(run: dict, limits: Limits) -> bool:
    """Stopped by its time limits: the supervisor's (wall, or CPU over the whole tree), or the
    kernel's RLIMIT_CPU on one of its processes (cc1plus killed under the driver: its CPU,
    counted once reaped, is at the limit)."""
    if run.get("outcome") == "timeout" or run.get("limit_hit") in ("cpu", "wall"):
        return True
    return run.get("signal") == signal.SIGXCPU or float(run.get("cpu_s", 0)) >= limits.cpu_time_s


def _why(run: dict) -> str:
    if run.get("signal"):
        return f"the compiler was killed by signal {run['signal']}"
    if run.get("limit_hit"):
        return f"the build hit its {run['limit_hit']} limit"
    return f"the compiler exited with code {run.get('exit_code')}"


def _tail(text: str, limit: int = 2000) -> str:
    """The last ``limit`` characters, control characters escaped (a compiler error quotes
    the program's own text)."""
    text = text.strip()
    if len(text) > limit:
        text = "..." + text[-limit:]
    return "".join(c if c in "\n\t" or c.isprintable() else f"\\x{ord(c):02x}" for c in text)


# -- the judge profile's extras: testlib.h and a precompiled bits/stdc++.h ---------------------
def extra_build_flags(lang: Language, profile: str) -> list[str]:
    """Include folders a C or C++ build gets: execrl's ``testlib.h``, and under the judge
    profile a precompiled ``bits/stdc++.h`` (used only when the flags match, so only for
    the profile's own)."""
    if lang.name not in ("c", "cpp"):
        return []
    flags = []
    if lang.name == "cpp":
        pch = precompiled_header(lang, profile)
        if pch is not None:
            flags += ["-I", str(pch)]
    if TESTLIB_DIR.is_dir():
        flags += ["-I", str(TESTLIB_DIR)]
    return flags


_PCH_LOCK = threading.Lock()


def precompiled_header(lang: Language, profile: str) -> Path | None:
    """The folder holding ``bits/stdc++.h.gch`` built with ``profile``'s flags (built once,
    on the host: the header is the compiler's own, trusted), or None when it cannot be."""
    if profile != "judge":
        return None
    toolchain = probe(lang)
    flags = list(lang.profile(profile).flags)
    key = hashlib.sha256(json.dumps([toolchain.version, flags]).encode()).hexdigest()[:16]
    folder = pch_root() / key
    target = folder / "bits" / "stdc++.h.gch"
    if target.is_file():
        with contextlib.suppress(OSError):
            if target.stat().st_mode & 0o004 == 0:  # the sandbox's uid reads it
                target.chmod(0o644)
        return folder
    header = _stdcxx_header()
    if header is None:
        return None
    with _PCH_LOCK:
        if target.is_file():
            return folder
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".gch")
            os.close(fd)
            done = subprocess.run(
                ["g++", *flags, "-x", "c++-header", str(header), "-o", temporary],
                capture_output=True,
                timeout=300,
            )
            if done.returncode != 0:
                os.unlink(temporary)
                return None
            os.chmod(temporary, 0o644)  # (mkstemp's 0600: the sandbox's uid must read it)
            os.replace(temporary, target)
        except (OSError, subprocess.TimeoutExpired):
            return None
    return folder


def _stdcxx_header() -> Path | None:
    try:
        done = subprocess.run(
            ["g++", "-print-file-name=include"], capture_output=True, text=True, timeout=60
        )
        # bits/stdc++.h lives in the target's C++ include folder, e.g.
        # /usr/include/x86_64-linux-gnu/c++/12/bits/stdc++.h
        version = subprocess.run(
            ["g++", "-dumpversion"], capture_output=True, text=True, timeout=60
        ).stdout.strip()
        machine = subprocess.run(
            ["g++", "-dumpmachine"], capture_output=True, text=True, timeout=60
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    del done
    for candidate in (
        Path(f"/usr/include/{machine}/c++/{version}/bits/stdc++.h"),
        Path(f"/usr/include/c++/{version}/bits/stdc++.h"),
    ):
        if candidate.is_file():
            return candidate
    return None
