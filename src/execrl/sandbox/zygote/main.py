"""The zygote's entry point: set up the sandbox (cgroup, root file system, site paths,
pre-imports, seccomp), warm up what every child would otherwise do first, then serve the
host's requests (or, as the compiler process, compile)."""

from __future__ import annotations

import _thread
import builtins
import contextlib
import gc
import json
import marshal
import os
import signal
import sys

from . import scratch
from .cgroup import TestCgroup
from .child import Quitter, install_stdio, thread_excepthook
from .codec import decode_value, encode_value
from .compiler import serve_compiler
from .counting import COUNTING, counting_seccomp_program
from .rootfs import build_root
from .seccomp import SECCOMP_SUPPORTED, SockFilter, SockFprog
from .server import Server
from .syscalls import CLOSE_RANGE, PR_SET_DUMPABLE, libc
from .wire import write_message

_WARM_UP = """\
from typing import List
def f(x: List[int], *args, y=1.5, **kw) -> dict:
    \"\"\"doc\"\"\"
    return {x[0]: (y, 'a', b'b', None, True), **kw}
class C(Exception):
    pass
assert f([1]) == {1: (1.5, 'a', b'b', None, True)}, [i for i in range(3) if i]
"""


def receive_fds(config: dict) -> None:
    """A counted zygote's descriptors, sent by the host over its stdin (a socket): the kernel
    numbers them from the lowest free one, so they are the same small numbers on every start
    (see ``ForkServer._spawn_counted``). Its stdin is /dev/null again afterwards."""
    import socket

    channel = socket.socket(fileno=0)
    _, fds, _, _ = socket.recv_fds(channel, 16, 5)
    config["request_fd"], config["reply_fd"], *config["compiler_fds"], config["count_log_fd"] = fds
    devnull = os.open("/dev/null", os.O_RDONLY)
    os.dup2(devnull, 0)  # (closes the socket)
    os.close(devnull)
    channel.detach()


def main() -> None:
    config = json.loads(sys.argv[1])
    if config.get("fds_on_stdin"):
        receive_fds(config)
    COUNTING["on"] = bool(config.get("counting"))  # (before the set-up: see _mounts_under)
    scratch.PATH = (
        config.get("scratch") or scratch.PATH
    )  # a private host directory without namespaces
    os.environ.update(TMPDIR=scratch.PATH, HOME=scratch.PATH)  # inherited by every child
    if not config.get("counting"):  # (the loader read it at start; a counted run keeps its env)
        os.environ.pop("LD_BIND_NOW", None)
    # The interpreter itself, not a virtualenv's link to it (the virtualenv is not inside the
    # sandbox's root, the interpreter's directory is): multiprocessing's spawn and forkserver
    # start sys.executable, as a program run with python3 would.
    sys.executable = os.path.realpath(sys.executable)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # pid 1 of the sandbox ignores stray signals
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        if config.get("cgroup_procs"):
            with open(config["cgroup_procs"], "w") as f:
                f.write("0")  # this process and everything it forks
        # (opened before pivot_root: /sys is not in the sandbox's root)
        config["cgroup"] = TestCgroup.open(config.get("test_cgroup"))
        if config["fs_isolation"]:
            build_root(config)
            libc.sethostname(b"sandbox", 7)
        # Extra site paths (bound read-only by build_root) go on sys.path here, so every child
        # inherits them; .pth files in them are not processed (no site module, no code run).
        sys.path.extend(config.get("site_paths", ()))
        _thread._excepthook = thread_excepthook  # threading takes it from here when imported
        for module in config["preimport"]:
            with contextlib.suppress(ImportError):
                __import__(module)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # children cannot read our memory via /proc
    except BaseException as exc:
        write_message(
            config["reply_fd"],
            {
                "ok": False,
                "ready": False,
                "error": f"sandbox set-up failed: {type(exc).__name__}: {exc}",
            },
        )
        raise SystemExit(3) from None
    # (an empty range: succeeds exactly where the kernel has close_range and seccomp allows it)
    kernel_has_it = libc.syscall(436, 0x7FFFFFF0, 0x7FFFFFF0, 0) == 0
    # exit() and quit() as site would add them, for every child (set in a child, they cost it
    # copy-on-write faults in the builtins' dict)
    builtins.exit, builtins.quit = Quitter("exit"), Quitter("quit")
    CLOSE_RANGE["os"] = bool(config.get("closerange_syscall")) and kernel_has_it
    if config.get("role") == "compiler":
        serve_compiler(config)
        return
    if config.get("counting") and config["seccomp"] and SECCOMP_SUPPORTED:
        program = counting_seccomp_program()
        filters = (SockFilter * len(program))(*[SockFilter(*ins) for ins in program])
        COUNTING["filters"] = (filters, SockFprog(len(program), filters))
    # The first compile() and marshal.loads() in a process set up the parser's and
    # unmarshaller's lazy state: done here once, not in every checker (+1.2 ms) and candidate.
    marshal.loads(marshal.dumps(compile(_WARM_UP, "<warm-up>", "exec")))
    # And a call test's value codecs (their first use is ~12 M instructions in every child)
    decode_value(json.loads(json.dumps(encode_value([1, "a", None, (2.5,)]))))
    # traceback (with linecache and tokenize): every failing test formats an exception, and
    # importing it cost each such child ~450 copy-on-write faults and ~1.5 ms (a failed assert
    # in the checker, a traceback printed by the candidate). It adds no per-fork cost (it
    # registers no at-fork hook), unlike threading.
    import traceback  # noqa: F401

    try:
        server = Server(config)  # (its compiler must have come up)
    except Exception as exc:
        error = f"sandbox set-up failed: {type(exc).__name__}: {exc}"
        write_message(config["reply_fd"], {"ok": False, "ready": False, "error": error})
        raise SystemExit(3) from None
    gc.collect()
    install_stdio()
    # Compiling the package's modules (launch.py) left megabytes of freed blocks in malloc's
    # heap, still mapped below live objects: every fork copied their page-table entries and
    # write-protected them. Handed back to the kernel here (not in a counted zygote: what it
    # releases depends on how the start-up's reads arrived, and a count would move with it).
    if not config.get("counting"):
        libc.malloc_trim(0)
    gc.freeze()  # forked children share these pages instead of copying them on first gc
    if config.get("counting"):
        server.serve_forked()
    else:
        server.serve()


if __name__ == "__main__":
    main()
