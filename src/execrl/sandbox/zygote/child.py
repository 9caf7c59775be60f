"""A Python program's process, from its fork to its exit: the standard streams it is born
with, ``exit``/``quit``, its ``__main__`` module, the trusted prelude, the status channel to
the zygote, running the program as ``python3 program.py`` would (then a call test's entry
point, or an assert test's calls), and the interpreter's shutdown."""

from __future__ import annotations

import _thread  # built in and already loaded by the import system (not ``threading``)
import builtins
import contextlib
import io
import json
import os
import sys

from . import scratch
from .calls import prelude_classes, resolve_entry, serve_calls
from .codec import NotPlainData, decode_value, encode_value
from .compiler import exception_line, trusted_code, trusted_failure_line
from .counting import COUNTING, count_from_here
from .wire import write_all


def _build_stdio() -> tuple:
    """Text streams over fds 0-2 as a fresh interpreter would have, built once in the zygote
    and inherited, unused and empty, by every child (building them costs a child ~0.4 ms).
    Built while fds 1 and 2 are pipes, as they are in a child, so they know they cannot
    seek; fd 0 is /dev/null here and a memfd there: both can."""
    saved = os.dup(1), os.dup(2)
    r, w = os.pipe()
    os.dup2(w, 1)
    os.dup2(w, 2)
    try:
        return _new_stdio()
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, r, w):
            os.close(fd)


def _new_stdio() -> tuple:
    stdin = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8", newline="\n"
    )
    stdout = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8", newline="\n"
    )
    stderr = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
        encoding="utf-8",
        newline="\n",
        errors="backslashreplace",
        line_buffering=True,
    )
    return stdin, stdout, stderr


_ORIGINAL_STDIO: tuple = ()


def install_stdio() -> None:
    """Install the children's text streams in the zygote itself, once: a child then has
    them from birth. (Installing them in each child cost ~70 copy-on-write page faults: the
    interpreter's original streams were finalised there.) The zygote never writes to them —
    it reports over its own pipes — so their buffers stay empty. The originals are kept."""
    global _ORIGINAL_STDIO
    _ORIGINAL_STDIO = (sys.stdin, sys.stdout, sys.stderr)
    sys.stdin, sys.stdout, sys.stderr = _build_stdio()
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr


class Quitter:
    """``exit`` and ``quit`` as the ``site`` module defines them (the sandbox runs ``-S``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Use {self.name}() or Ctrl-D (i.e. EOF) to exit"

    def __call__(self, code=None):
        with contextlib.suppress(Exception):
            sys.stdin.close()
        raise SystemExit(code)


class MainModule(type(sys)):
    """The program's ``__main__`` module. ``python3 prog.py`` leaves ``prog.py`` on disk, and
    ``multiprocessing``'s spawn and forkserver methods rely on it: a spawned interpreter runs
    ``__main__.__file__`` again (as ``__mp_main__``) to find the program's functions. A
    candidate's program is never written to disk by default (scratch starts empty); reading
    the module's ``__file__`` as an attribute — what ``multiprocessing`` (and ``inspect``)
    do, not the program's own ``__file__`` global — writes it first, read-only, into scratch:
    its marshalled code behind a ``.pyc`` header, which ``runpy.run_path`` runs as it would
    the source. So only a program that spawns pays for the file."""

    @property
    def __file__(self) -> str | None:
        path = self.__dict__.get("__file__")
        if path is not None and _PROGRAM["code"] is not None:
            _write_program_file(path, _PROGRAM["code"])
            _PROGRAM["code"] = None  # (once: a program that removes it keeps its choice)
        return path

    @__file__.setter
    def __file__(self, value) -> None:
        self.__dict__["__file__"] = value


_PROGRAM: dict = {"code": None}
"""In a child: the program's code object, until ``MainModule`` has written it to its file."""


