"""The seccomp filter every process of the sandbox runs under (installed once in the zygote
and its compiler, inherited by every child): the denied system calls, as a table, and the
classic-BPF program built from it."""

from __future__ import annotations

import ctypes
import errno

from .syscalls import (
    AF_UNIX,
    MACHINE,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_SECCOMP,
    SECCOMP_MODE_FILTER,
    check,
    libc,
)

# Syscalls refused inside the sandbox, as "name x86_64 aarch64" rows. System V IPC and POSIX
# message queues are refused because their objects outlive a process (caching across runs).
# sched_setaffinity is refused so a program stays on its worker's core (widening it would put
# it on a neighbour's timed core); reading the affinity (sched_getaffinity) stays allowed.
_DENIED_SYSCALLS = """
ptrace 101 117          process_vm_readv 310 270   process_vm_writev 311 271
mount 165 40            umount2 166 39             pivot_root 155 41
chroot 161 51           unshare 272 97             setns 308 268
reboot 169 142          kexec_load 246 104         kexec_file_load 320 294
init_module 175 105     finit_module 313 273       delete_module 176 106
bpf 321 280             perf_event_open 298 241    keyctl 250 219
add_key 248 217         request_key 249 218        userfaultfd 323 282
io_uring_setup 425 425  io_uring_enter 426 426     io_uring_register 427 427
swapon 167 224          swapoff 168 225            acct 163 89
settimeofday 164 170    clock_settime 227 112      adjtimex 159 171
clock_adjtime 305 266   syslog 103 116             personality 135 92
name_to_handle_at 303 264  open_by_handle_at 304 265  kcmp 312 272
pidfd_getfd 438 438     quotactl 179 60            sethostname 170 161
setdomainname 171 162   fsopen 430 430             fsmount 432 432
move_mount 429 429      open_tree 428 428          fspick 433 433
mount_setattr 442 442   shmget 29 194              shmat 30 196
shmctl 31 195           shmdt 67 197               semget 64 190
semop 65 193            semctl 66 191              semtimedop 220 192
msgget 68 186           msgsnd 69 189              msgrcv 70 188
msgctl 71 187           mq_open 240 180            sched_setaffinity 203 122
"""
_SOCKET = {"x86_64": 41, "aarch64": 198}
CLONE = {"x86_64": 56, "aarch64": 220}
_CLONE3 = 435  # the same number on x86_64 and aarch64
_CLONE_NEW_FLAGS = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x00000080  # CLONE_NEWTIME (in clone()'s low byte, the exit signal: never a valid one)
)

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}


def _denied_numbers(machine: str) -> list[int]:
    column = 1 if machine == "x86_64" else 2
    words = _DENIED_SYSCALLS.split()
    rows = [words[i : i + 3] for i in range(0, len(words), 3)]
    return sorted({int(row[column]) for row in rows})


SECCOMP_SUPPORTED = MACHINE in _AUDIT_ARCH


class SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def _seccomp_program() -> list[tuple[int, int, int, int]]:
    """Deny-list filter: escape and introspection syscalls fail with EPERM; clone() with any
    namespace flag fails with EPERM and clone3 with ENOSYS (its flags sit in memory, where a
    filter cannot read them: libc then falls back to clone(), which the filter checks);
    sockets other than AF_UNIX fail with EACCES; a foreign syscall ABI kills the process."""
    machine = MACHINE
    ld_abs, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, kill = 0x7FFF0000, 0x80000000
    eperm, eacces = 0x00050000 | errno.EPERM, 0x00050000 | errno.EACCES
    enosys = 0x00050000 | errno.ENOSYS
    prog = [
        (ld_abs, 0, 0, 4),
        (jeq, 1, 0, _AUDIT_ARCH[machine]),
        (ret, 0, 0, kill),
        (ld_abs, 0, 0, 0),
    ]
    if machine == "x86_64":  # x32 ABI numbers alias the 64-bit ones: refuse them
        prog += [(jge, 0, 1, 0x40000000), (ret, 0, 0, kill)]
    for n in _denied_numbers(machine):
        prog += [(jeq, 0, 1, n), (ret, 0, 0, eperm)]
    prog += [
        (jeq, 0, 1, _CLONE3),
        (ret, 0, 0, enosys),
        (jeq, 0, 4, CLONE[machine]),
        (ld_abs, 0, 0, 16),  # low 32 bits of args[0]: the flags (all CLONE_NEW* live there)
        (jset, 0, 1, _CLONE_NEW_FLAGS),
        (ret, 0, 0, eperm),
        (ret, 0, 0, allow),
    ]
    # socket(): AF_UNIX is allowed (socketpair, multiprocessing), any other family gets EACCES.
    prog += [
        (jeq, 0, 4, _SOCKET[machine]),
        (ld_abs, 0, 0, 16),  # low 32 bits of args[0]
        (jeq, 0, 1, AF_UNIX),
        (ret, 0, 0, allow),
        (ret, 0, 0, eacces),
        (ret, 0, 0, allow),
    ]
    return prog


def build_seccomp_filter() -> tuple:
    """The compiled filter, built once in the zygote; children only install it."""
    program = _seccomp_program()
    filters = (SockFilter * len(program))(*[SockFilter(*ins) for ins in program])
    return filters, SockFprog(len(program), filters)


def install_seccomp(compiled: tuple) -> None:
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    address = ctypes.addressof(compiled[1])
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, address, 0, 0), "seccomp")


def lock_down(config: dict) -> None:
    """The seccomp filter (and no_new_privs), installed once after the privileged set-up:
    the process needs none of the denied calls any more and every child inherits it
    (installing it per child cost ~0.2 ms of page faults)."""
    if config["seccomp"] and SECCOMP_SUPPORTED:
        install_seccomp(build_seccomp_filter())
    else:
        check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
