"""A program that is a command: native and JVM programs, interpreters other than the zygote's
own (PyPy, Node.js, Python 2, or CPython run as a fresh ``python3 main.py``), and the compilers
that build them. All run the same way: the files of a *job* are written into the scratch
directory, then the child ``execve``s the job's argv there.

A job is the program payload the host sends (``execrl.sandbox.native.pack_job`` writes it)::

    MAGIC  JSON-header-line  file bytes, concatenated

where the header is ``{"argv": [...], "env": {...}, "files": [[name, size, mode], ...]}``.
Names are relative paths without ``..`` (the host refuses others; this module checks again).

Everything a Python child has, an exec'd program has too: its own process group, fds 0-2
(stdin a memfd, stdout and stderr pipes), scratch as its working directory, the test's
rlimits, the sandbox uid, no privileges (no_new_privs) and the inherited seccomp filter —
which, not a language runtime, holds every isolation promise: a native program can issue any
system call. It holds exactly fds 0-2: the result channel (3) is closed and the status channel
is close-on-exec, so an ``execve`` that fails is reported on it as the sandbox's failure
(inconclusive), never the program's.
"""

from __future__ import annotations

import json
import os
import signal

from . import child, scratch
from .runner import Runner

MAGIC = b"execrl-job-1\n"


def parse_job(data) -> tuple[dict, memoryview]:
    """(header, the concatenated file bytes) of a packed job; ValueError if it is not one."""
    view = memoryview(data)
    if bytes(view[: len(MAGIC)]) != MAGIC:
        raise ValueError("not a packed job")
    end = bytes(view[len(MAGIC) :]).index(b"\n") + len(MAGIC)
    header = json.loads(bytes(view[len(MAGIC) : end]))
    return header, view[end + 1 :]


def safe_name(name: str) -> bool:
    """A relative path inside scratch: no absolute path, no ``..``, no empty part."""
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def place_files(header: dict, body: memoryview) -> None:
    """Write the job's files into scratch (the child's working directory), with their modes."""
    offset = 0
    for name, size, mode in header["files"]:
        if not safe_name(name):
            raise ValueError(f"unsafe file name {name!r}")
        path = scratch.PATH + "/" + name
        folder = path.rsplit("/", 1)[0]
        if folder != scratch.PATH:
            os.makedirs(folder, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode & 0o755)
        try:
            chunk = body[offset : offset + size]
            while chunk:
                written = os.write(fd, chunk)
                chunk = chunk[written:]
        finally:
            os.close(fd)
        offset += size


class NativeRunner(Runner):
    """``execve`` of the job's argv in scratch, after its files are written there."""

    name = "native"

    def prepare(self, source: bytearray) -> bytes | str:
        try:
            parse_job(source)
        except (ValueError, UnicodeDecodeError) as exc:
            return f"the sandbox got a malformed job: {exc}"
        return bytes(source)

    def load(self, artifact):
        return artifact

    def run(self, program, test: dict, prelude) -> None:
        try:
            header, body = parse_job(program)
            place_files(header, body)
            argv, env = [str(a) for a in header["argv"]], dict(header["env"])
            del program, body
            os.close(3)  # the result channel: a native program holds exactly 0-2
            os.set_inheritable(child.status_fd(), False)
            # CPython ignores SIGPIPE and SIGXFSZ, and execve keeps SIG_IGN: a native program
            # gets the defaults (a file past max_file_bytes kills it, as under any judge).
            for number in (signal.SIGPIPE, signal.SIGXFSZ):
                signal.signal(number, signal.SIG_DFL)
        except BaseException as exc:
            child.setup_failed(f"placing the program's files failed: {type(exc).__name__}: {exc}")
        try:
            os.execve(argv[0], argv, env)
        except OSError as exc:
            child.setup_failed(f"could not start {argv[0]}: {exc.strerror or exc}")


def fetch_files(patterns: list, max_bytes: int) -> tuple[list, list[bytes]]:
    """In the zygote, after a run: the regular files of scratch's top level whose names match
    ``patterns`` (an exact name, or ``*suffix``), as ([[name, size], ...], [data, ...]); at
    most ``max_bytes`` in all (a file past that is listed with size -1 and no data). Links and
    anything but a regular file are skipped (a program cannot make the zygote read elsewhere)."""
    try:
        names = sorted(os.listdir(scratch.PATH))
    except OSError:
        return [], []
    listed, datas, total = [], [], 0
    for name in names:
        if not any(_matches(name, str(p)) for p in patterns):
            continue
        try:
            fd = os.open(scratch.PATH + "/" + name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            info = os.fstat(fd)
            if (info.st_mode & 0o170000) != 0o100000:  # a regular file only
                continue
            if total + info.st_size > max_bytes:
                listed.append([name, -1])
                continue
            data = _read_all(fd, info.st_size)
        finally:
            os.close(fd)
        total += len(data)
        listed.append([name, len(data)])
        datas.append(data)
    return listed, datas


def _matches(name: str, pattern: str) -> bool:
    return name.endswith(pattern[1:]) if pattern.startswith("*") else name == pattern


def _read_all(fd: int, size: int) -> bytes:
    parts, left = [], size
    while left > 0:
        part = os.read(fd, min(left, 1 << 20))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
