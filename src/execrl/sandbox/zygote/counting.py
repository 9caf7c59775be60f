"""What only a counted zygote (one running under Valgrind, see ``execrl.sandbox.counting``)
does: the filter and audit hook a counted program runs under, the twin whose total is
subtracted, and emptying Valgrind's log of the set-up's own processes."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import sys

from .seccomp import CLONE
from .syscalls import MACHINE, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, check, libc


def counting_seccomp_program() -> list[tuple[int, int, int, int]]:
    """The filter a counted program runs under, on top of the zygote's: no new process (fork,
    vfork, clone without CLONE_THREAD), no exec and no memfd. A process the program started
    would be counted apart (or, killed at the test's end, not at all), an exec'd image would
    run outside Valgrind, and a memfd is executable memory a program could load code from;
    threads are counted with the program, so clone() for a thread is allowed."""
    ld_abs, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    prog = [(ld_abs, 0, 0, 0)]
    for n in _NO_NEW_PROCESS[MACHINE]:
        prog += [(jeq, 0, 1, n), (ret, 0, 0, eperm)]
    prog += [
        (jeq, 0, 3, CLONE[MACHINE]),
        (ld_abs, 0, 0, 16),  # low 32 bits of args[0]: the flags
        (jset, 1, 0, _CLONE_THREAD),
        (ret, 0, 0, eperm),
        (ret, 0, 0, allow),
    ]
    return prog


_NO_NEW_PROCESS = {"x86_64": (57, 58, 59, 322, 319), "aarch64": (221, 281, 279)}
"""fork, vfork, execve, execveat, memfd_create (aarch64 has no fork or vfork syscall)."""
_CLONE_THREAD = 0x00010000

_COUNTING_DENIED_EVENTS = frozenset(
    {
        "ctypes.call_function",
        "ctypes.dlopen",
        "ctypes.dlsym",
        "ctypes.dlsym/handle",
        "ctypes.cdata",
        "ctypes.cdata/buffer",
        "mmap.__new__",
    }
)
"""What a counted program may not do: call native code through ctypes, or map memory it could
make executable. Native code can issue Valgrind's client requests, one of which runs a function
on the real CPU, uncounted."""


def _counting_audit_hook(event: str, _args, _denied=_COUNTING_DENIED_EVENTS) -> None:
    if event in _denied:
        raise PermissionError(
            f"{event.split('.')[0]} is not available to a program whose instructions are counted"
        )


def discard_pending(fd: int) -> None:
    """Empty a counted zygote's Valgrind log of what its set-up's own processes wrote there
    (the mount table's readers' totals), through one fixed buffer: their lengths vary, and
    left in the pipe, every second rerun of a program counted 37 instructions fewer (how the
    pipe's contents reached the count was not found)."""
    buffer = bytearray(1 << 16)
    with contextlib.suppress(BlockingIOError):
        while os.readv(fd, [buffer]):
            pass


def count_from_here(filters) -> None:
    """In a counted child, right before the program: fork the twin (it exits at once, so its
    total is this process's total so far), then close the ways around the count. The host
    subtracts the twin's total from this process's."""
    sys._clear_type_cache()  # (its hits and misses would carry the server's history)
    twin = os.fork()
    if twin == 0:
        os._exit(0)
    os.waitpid(twin, 0)  # its total is in the log before the program starts (and can end)
    if filters is not None:
        check(
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(filters[1]), 0, 0),
            "seccomp",
        )
    sys.addaudithook(_counting_audit_hook)


COUNTING: dict = {"filters": None, "on": False}
"""Set in a counted zygote: whether children count, and the compiled filter they install."""