def _write_program_file(path: str, code) -> None:
    """``code`` as a ``.pyc`` at ``path`` (mode 0444), if nothing is there yet; a failure
    (scratch full, the directory gone) leaves the spawn to fail as it would without it."""
    import importlib.util
    import marshal

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
    except OSError:
        return
    try:
        # magic, flags 0 (timestamp-based), mtime and size 0: runpy reads no source to check
        write_all(fd, importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
    finally:
        os.close(fd)


def _script_namespace(path: str, code=None) -> dict:
    """The globals of a script run as ``python3 path``: a module's, registered as
    ``sys.modules["__main__"]`` (pickle finds the program's functions there, as
    ``multiprocessing.Pool.map`` needs; ``code`` is written to ``path`` when a spawning
    ``multiprocessing`` needs the file: MainModule), and the ``exit``/``quit`` built-ins
    that ``site`` would have added (installed in the child only: the host imports this
    file)."""
    if not hasattr(builtins, "exit"):
        builtins.exit, builtins.quit = Quitter("exit"), Quitter("quit")
    _PROGRAM["code"] = code
    module = MainModule("__main__")  # (__name__, __doc__, __package__, __loader__, __spec__)
    namespace = module.__dict__
    namespace.update(__annotations__={}, __builtins__=builtins, __file__=path, __cached__=None)
    sys.modules["__main__"] = module
    return namespace


def _run_prelude(prelude, namespace: dict) -> dict:
    """Run the trusted prelude (its ``trusted_code`` item; None: there is none) in the
    program's namespace; returns the classes it defines. Its failure is the sandbox's, not
    the program's (set-up failure: inconclusive)."""
    if prelude is None:
        return {}
    try:
        exec(trusted_code(prelude, "<prelude>"), namespace)
    except BaseException as exc:
        setup_failed(f"the prelude raised {trusted_failure_line(exc)}")
    return prelude_classes(namespace)


_STATUS_FD = -1
"""In a child: the write end of its status channel to the zygote. Only trusted code writes
there, before any of the program's code runs: ``F`` + a message (set-up failed), or ``S``
(the program starts), after which it is closed: a program holds only the descriptors
docs/sandbox.md lists."""

_MEMORY_FLAG = None
"""In a child: a shared page (``mmap``) the zygote reads once the child has ended; ``M`` at
byte 0: a MemoryError reached the program's top level. The program can reach the page too, so
it is only the program's own claim (which it could equally make by raising one)."""


def use_status_channel(fd: int, memory_flag=None) -> None:
    """In a just-forked child: its status channel is ``fd``, its memory flag ``memory_flag``."""
    global _STATUS_FD, _MEMORY_FLAG
    _STATUS_FD, _MEMORY_FLAG = fd, memory_flag


def status_fd() -> int:
    """This child's status channel."""
    return _STATUS_FD


def setup_failed(message: str) -> None:
    """The sandbox (not the program) failed before the program started: say so on the status
    channel, which the program has never been able to write to, and exit."""
    with contextlib.suppress(BaseException):
        os.write(_STATUS_FD, b"F" + message.encode("utf-8", "replace")[:2000])
    os._exit(121)


def read_status(fd: int, first: bytes = b"", memory_flag=None) -> tuple[str | None, bool]:
    """Zygote side: (set-up failure message or None, whether a MemoryError reached the top
    level) from a finished child's status channel and memory flag; ``first``: a byte already
    read from the channel (a spare's ``r`` is dropped). Closes both."""
    try:
        os.set_blocking(fd, False)
        data = os.read(fd, 4096)
    except OSError:
        data = b""
    finally:
        os.close(fd)
    memory = False
    if memory_flag is not None:
        memory = memory_flag[0] == ord("M")
        memory_flag.close()
    data = (first if first != b"r" else b"") + data
    if data.startswith(b"F"):
        return data[1:].decode("utf-8", "replace") or "unknown error", False
    return None, data.startswith(b"S") and memory


def run_program(code, test: dict, prelude=None) -> None:
    """Execute the candidate in this (child) process as ``python3 program.py`` would (with the
    trusted prelude first in call and assert tests); exits, never returns."""
    sys.argv = [scratch.PATH + "/program.py"]
    sys.setrecursionlimit(1000)
    namespace = _script_namespace(sys.argv[0], code)
    classes = _run_prelude(prelude, namespace)
    exit_code, shut_down = 0, False
    with contextlib.suppress(OSError):
        os.write(_STATUS_FD, b"S")  # from here on the program runs: the channel is closed
    with contextlib.suppress(OSError):
        os.close(_STATUS_FD)
    if COUNTING["on"]:
        count_from_here(COUNTING["filters"])
    try:
        exec(code, namespace)
        if test["kind"] == "call":
            _call_entry_point(namespace, test)
        elif test["kind"] == "assert":
            serve_calls(namespace, test, classes)
        shut_down = True
        _interpreter_shutdown()
    except SystemExit as exc:
        exit_code = _exit_code(exc.code)
    except BaseException as exc:
        if isinstance(exc, MemoryError):
            with contextlib.suppress(BaseException):
                _MEMORY_FLAG[0] = 77  # ord("M"): no allocation
        del exc
        import traceback  # (imported by the zygote: see main)

        traceback.print_exc()
        exit_code = 1
    if not shut_down:  # python3 also waits for threads and runs atexit after exit() or a crash
        with contextlib.suppress(BaseException):
            _interpreter_shutdown()
    exit_code = _with_thread_failures(exit_code)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    os._exit(exit_code)


def _interpreter_shutdown() -> None:
    """What a normal interpreter exit does: wait for non-daemon threads (the common
    ``threading.Thread(target=main).start()`` idiom), then run atexit handlers. (A thread
    that died of an uncaught exception then makes the exit code 1: _with_thread_failures.)"""
    threading = sys.modules.get("threading")
    if threading is not None:
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
    atexit = sys.modules.get("atexit")
    if atexit is not None:
        atexit._run_exitfuncs()


def _with_thread_failures(exit_code: int) -> int:
    """The exit code, made 1 if a thread died of an uncaught exception (however the main
    thread ended: returning, ``exit(0)``), with that exception named last on stderr."""
    if exit_code != 0 or not _THREAD_FAILURES:
        return exit_code
    with contextlib.suppress(BaseException):
        sys.stderr.write(f"uncaught exception in thread {_THREAD_FAILURES[0]}\n")
    return 1


_THREAD_FAILURES: list[str] = []
"""In a child: the first uncaught exception of a thread, as ``"name: Type: message"``."""


def thread_excepthook(args, _default=_thread._excepthook) -> None:
    """``threading.excepthook`` in every child: note the failure, then print the traceback as
    Python does. It is installed in ``_thread`` (built in, already loaded), from which
    ``threading`` takes its hook when the program imports it: the zygote never imports
    ``threading`` (it would make every fork slower), and a hook set at import time sees every
    thread's failure, not only those still visible at exit. A program that sets its own
    ``threading.excepthook`` handles its threads' exceptions itself."""
    if args.exc_type is not SystemExit and not _THREAD_FAILURES:
        name = getattr(args.thread, "name", "?")
        try:
            _THREAD_FAILURES.append(f"{name}: {exception_line(args.exc_value)}")
        except BaseException:  # (e.g. out of memory): the type still names it
            _THREAD_FAILURES.append(f"{name}: {getattr(args.exc_type, '__name__', '?')}")
    _default(args)


def _call_entry_point(namespace: dict, test: dict) -> None:
    fn = resolve_entry(namespace, test["fn_name"])
    value = fn(*decode_value(json.loads(test["args"])))
    try:
        encoded = json.dumps(encode_value(value)).encode()
    except NotPlainData as exc:
        encoded = json.dumps({"not_plain_data": f"the function returned {exc}"}).encode()
    write_all(3, encoded)


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
