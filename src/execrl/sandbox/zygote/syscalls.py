"""libc through ctypes (Python 3.11 has no os.unshare): the handle, the constants of mount,
prctl and seccomp, the errno check, and closing descriptors with close_range(2)."""

from __future__ import annotations

import contextlib
import ctypes
import os

MACHINE = os.uname().machine
AF_UNIX = 1

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
]

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 4, 38, 22
SECCOMP_MODE_FILTER = 2


def check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


CLOSE_RANGE = {"os": False}
"""Whether os.closerange is one close_range(2) call here (the build has it and the kernel
too, decided once in the zygote): through ctypes it costs each child ~10 more page faults."""


def close_fds_from(first: int) -> None:
    """Close every descriptor >= ``first`` (close_range(2) when the kernel has it)."""
    if CLOSE_RANGE["os"]:
        os.closerange(first, 0x7FFFFFFF)
        return
    if libc.syscall(436, first, 0xFFFFFFFF, 0) == 0:  # close_range: same number on x86_64/arm64
        return
    for name in os.listdir("/proc/self/fd"):
        if int(name) >= first:
            with contextlib.suppress(OSError):
                os.close(int(name))
