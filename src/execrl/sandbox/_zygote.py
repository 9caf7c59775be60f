"""The fork server ("zygote") that runs inside the sandbox.

This file is started as a standalone module (``python -I -S -c "import _zygote;
_zygote.main()" CONFIG``, see ``isolation.zygote_command``) by ``execrl.sandbox.forkserver``,
usually as pid 1 of fresh namespaces (net, pid, mount, ipc, uts). It imports only the standard
library, so the sandbox needs no site-packages.

Life of the zygote:

1. Build a minimal read-only root (``/usr``, the Python installation, a synthetic ``/etc``,
   a few ``/dev`` nodes, a private ``/proc``, a size-limited ``/tmp``) and ``pivot_root`` into
   it: the host's home directories, project files, sockets and secrets are simply not there.
2. Import the allowed modules once, then serve requests from the host on a private pipe.
3. For each test: compile the program once (cached), fork one fresh child, lower its limits,
   drop to an unprivileged uid, install a seccomp filter, run it, and report raw results —
   exit status, stdout/stderr bytes, CPU time measured from outside (the worker's test
   cgroup's counter, which counts every process the program spawned, whoever reaps it; the
   zygote's ``RUSAGE_CHILDREN`` delta where no cgroup is available).

The zygote never holds expected outputs: the host compares results, so nothing a child reads
from its inherited memory can reveal an answer.
"""

from __future__ import annotations

import _signal  # built in: signal's C layer

# Every module imported here is in every forked child's address space, and a larger one makes
# each fork slower: this file keeps to small modules (no socket, selectors, shutil, hashlib,
# threading); traceback is imported once the zygote has started (see main).
import _thread  # built in and already loaded by the import system (not ``threading``)
import builtins
import contextlib
import ctypes
import errno
import gc
import io
import json
import marshal
import math
import os
import resource
import select
import signal
import stat
import struct
import sys
import time

_MACHINE = os.uname().machine
_AF_UNIX = 1

# --------------------------------------------------------------------------------------------
# Wire format shared with the host: 4-byte length + JSON header, then raw payload bytes.

_LEN = struct.Struct(">I")


def encode_message(header: dict, *payloads: bytes) -> bytearray:
    """One whole message: encoding fails (or succeeds) before anything is sent. Built in
    place, with no intermediate copies of the payloads (which may be a program's output:
    see scrub)."""
    header = dict(header, payload_sizes=[len(p) for p in payloads])
    body = json.dumps(header).encode()
    message = bytearray(_LEN.size + len(body) + sum(len(p) for p in payloads))
    _LEN.pack_into(message, 0, len(body))
    view, at = memoryview(message), _LEN.size
    for part in (body, *payloads):
        view[at : at + len(part)] = part
        at += len(part)
    view.release()
    return message


def write_message(fd: int, header: dict, *payloads: bytes) -> None:
    message = encode_message(header, *payloads)
    try:
        _write_all(fd, message)
    finally:
        scrub(message)


_BYTES_DATA = bytes.__basicsize__ - 1
"""Where a bytes object's contents start, from its address (CPython's PyBytesObject)."""


def scrub(*buffers) -> None:
    """Zero buffers the zygote is done with — programs' outputs and sources, the messages
    that carried them — before their memory is freed: freed memory keeps its contents, and
    every later child inherits the zygote's heap, where a program reading raw memory (ctypes)
    would find a neighbour's answer or its own earlier repeat's output. Only objects nothing
    else uses may be given: bytes are zeroed in place (CPython's one-byte and empty bytes are
    shared singletons, and are skipped)."""
    for data in buffers:
        if type(data) is bytearray:
            data[:] = bytes(len(data))  # in place (same length), no ctypes call in a child
        elif type(data) is bytes and len(data) > 1:
            ctypes.memset(id(data) + _BYTES_DATA, 0, len(data))


def read_message(fd: int, *, exact: bool = False) -> tuple[dict, list]:
    """Read one message. With ``secret_last`` in the header, the last payload is read straight
    into a bytearray (no immutable copies), so its owner can zero it after use. ``exact``
    (a counted zygote): every part is read that way, so what is allocated does not depend on
    how the data arrived in pieces (a count must not depend on the host's timing)."""
    read = _read_into if exact else _read_exact
    (size,) = _LEN.unpack(read(fd, _LEN.size))
    header = json.loads(read(fd, size))
    sizes = header.pop("payload_sizes", [])
    secret = sizes.pop() if header.get("secret_last") and sizes else None
    payloads: list = [read(fd, n) for n in sizes]
    if secret is not None:
        payloads.append(_read_into(fd, secret))
    return header, payloads


def _read_into(fd: int, n: int) -> bytearray:
    """``n`` bytes into one bytearray of exactly that size."""
    buffer = bytearray(n)
    view, got = memoryview(buffer), 0
    while got < n:
        k = os.readv(fd, [view[got:]])
        if not k:
            view.release()
            scrub(buffer)
            raise EOFError("peer closed the channel")
        got += k
    view.release()
    return buffer


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exact(fd: int, n: int) -> bytes:
    chunks, remaining = [], n
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            scrub(*chunks)
            raise EOFError("peer closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return _joined(chunks)


def _joined(chunks: list[bytes]) -> bytes:
    """The chunks as one bytes; the chunks themselves are scrubbed once copied."""
    if len(chunks) == 1:
        return chunks[0]
    data = b"".join(chunks)
    scrub(*chunks)
    return data


# --------------------------------------------------------------------------------------------
# Value codec for call-based and assert-style values. A value travels as
# {"root": item, "table": [entry, ...]}: scalars are inline items; every container or object
# is a table entry referenced by {"ref": index}, so shared references and cycles survive and a
# 100,000-node linked list is one flat JSON array (encoded and decoded without recursion).
#   item:  None | bool | int | finite float | str | {"int": hex} (big ints: str(int) is capped
#          at 4,300 digits, hex is not) | {"float": repr} | {"bytes": hex} | {"complex": [r, i]}
#          | {"ref": n} | {"remote": key, "type": name} (an object living in the candidate)
#   entry: ["list" | "tuple" | "set" | "frozenset", [item, ...]] | ["dict", [[k, v], ...]]
#          | ["obj", class name, [[attribute, item], ...]] (a class the prelude defines)
# Containers are read through the base type's own methods (subclasses included), so a returned
# object cannot smuggle a rigged __eq__ to the comparer; decoding builds only built-in values,
# instances of trusted prelude classes (without running __init__) and remote handles.


class NotPlainData(TypeError):
    pass


PLAIN_TYPES = "None, bool, int, float, complex, str, bytes, list, tuple, set, frozenset, dict"
_INLINE_INT_BITS = 4096  # larger ints travel as hex
_INLINE_INT_LIMIT = 1 << _INLINE_INT_BITS
_SEQUENCES = {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}


class _Handles:
    """Candidate side: the objects it handed to the checker as remote handles."""

    __slots__ = ("ids", "objects")

    def __init__(self) -> None:
        self.objects: list = []  # kept alive, so their ids stay unique
        self.ids: dict[int, int] = {}

    def add(self, obj) -> int:
        key = self.ids.get(id(obj))
        if key is None:
            key = self.ids[id(obj)] = len(self.objects)
            self.objects.append(obj)
        return key


def not_plain_message(value, *, prelude_classes: bool = False) -> str:
    also = " or objects of the prelude's classes" if prelude_classes else ""
    return f"a {type(value).__name__} object; only plain data ({PLAIN_TYPES}){also} can be compared"


_PLAIN_DEPTH = 32
_PLAIN_ITEMS = 4096


def _is_plain(value) -> bool:
    """Whether ``value`` is JSON as it stands, so it can travel as ``{"plain": value}``
    without the object table: exact str, bool, None, ints of at most _INLINE_INT_BITS bits,
    finite floats, and exact lists of them, no list twice, at most _PLAIN_ITEMS items in all
    and _PLAIN_DEPTH deep — the arguments and results of most tests (HumanEval's, say), at
    half the table's cost per call."""
    stack, seen, count = [(value, 0)], set(), 0
    while stack:
        v, depth = stack.pop()
        t = type(v)
        if t is str or v is None or t is bool:
            continue
        if t is int:
            if -_INLINE_INT_LIMIT < v < _INLINE_INT_LIMIT:
                continue
            return False
        if t is float:
            if math.isfinite(v):
                continue
            return False
        if t is not list or depth >= _PLAIN_DEPTH or id(v) in seen:
            return False
        seen.add(id(v))
        count += len(v)
        if count > _PLAIN_ITEMS:
            return False
        stack.extend((x, depth + 1) for x in v)
    return True


def checked_plain(value):
    """``value`` (decoded from untrusted JSON) if it is what ``_is_plain`` lets through:
    only lists, str, int, float, bool and None, within the same depth and item limits.
    ValueError otherwise."""
    stack, count = [(value, 0)], 0
    while stack:
        v, depth = stack.pop()
        t = type(v)
        if t is str or t is int or t is float or t is bool or v is None:
            continue
        if t is not list or depth >= _PLAIN_DEPTH:
            raise ValueError("malformed plain value")
        count += len(v)
        if count > _PLAIN_ITEMS:
            raise ValueError("a plain value over its item limit")
        stack.extend((x, depth + 1) for x in v)
    return value


def encode_value(value, *, classes=(), handles: _Handles | None = None) -> dict:
    """``value`` as JSON-ready data. Instances of classes named in ``classes`` travel by
    attribute state; other objects become remote handles when ``handles`` is given, and raise
    NotPlainData otherwise."""
    if _is_plain(value):
        return {"plain": value}
    table: list = []
    seen: dict[int, int] = {}
    work: list = []

    def tabled(obj) -> dict:
        slot = seen.get(id(obj))
        if slot is None:
            slot = seen[id(obj)] = len(table)
            table.append(None)
            work.append((slot, obj))
        return {"ref": slot}

    def item(v):
        if v is None or type(v) is bool:  # bool cannot be subclassed
            return v
        if isinstance(v, int):
            n = int.__index__(v)
            return n if n.bit_length() <= _INLINE_INT_BITS else {"int": hex(n)}
        if isinstance(v, float):
            f = float.__float__(v)
            return f if math.isfinite(f) else {"float": float.__repr__(f)}
        if isinstance(v, str):
            return str.__str__(v)
        if isinstance(v, bytes):
            return {"bytes": bytes.hex(v)}
        if isinstance(v, complex):
            real, imag = complex.__getattribute__(v, "real"), complex.__getattribute__(v, "imag")
            return {"complex": [item(real), item(imag)]}
        if isinstance(v, list | tuple | set | frozenset | dict):
            return tabled(v)
        if type(v) is Remote:
            return {"remote": v._key, "type": v._what}
        if type(v).__name__ in classes and hasattr(v, "__dict__"):
            return tabled(v)
        if handles is not None:
            return {"remote": handles.add(v), "type": type(v).__name__}
        raise NotPlainData(not_plain_message(v, prelude_classes=bool(classes)))

    root = item(value)
    while work:
        slot, v = work.pop()
        if isinstance(v, dict):
            table[slot] = ["dict", [[item(k), item(x)] for k, x in dict.items(v)]]
            continue
        for base, tag in _SEQUENCES.items():
            if isinstance(v, base):
                items = base.__iter__(v)
                table[slot] = [tag, [item(x) for x in items]]
                break
        else:
            state = object.__getattribute__(v, "__dict__")
            attributes = [[str.__str__(k), item(x)] for k, x in dict.items(state)]
            table[slot] = ["obj", type(v).__name__, attributes]
    return {"root": root, "table": table}


def decode_value(data, *, classes=None, remote=None):
    """The value ``encode_value`` encoded; ValueError for anything malformed. ``classes`` maps
    class names to (trusted) classes; ``remote(key, type_name)`` resolves a remote handle."""
    try:
        return _decode(data, classes or {}, remote)
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        raise ValueError(f"malformed value: {type(exc).__name__}: {exc}") from None


def _index(ref, size: int) -> int:
    if type(ref) is not int or not 0 <= ref < size:
        raise ValueError(f"a reference out of range: {ref!r}")
    return ref


def encoded_table(data) -> list | None:
    """The table of what ``encode_value`` wrote, or None when it is a plain value (then
    ``data["plain"]`` is checked and can be used as it is); ValueError when it is neither."""
    if isinstance(data, dict) and len(data) == 1 and "plain" in data:
        checked_plain(data["plain"])
        return None
    if not isinstance(data, dict) or set(data) != {"root", "table"}:
        raise ValueError("not an encoded value")
    if not isinstance(data["table"], list):
        raise ValueError("malformed table")
    return data["table"]


def _decode(data, classes: dict, remote):
    table = encoded_table(data)
    if table is None:
        return data["plain"]
    built: list = [None] * len(table)
    done = [False] * len(table)
    immutable = []
    for i, entry in enumerate(table):  # 1. shells of mutable values: references can point here
        kind = entry[0]
        if kind == "list":
            built[i] = []
        elif kind == "dict":
            built[i] = {}
        elif kind == "set":
            built[i] = set()
        elif kind == "obj":
            cls = classes.get(entry[1])
            if cls is None:
                raise ValueError(f"an object of an unknown class {entry[1]!r}")
            built[i] = cls.__new__(cls)
        elif kind in ("tuple", "frozenset"):
            immutable.append(i)
            continue
        else:
            raise ValueError(f"unknown entry {kind!r}")
        done[i] = True

    def item(x):
        if x is None or isinstance(x, bool | int | float | str):
            return x
        if not isinstance(x, dict) or len(x) not in (1, 2):
            raise ValueError(f"malformed item {type(x).__name__}")
        if "ref" in x:
            if not done[_index(x["ref"], len(table))]:
                raise ValueError("a reference to an unbuilt value")
            return built[x["ref"]]
        if "int" in x:
            return int(x["int"], 16)
        if "float" in x:
            return float(x["float"])
        if "bytes" in x:
            return bytes.fromhex(x["bytes"])
        if "complex" in x:
            real, imag = x["complex"]
            return complex(float(item(real)), float(item(imag)))
        if "remote" in x and remote is not None:
            return remote(x["remote"], str(x.get("type", "object")))
        raise ValueError(f"unknown item {sorted(x)!r}")

    # 2. tuples and frozensets, each after the tuples and frozensets it holds
    visiting: set[int] = set()
    for start in immutable:
        stack = [start]
        while stack:
            i = stack[-1]
            if done[i]:
                stack.pop()
                continue
            visiting.add(i)
            waiting = [
                x["ref"]
                for x in table[i][1]
                if isinstance(x, dict) and "ref" in x and not done[_index(x["ref"], len(table))]
            ]
            if waiting:
                if any(j in visiting for j in waiting):
                    raise ValueError("a cycle of tuples")
                stack.extend(waiting)
                continue
            values = [item(x) for x in table[i][1]]
            built[i] = tuple(values) if table[i][0] == "tuple" else frozenset(values)
            done[i] = True
            visiting.discard(i)
            stack.pop()
    # 3. fill the mutable values: objects and lists first, then what hashes its members
    for order in (("obj", "list"), ("dict", "set")):
        for i, entry in enumerate(table):
            kind = entry[0]
            if kind not in order:
                continue
            if kind == "obj":
                state = vars(built[i])
                for name, x in entry[2]:
                    state[str(name)] = item(x)
            elif kind == "list":
                built[i].extend(item(x) for x in entry[1])
            elif kind == "set":
                built[i].update(item(x) for x in entry[1])
            else:
                for k, x in entry[1]:
                    built[i][item(k)] = item(x)
    return item(data["root"])


# --------------------------------------------------------------------------------------------
# libc: mounts, pivot_root, prctl and seccomp through ctypes (Python 3.11 has no os.unshare).

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.prctl.argtypes = [
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


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source, target, fstype, flags, data=None) -> None:
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    _check(_libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def _bind_readonly(source: str, target: str) -> None:
    """Bind ``source`` (with every mount under it) at ``target``, all of it read-only: a bind
    remount changes one mount only, so each submount is remounted too."""
    _mount(source, target, None, MS_BIND | MS_REC)
    for mountpoint, locked in _mounts_under(target):
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | locked
        _mount(None, mountpoint, None, flags)


_MS_NOATIME, _MS_NODIRATIME, _MS_RELATIME = 1024, 2048, 1 << 21
_KEPT_OPTIONS = {  # a bind remount must keep these (locked in a user namespace)
    "noexec": MS_NOEXEC,
    "noatime": _MS_NOATIME,
    "nodiratime": _MS_NODIRATIME,
    "relatime": _MS_RELATIME,
}


def _mounts_under(target: str) -> list[tuple[str, int]]:
    """Mount points at or below ``target`` (parents first), each with the flags of its
    current options that a remount has to keep, from /proc/self/mountinfo. A counted zygote
    has a child process read it: the table's mount ids grow with every mount made on the
    machine (each sandbox makes a dozen), and lines that grow with them laid the zygote's heap
    out differently from one start to the next, which moved a counted program's count. Only
    the answer, the same every time, reaches it. (A native zygote reads it itself: the
    child cost its start-up ~25 ms.)"""
    if not _COUNTING["on"]:
        return _parse_mountinfo(target)
    answer_r, answer_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(answer_r)
            write_message(answer_w, {"mounts": _parse_mountinfo(target)})
        finally:
            os._exit(0)
    os.close(answer_w)
    try:
        header, _ = read_message(answer_r, exact=True)
    except EOFError:
        raise OSError(f"could not read the mount table for {target}") from None
    finally:
        os.close(answer_r)
        os.waitpid(pid, 0)
    return [(point, kept) for point, kept in header["mounts"]]


def _parse_mountinfo(target: str) -> list[tuple[str, int]]:
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split(" ")
            point = _unescape_mountinfo(fields[4])
            if point == target or point.startswith(target.rstrip("/") + "/"):
                kept = 0
                for option in fields[5].split(","):
                    kept |= _KEPT_OPTIONS.get(option, 0)
                found.append((point, kept))
    return found


def _unescape_mountinfo(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash in paths as octal escapes."""
    for escape, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(escape, char)
    return field


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
_CLONE = {"x86_64": 56, "aarch64": 220}
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
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}


def _denied_numbers(machine: str) -> list[int]:
    column = 1 if machine == "x86_64" else 2
    words = _DENIED_SYSCALLS.split()
    rows = [words[i : i + 3] for i in range(0, len(words), 3)]
    return sorted({int(row[column]) for row in rows})


SECCOMP_SUPPORTED = _MACHINE in _AUDIT_ARCH


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _seccomp_program() -> list[tuple[int, int, int, int]]:
    """Deny-list filter: escape and introspection syscalls fail with EPERM; clone() with any
    namespace flag fails with EPERM and clone3 with ENOSYS (its flags sit in memory, where a
    filter cannot read them: libc then falls back to clone(), which the filter checks);
    sockets other than AF_UNIX fail with EACCES; a foreign syscall ABI kills the process."""
    machine = _MACHINE
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
        (jeq, 0, 4, _CLONE[machine]),
        (ld_abs, 0, 0, 16),  # low 32 bits of args[0]: the flags (all CLONE_NEW* live there)
        (jset, 0, 1, _CLONE_NEW_FLAGS),
        (ret, 0, 0, eperm),
        (ret, 0, 0, allow),
    ]
    # socket(): AF_UNIX is allowed (socketpair, multiprocessing), any other family gets EACCES.
    prog += [
        (jeq, 0, 4, _SOCKET[machine]),
        (ld_abs, 0, 0, 16),  # low 32 bits of args[0]
        (jeq, 0, 1, _AF_UNIX),
        (ret, 0, 0, allow),
        (ret, 0, 0, eacces),
        (ret, 0, 0, allow),
    ]
    return prog


def build_seccomp_filter() -> tuple:
    """The compiled filter, built once in the zygote; children only install it."""
    program = _seccomp_program()
    filters = (_SockFilter * len(program))(*[_SockFilter(*ins) for ins in program])
    return filters, _SockFprog(len(program), filters)


def install_seccomp(compiled: tuple) -> None:
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    address = ctypes.addressof(compiled[1])
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, address, 0, 0), "seccomp")


def _counting_seccomp_program() -> list[tuple[int, int, int, int]]:
    """The filter a counted program runs under, on top of the zygote's: no new process (fork,
    vfork, clone without CLONE_THREAD), no exec and no memfd. A process the program started
    would be counted apart (or, killed at the test's end, not at all), an exec'd image would
    run outside Valgrind, and a memfd is executable memory a program could load code from;
    threads are counted with the program, so clone() for a thread is allowed."""
    ld_abs, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    prog = [(ld_abs, 0, 0, 0)]
    for n in _NO_NEW_PROCESS[_MACHINE]:
        prog += [(jeq, 0, 1, n), (ret, 0, 0, eperm)]
    prog += [
        (jeq, 0, 3, _CLONE[_MACHINE]),
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


def _discard_pending(fd: int) -> None:
    """Empty a counted zygote's Valgrind log of what its set-up's own processes wrote there
    (the mount table's readers' totals), through one fixed buffer: their lengths vary, and
    left in the pipe, every second rerun of a program counted 37 instructions fewer (how the
    pipe's contents reached the count was not found)."""
    buffer = bytearray(1 << 16)
    with contextlib.suppress(BlockingIOError):
        while os.readv(fd, [buffer]):
            pass


def _count_from_here(filters) -> None:
    """In a counted child, right before the program: fork the twin (it exits at once, so its
    total is this process's total so far), then close the ways around the count. The host
    subtracts the twin's total from this process's."""
    sys._clear_type_cache()  # (its hits and misses would carry the server's history)
    twin = os.fork()
    if twin == 0:
        os._exit(0)
    os.waitpid(twin, 0)  # its total is in the log before the program starts (and can end)
    if filters is not None:
        _check(
            _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(filters[1]), 0, 0),
            "seccomp",
        )
    sys.addaudithook(_counting_audit_hook)


_COUNTING: dict = {"filters": None, "on": False}
"""Set in a counted zygote: whether children count, and the compiled filter they install."""


# --------------------------------------------------------------------------------------------
# The minimal root file system.

_DEV_NODES = ("null", "zero", "full", "random", "urandom")
_ROOT_LINKS_OR_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


def build_root(config: dict) -> None:
    uid, gid = config["uid"], config["gid"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount reaches the host
    # Extra read-only paths are held open now: the staging tmpfs below covers the host's /tmp,
    # and one of them may live there (a virtualenv under /tmp); they are bound last, after the
    # private /tmp is mounted, through /proc/self/fd (the host's /proc, still mounted).
    held = [
        (path, os.open(path, os.O_PATH | os.O_DIRECTORY))
        for path in config["readonly_paths"]
        if os.path.isdir(path)
    ]
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=256,mode=755")
    root = "/tmp/root"
    os.mkdir(root)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,nr_inodes=4096,mode=755")
    os.makedirs(root + "/usr")
    _bind_readonly("/usr", root + "/usr")
    for name in _ROOT_LINKS_OR_DIRS:
        host = "/" + name
        if os.path.islink(host):
            os.symlink(os.readlink(host), root + host)
        elif os.path.isdir(host):
            os.mkdir(root + host)
            _bind_readonly(host, root + host)
    _build_etc(root, uid, gid)
    _build_dev(root, config["shm_mb"], _scratch_inodes(config), _scratch_noexec(config))
    os.mkdir(root + "/proc")
    _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
    os.mkdir(root + "/tmp")
    _mount(
        "tmpfs",
        root + "/tmp",
        "tmpfs",
        MS_NOSUID | MS_NODEV | _scratch_noexec(config),
        f"size={config['scratch_mb']}m,nr_inodes={_scratch_inodes(config)},mode=755",
    )
    for path, fd in held:
        if not os.path.exists(root + path):  # not already visible (e.g. under /usr)
            os.makedirs(root + path)
            _bind_readonly(f"/proc/self/fd/{fd}", root + path)
        os.close(fd)
    os.mkdir(root + "/.old")
    _check(
        _libc.syscall(_PIVOT_ROOT.get(_MACHINE, 155), root.encode(), (root + "/.old").encode()),
        "pivot_root",
    )
    os.chdir("/")
    _check(_libc.umount2(b"/.old", MNT_DETACH), "umount old root")
    os.rmdir("/.old")
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _build_etc(root: str, uid: int, gid: int) -> None:
    etc = root + "/etc"
    os.mkdir(etc)
    files = {
        "passwd": (
            "root:x:0:0:root:/:/usr/sbin/nologin\n"
            f"sandbox:x:{uid}:{gid}:sandbox:/tmp:/usr/sbin/nologin\n"
        ),
        "group": f"root:x:0:\nsandbox:x:{gid}:\n",
        "hosts": "127.0.0.1 localhost\n",
        "hostname": "sandbox\n",
    }
    for name, text in files.items():
        with open(f"{etc}/{name}", "w") as f:
            f.write(text)
    for name in ("ld.so.cache", "localtime"):
        host = "/etc/" + name
        if os.path.isfile(host):
            open(f"{etc}/{name}", "w").close()
            _bind_readonly(os.path.realpath(host), f"{etc}/{name}")


def _scratch_inodes(config: dict) -> int:
    """Files and directories a private tmpfs may hold (tmpfs's default is RAM/2 pages' worth:
    an inode flood would fill kernel memory long before ``size=``)."""
    return int(config.get("scratch_files", 4096))


def _scratch_noexec(config: dict) -> int:
    """MS_NOEXEC for the writable mounts of a counted sandbox: a library a program wrote there
    could not be mapped executable (its code could issue Valgrind's client requests)."""
    return MS_NOEXEC if config.get("counting") else 0


def _build_dev(root: str, shm_mb: int, shm_inodes: int = 4096, noexec: int = 0) -> None:
    dev = root + "/dev"
    os.mkdir(dev)
    _mount("tmpfs", dev, "tmpfs", MS_NOSUID, "size=64k,nr_inodes=64,mode=755")
    for name in _DEV_NODES:
        open(f"{dev}/{name}", "w").close()
        _mount(f"/dev/{name}", f"{dev}/{name}", None, MS_BIND)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, f"{dev}/{name}")
    os.mkdir(dev + "/shm")
    shm = f"size={shm_mb}m,nr_inodes={shm_inodes},mode=1777"
    _mount("tmpfs", dev + "/shm", "tmpfs", MS_NOSUID | MS_NODEV | noexec, shm)


# --------------------------------------------------------------------------------------------
# Running one test.


class Server:
    def __init__(self, config: dict) -> None:
        self.config = config
        self.request_fd, self.reply_fd = config["request_fd"], config["reply_fd"]
        self.is_init = os.getpid() == 1
        self.can_setuid = os.geteuid() == 0 and config["drop_privileges"]
        # The filter is installed once, here, after the privileged set-up: the zygote needs
        # none of the denied calls any more and every child inherits it (installing it per
        # child cost ~0.2 ms of page faults). Same for no_new_privs.
        _lock_down(config)
        self.compiler = _Compiler(config.get("compiler_fds"))
        self.compiled: tuple | None = None  # (source, marshalled code) of the current program
        self.preludes: dict[str, bytes | str] = {}  # prelude source -> its compiled item
        self.live_runs: list[dict] = []  # the current request's results so far
        self.next_limits: dict | None = None  # the limits the next spare is forked for
        self.broken: str | None = None  # why the zygote must not serve another request
        self.pid_counter_fd: int | None = None
        if self.is_init:
            with contextlib.suppress(OSError):  # needs CAP_SYS_ADMIN over the pid namespace
                self.pid_counter_fd = os.open("/proc/sys/kernel/ns_last_pid", os.O_WRONLY)
        self.runs = 0
        self.rlimits: tuple | None = None  # (limits, their rlimit_table), the last built
        self.base_vm_bytes = _vm_size_bytes()
        self.spare: _Spare | None = None
        self.scratch_dirty = True
        self.count_log_fd = config.get("count_log_fd")  # Valgrind's log (counted zygote only)
        if self.count_log_fd is not None:
            os.set_blocking(self.count_log_fd, False)
            _discard_pending(self.count_log_fd)

    # -- protocol ----------------------------------------------------------------------------
    def serve(self) -> None:
        """One reply per request, echoing its ``id``. A failure of the zygote's own bookkeeping
        (cleanup, encoding, even a RecursionError or MemoryError here) is answered once, as an
        error for that request, and ends the zygote: the host restarts it rather than trust
        a worker in an unknown state. The next spare is forked here, at the top of the loop,
        after the request's buffers are gone, so no child inherits another run's data."""
        write_message(self.reply_fd, {"ok": True, "ready": True, "pid": os.getpid()})
        while True:
            try:
                self.between_requests()
            except Exception as exc:  # e.g. scratch too deep to clean: never run on it dirty
                self.broken = f"cleaning up after the last run failed: {type(exc).__name__}: {exc}"
            if not self.serve_one():
                return

    def serve_forked(self) -> None:
        """A counted zygote's loop: each request is read and answered by a fork of this
        process, whose own state never changes (it only waits, forks and reaps). A rerun of a
        request then starts from exactly the state its first run did, and counts the same: a
        server that handled the requests itself would carry their traces (its allocator's free
        lists, its caches) into every later child, and a count moved by ~0.2 % with them."""
        write_message(self.reply_fd, {"ok": True, "ready": True, "pid": os.getpid()})
        gc.collect()
        gc.freeze()
        while True:
            select.select([self.request_fd], [], [])  # a request (or the host's hang-up)
            pid = os.fork()
            if pid == 0:
                ok = self.serve_one()
                self.kill_everything(os.getpid())  # (its own processes: ours does not vary)
                os._exit(0 if ok else 1)
            _, status = os.waitpid(pid, 0)
            _reap_orphans()
            if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
                return

    def serve_one(self) -> bool:
        """Read one request and answer it; False when the zygote must stop (the host hung up,
        asked it to, or its own bookkeeping failed)."""
        try:
            header, payloads = read_message(self.request_fd, exact=_COUNTING["on"])
        except EOFError:
            return False
        op, request_id = header.get("op"), header.get("id")
        if op == "shutdown":
            return False
        fatal, reply, out = self.broken, None, None
        try:
            if fatal:
                raise _ZygoteBroken(fatal)
            if op == "run":
                reply, out = self.handle_run(header, payloads)
            elif op == "ping":
                reply, out = {"ok": True}, []
            else:
                reply, out = {"ok": False, "error": f"unknown op {op!r}"}, []
            message = encode_message(dict(reply, id=request_id), *out)
        except Exception as exc:  # the sandbox failed, not the program: say so, then stop
            fatal = f"{type(exc).__name__}: {exc}"[:2000]
            message = encode_message({"ok": False, "id": request_id, "error": fatal})
        scrub(*payloads, *(out or ()))  # (the message holds its own copy of the outputs)
        del header, payloads, reply, out  # nothing of this request reaches the next child
        try:
            _write_all(self.reply_fd, message)
        finally:
            scrub(message)
        del message
        return not fatal

    def between_requests(self) -> None:
        """Off the critical path: clean scratch and fork the next spare (stdio and call tests;
        an assert test forks its own processes)."""
        gc.collect()  # the last request's cycles (tracebacks, frames) go before the next fork
        # What survived is the server's live state: frozen, the next collection (here or in
        # a child) skips it instead of writing every object's header, which cost a fork's
        # pages 60 copy-on-write faults per test (~0.15 ms) here alone.
        gc.freeze()
        if self.next_limits is not None:
            self.prepare_spare(self.next_limits)

    def handle_run(self, header: dict, payloads: list) -> tuple[dict, list]:
        """Run one test; returns the reply and its payloads (the caller sends them)."""
        code = self.compile_program(payloads[0])
        if isinstance(code, str):
            return {"ok": True, "compile_error": code}, []
        test, limits = header["test"], header["limits"]
        runs = self.live_runs = []  # a child forked between repeats empties its copy of these
        # An assert test's code is zeroed after its first use, so it runs once.
        repeats = 1 if test["kind"] == "assert" else max(1, header.get("repeats", 1))
        for _ in range(repeats):
            if test["kind"] == "assert":
                result = self.run_assert(code, test, limits, payloads[1:])
            else:
                result = self.run_once(code, test, limits, payloads[1])
            runs.append(result)
            if result["outcome"] != "exited" or result["exit_code"] != 0:
                break  # a failing run is not timed again
        # the next test most likely has the same limits: its spare is forked after the reply
        self.next_limits = limits if test["kind"] != "assert" else None
        self.live_runs = []
        # Every repeat is judged by the host: the first run's streams always travel, a later
        # run's only when they differ from the first's (``own_streams``), so equal repeats
        # cost nothing extra.
        first, streams = runs[0], ("stdout", "stderr", "result")
        out = [first[k] for k in streams]
        for run in runs[1:]:
            run["own_streams"] = any(run[k] != first[k] for k in streams)
            if run["own_streams"]:
                out += [run[k] for k in streams]
        reply = {
            "ok": True,
            "runs": [{k: v for k, v in r.items() if not isinstance(v, bytes)} for r in runs],
            "outputs_differ": any(
                r["stdout"] != first["stdout"] or r["result"] != first["result"] for r in runs
            ),
        }
        for run in runs[1:]:  # a repeat's output that is not sent (equal to the first's) goes now
            if not run["own_streams"]:
                scrub(*(run[k] for k in streams if run[k] is not first[k]))
        return reply, out

    def compile_program(self, source) -> bytes | str:
        """The current program's marshalled code, or its compile error. The compiler process
        compiles it: CPython's compiler leaves copies of a source all over the heap it ran in
        (tokenizer buffers, the AST, constants), and no child is ever forked from that one.
        The zygote holds only the source and the marshalled code, both zeroed when the next
        program replaces them; children unmarshal their own copy."""
        if self.compiled is not None and self.compiled[0] == source:
            return self.compiled[1]
        self.forget_compiled()
        # Copies the zygote owns, as bytearrays: zeroed in place without ctypes (the request's
        # own buffer and the compiler's reply are scrubbed after the request)
        key = bytearray(source)
        compiled = self.compiler.compile(key)
        if isinstance(compiled, str):
            scrub(key)
            return compiled
        marshalled = bytearray(compiled)
        scrub(compiled)
        self.compiled = (key, marshalled)
        return marshalled

    def compiled_prelude(self, source: str):
        """A prelude's item for ``_trusted_code`` (None: there is none). Preludes are the
        problem's, not secret (the candidate runs them): the last few are kept here."""
        if not source:
            return None
        item = self.preludes.get(source)
        if item is None:
            try:
                data = source.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # (a lone surrogate: the child compiles the text itself)
                return ("source", source)
            item = self.compile_trusted(data, "<prelude>")
            if len(self.preludes) >= 4:
                self.preludes.clear()
            self.preludes[source] = item
        return item

    def compile_trusted(self, source, filename: str):
        """Trusted code for ``_trusted_code``: compiled by the compiler process (a child then
        only unmarshals it: compiling in a forked child cost it ~110 copy-on-write faults and
        ~0.5 ms per test), or handed on as source without one."""
        if not self.compiler.separate:  # (``source`` itself: its owner zeroes it)
            return ("source", source)
        compiled = self.compiler.compile(source, filename)
        if isinstance(compiled, str):
            return compiled
        item = bytearray(compiled)  # (a copy the owner can zero; the reply's is zeroed now)
        scrub(compiled)
        return item

    # -- spare children: forked and set up while the host is busy ----------------------------
    def prepare_spare(self, limits: dict) -> None:
        """Fork the next child ahead of its test (after the reply, so off the critical path).
        It sets itself up completely — fds, scratch, limits, uid, seccomp, stdio — and waits
        for its task: the marshalled program and the test."""
        if self.spare is not None and self.spare.limits == limits:
            return
        self.discard_spare()
        self.clean_scratch()
        stdin_fd = os.memfd_create("stdin", 0)
        task_r, task_w = os.pipe()
        ready_r, ready_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        self.reset_pid_counter()
        self.rlimit_table(limits)
        pid = os.fork()
        if pid == 0:  # ---- child: never returns
            self.spare_child(limits, task_r, ready_w, stdin_fd, out_w, err_w, res_w)
        self.charge_to_test(pid, limits)  # before its task exists: nothing escapes the cgroup
        for fd in (task_r, ready_w, out_w, err_w, res_w):
            os.close(fd)
        self.spare = _Spare(pid, limits, task_w, ready_r, stdin_fd, out_r, err_r, res_r)
        self.scratch_dirty = True

    def take_spare(self, limits: dict) -> _Spare:
        """The spare for the next test, its set-up finished. Waiting for the set-up matters
        for timing: a spare forked just before its task arrives has not run yet (on a pinned
        core the zygote keeps the CPU), and its whole set-up would otherwise be charged to
        the program's CPU time — sometimes, depending on a race with the host."""
        self.prepare_spare(limits)
        spare, self.spare = self.spare, None
        with contextlib.suppress(OSError):  # b"" if it died: the task write then fails and retries
            spare.ready = os.read(spare.ready_r, 1)  # b"r", or b"F" (its set-up failed)
        return spare

    def discard_spare(self) -> None:
        spare, self.spare = self.spare, None
        if spare is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(spare.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(spare.pid, 0)
        spare.close()

    def clean_scratch(self) -> None:
        """Make the next run's scratch directory (and /dev/shm) empty."""
        if self.scratch_dirty:
            _remove_tree(SCRATCH)
            self.clear_shared_memory()
            self.wait_for_bound_sockets()
            os.mkdir(SCRATCH, 0o700)
            if self.can_setuid:
                os.chown(SCRATCH, self.config["uid"], self.config["gid"])
            self.scratch_dirty = False

    def reset_pid_counter(self) -> None:
        """As pid 1 of the sandbox's pid namespace (every process of the last test killed and
        reaped): make the next pid a fixed number, so each test's processes get the same pids
        whatever earlier tests forked (a program cannot learn from its pid how many processes
        an earlier repeat started)."""
        if self.is_init and self.pid_counter_fd is not None:
            with contextlib.suppress(OSError):  # (then counting simply goes on)
                os.pwrite(self.pid_counter_fd, b"%d" % _FIRST_PID_MINUS_1, 0)

    def forget_compiled(self) -> None:
        """Drop the cached program, its source and marshalled code zeroed first."""
        compiled, self.compiled = self.compiled, None
        if compiled is not None:
            scrub(*compiled)

    def forget_in_child(self) -> None:
        """In a just-forked child: drop what belongs to other runs (the compiled program, the
        results of earlier repeats), so nothing the program can reach through ``gc`` or its
        frames holds another run's data."""
        # (this copy of the cached program: the child unmarshals its own from its task)
        self.forget_compiled()
        for run in self.live_runs:  # (an earlier repeat's output: zeroed in this copy)
            scrub(*(v for v in run.values() if type(v) is bytes))
            run.clear()
        self.live_runs.clear()

    @staticmethod
    def send_task(fd: int, test: dict, code, prelude) -> None:
        """A spare's task: the test, the marshalled program and the prelude's item."""
        if isinstance(prelude, (bytes, bytearray)):
            write_message(fd, {"test": test, "prelude": "code"}, code, prelude)
        else:  # (None, a compile error, or ("source", text))
            kind = ["source", _text(prelude[1])] if isinstance(prelude, tuple) else prelude
            write_message(fd, {"test": test, "prelude": kind}, code)

    @staticmethod
    def received_prelude(header: dict, payloads: list):
        kind = header.get("prelude")
        if kind == "code":
            return payloads[1]
        return tuple(kind) if isinstance(kind, list) else kind

    def spare_child(self, limits, task_r, ready_w, stdin_fd, out_w, err_w, res_w) -> None:
        global _STATUS_FD
        _STATUS_FD = 5  # the status channel (see _setup_failed), the zygote's ready pipe
        try:
            self.forget_in_child()
            self.setup_process(limits, stdin_fd, out_w, err_w, res_w, (task_r, ready_w), drop=False)
            os.write(5, b"r")  # set up: whatever CPU it used so far is not the program's
        except BaseException as exc:
            _setup_failed(f"{type(exc).__name__}: {exc}")
        try:
            header, payloads = read_message(4, exact=_COUNTING["on"])
        except BaseException:  # discarded before it got a task
            os._exit(0)
        try:
            os.close(4)
            # A spare waits as root, so no process of the sandbox's uid exists between tests.
            self.drop_privileges()
            code = marshal.loads(payloads[0])
            prelude = self.received_prelude(header, payloads)
        except BaseException as exc:
            _setup_failed(f"{type(exc).__name__}: {exc}")
        _run_program(code, header["test"], prelude)

    # -- one execution -----------------------------------------------------------------------
    def run_once(self, code: bytes, test: dict, limits: dict, stdin: bytes) -> dict:
        """One stdin/stdout or call-based test on a spare child."""
        self.runs += 1
        for attempt in range(2):
            spare = self.take_spare(limits)
            _write_all(spare.stdin_fd, stdin)
            os.lseek(spare.stdin_fd, 0, os.SEEK_SET)
            os.close(spare.stdin_fd)
            self.read_count_log()  # (what earlier processes wrote: not this test's)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            setup_s = _process_cpu_s(spare.pid)  # the child's own set-up is not the program's
            clock = self.program_clock(spare.pid, setup_s)
            start = time.perf_counter()
            try:
                prelude = self.compiled_prelude(test.get("prelude", ""))
                self.send_task(spare.task_w, test, code, prelude)
                break
            except BrokenPipeError:  # the spare died waiting (killed from outside): once more
                self.kill_everything(spare.pid)
                spare.close()
                if attempt:
                    raise
            finally:
                os.close(spare.task_w)
        fds = {"stdout": spare.out_r, "stderr": spare.err_r, "result": spare.res_r}
        outcome, status, wall_s, streams, rusage, hit = self.supervise(
            spare.pid, start, limits, fds, clock
        )
        self.kill_everything(spare.pid)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu_s = max(0.0, clock() if self.counts_cpu else cpu_s - setup_s)
        result = _raw_result(
            outcome, status, cpu_s, wall_s, rusage, streams, hit, self.memory_exceeded()
        )
        result["setup_failed"], result["memory_error"] = read_status(spare.ready_r, spare.ready)
        spare.ready_r = -1
        self.add_count_log(result, spare.pid)
        return result

    def run_assert(self, code, test: dict, limits: dict, payloads: list[bytes]) -> dict:
        """An assert-style test: two processes. The checker runs the (trusted) test code and
        holds every expected value; it is forked first, while the zygote still has the test
        code. The zygote then zeroes its only copy, and only then forks the candidate, which
        serves calls."""
        self.runs += 1
        self.discard_spare()
        self.clean_scratch()
        self.scratch_dirty = True
        stdin_fd = os.memfd_create("stdin", 0)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        secret = payloads[1]
        calls_r, calls_w = os.pipe()  # checker → candidate
        answers_r, answers_w = os.pipe()  # candidate → checker
        devnull = os.open("/dev/null", os.O_WRONLY)
        checker_status_r, checker_status_w = os.pipe()
        status_r, status_w = os.pipe()
        prelude = self.compiled_prelude(test.get("prelude", ""))
        checker_prelude = self.compiled_prelude(test.get("checker_prelude", test.get("prelude")))
        # the test's code, compiled by the compiler process: zeroed with its source below
        test_code = self.compile_trusted(secret, "<test>")
        self.reset_pid_counter()
        self.rlimit_table(limits)
        self.read_count_log()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            trusted = (checker_prelude, test_code)
            peer = (answers_r, calls_w, checker_status_w)
            self.child(None, test, limits, stdin_fd, devnull, devnull, res_w, peer, trusted)
        secret[:] = bytes(len(secret))
        if isinstance(test_code, bytearray):
            scrub(test_code)
        del test_code
        self.enter_test_cgroup(limits)  # the candidate (and all it starts) is born there
        candidate = os.fork()
        if candidate == 0:  # no result pipe for the candidate: fd 3 is /dev/null
            peer = (calls_r, answers_w, status_w)
            self.child(code, test, limits, stdin_fd, out_w, err_w, devnull, peer, prelude)
        clock = self.leave_test_cgroup(candidate)
        for fd in (devnull, calls_r, calls_w, answers_r, answers_w, stdin_fd, out_w, err_w, res_w):
            os.close(fd)
        os.close(checker_status_w)
        os.close(status_w)
        outcome, status, wall_s, streams, _, hit = self.supervise(
            pid, start, limits, {"stdout": out_r, "stderr": err_r, "result": res_r}, clock
        )
        if self.count_log_fd is not None and outcome == "exited":  # written when it ends
            self.await_exit(candidate, limits)
        self.kill_tree(candidate)  # time the candidate, not the checker
        _, cand_status, rusage = os.wait4(candidate, 0)
        self.kill_everything(pid)
        # the candidate's process tree (helpers included) with a cgroup; else its own rusage
        cpu_s = max(0.0, clock()) if self.counts_cpu else rusage.ru_utime + rusage.ru_stime
        result = _raw_result(
            outcome, status, cpu_s, wall_s, rusage, streams, hit, self.memory_exceeded()
        )
        if os.WIFSIGNALED(cand_status) and os.WTERMSIG(cand_status) == signal.SIGXCPU:
            result["limit_hit"] = "cpu"  # the kernel's CPU limit stopped the candidate
        checker_failed, _ = read_status(checker_status_r)
        result["setup_failed"], result["memory_error"] = read_status(status_r)
        result["setup_failed"] = checker_failed or result["setup_failed"]
        self.add_count_log(result, candidate, pid)
        return result

    # -- counting (a zygote under Valgrind) --------------------------------------------------
    def read_count_log(self) -> str:
        """What Valgrind wrote to its log since the last read ("" when not counting)."""
        if self.count_log_fd is None:
            return ""
        chunks = []
        while True:
            try:
                data = os.read(self.count_log_fd, 1 << 16)
            except BlockingIOError:
                break
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks).decode("utf-8", "replace")

    def add_count_log(self, result: dict, program_pid: int, *others: int) -> None:
        """A counted test's log (every process of it has ended): the host finds the program's
        total and its twin's there (the twin is the one process that is neither the program
        nor one of ``others``)."""
        if self.count_log_fd is not None:
            result["count_log"] = self.read_count_log()[-20000:]
            result["count_pids"] = [program_pid, *others]

    def await_exit(self, pid: int, limits: dict) -> None:
        """An assert test's candidate ends by itself once its checker has hung up (its count is
        written at its exit; a killed one has none): wait for it, within the wall limit."""
        deadline = time.monotonic() + min(limits["wall_time_s"], _CANDIDATE_EXIT_S)
        while time.monotonic() < deadline:  # (pidfd_open is not there under Valgrind 3.19)
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return
            time.sleep(_EXIT_POLL_S)

    def supervise(self, pid: int, start: float, limits: dict, fds: dict[str, int], cpu_used):
        """Collect ``pid``'s output until it exits or a limit is hit. The wall-clock limit
        runs from ``start``; ``cpu_used()`` (the program's CPU seconds so far: its test cgroup's,
        or its own process clock without one) is read every 20 ms while it runs, and reaching
        the CPU limit stops it. Returns (outcome,
        status, wall_s, streams, rusage, limit_hit)."""
        caps = {
            "stdout": limits["max_output_bytes"],
            "stderr": 64 * 1024,
            "result": limits["max_output_bytes"],
        }
        chunks = {name: [] for name in fds}
        sizes = dict.fromkeys(fds, 0)
        deadline = start + limits["wall_time_s"]
        cpu_limit = limits["cpu_time_s"]
        # Only a CPU limit below the wall limit needs watching: a program that reaches it
        # first is stopped here (its threads count together); polls cost one clock read.
        cpu_check = None
        if cpu_limit < limits["wall_time_s"]:
            cpu_check = start + min(cpu_limit, _CPU_POLL_S)
        limit_hit = None
        pidfd = _pidfd_open(pid)
        names = {fd: name for name, fd in fds.items()}
        poller = select.poll()
        for fd in names:
            os.set_blocking(fd, False)
            poller.register(fd, select.POLLIN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        open_fds = set(names)
        outcome, status, rusage, wall_s, exited = "exited", None, None, None, False
        while True:
            now = time.perf_counter()
            if now >= deadline:
                if not exited:
                    outcome, limit_hit = "timeout", "wall"
                break  # (after exit: descendants still hold the pipes; they are killed below)
            wait_s = deadline - now
            if cpu_check is not None and not exited:
                if now >= cpu_check:
                    used = cpu_used()
                    if used >= cpu_limit:
                        outcome, limit_hit = "timeout", "cpu"
                        break
                    cpu_check = now + min(cpu_limit - used, _CPU_POLL_S)
                wait_s = min(wait_s, max(0.0, cpu_check - now))
            if pidfd is None and not exited:  # no pidfd: look for its exit every few ms
                reaped, status, rusage = os.wait4(pid, os.WNOHANG)
                if reaped:
                    wall_s, exited = time.perf_counter() - start, True
                    deadline = min(deadline, time.perf_counter() + 0.05)  # short drain
                wait_s = min(wait_s, _EXIT_POLL_S)
            events = poller.poll(wait_s * 1000)
            if exited and not events:
                break
            for fd, _ in events:
                if fd == pidfd:
                    _, status, rusage = os.wait4(pid, 0)
                    wall_s = time.perf_counter() - start
                    exited = True
                    deadline = min(deadline, time.perf_counter() + 0.05)  # short drain
                    poller.unregister(pidfd)
                    continue
                try:
                    data = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                name = names[fd]
                if not data:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                    continue
                sizes[name] += len(data)
                if sizes[name] <= caps[name]:
                    chunks[name].append(data)
                elif name == "stderr":  # keep its *tail*: the error that ends it is last
                    joined = _joined(chunks[name])
                    whole = bytearray(len(joined) + len(data))
                    whole[: len(joined)], whole[len(joined) :] = joined, data
                    chunks[name] = [bytes(memoryview(whole)[-caps[name] :])]
                    scrub(joined, data, whole)
                else:
                    outcome = "output_limit"
            if outcome == "output_limit" or (exited and not open_fds):
                break
        if not exited:
            self.kill_tree(pid)
            _, status, rusage = os.wait4(pid, 0)
            wall_s = time.perf_counter() - start
            if outcome == "timeout":
                status = None
        if pidfd is not None:
            os.close(pidfd)
        for fd in fds.values():
            os.close(fd)
        streams = {k: _joined(v) if v else b"" for k, v in chunks.items()}
        return outcome, status, wall_s, streams, rusage, limit_hit

    def kill_tree(self, pid: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        if self.is_init:
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)  # pid 1: everything in the namespace but us

    def kill_everything(self, pid: int) -> None:
        """No process of a test outlives it: as pid 1 of the sandbox we kill every other
        process in the namespace and reap it (its CPU time is counted by then)."""
        self.kill_tree(pid)
        while True:
            try:
                reaped, _ = os.waitpid(-1, 0 if self.is_init else os.WNOHANG)
            except ChildProcessError:
                return
            if reaped == 0:
                return

    def wait_for_bound_sockets(self) -> None:
        """The sandbox's network namespace is shared by its tests: a unix socket bound to a
        name (abstract ones included) that outlives its test — kept alive only by being in
        flight in a cycle of SCM_RIGHTS messages, until the kernel's garbage collector frees
        it — could be reached by the next test. Wait for the collector; if such a socket is
        still there after _SOCKET_WAIT_S, this zygote must not serve on (a fresh one has a
        fresh namespace)."""
        if not self.config.get("own_network"):
            return
        deadline = time.monotonic() + _SOCKET_WAIT_S
        while _bound_unix_sockets():
            if time.monotonic() >= deadline:
                raise _CleanupFailed("a named unix socket outlived its test")
            # Releasing a unix socket while fds are in flight makes the kernel collect them.
            fd = _libc.socket(_AF_UNIX, 2, 0)  # SOCK_DGRAM; the zygote has no socket module
            if fd >= 0:
                os.close(fd)
            time.sleep(0.002)

    def clear_shared_memory(self) -> None:
        if os.path.isdir("/dev/shm") and self.config["fs_isolation"]:
            _remove_tree("/dev/shm", keep_root=True)

    # -- the child ---------------------------------------------------------------------------
    def child(self, code, test, limits, stdin_fd, out_w, err_w, res_w, peer, trusted) -> None:
        """Set up and run one process of an assert test; never returns. ``peer`` is the
        (read, write) pair of the call channel and the status channel, placed on fds 4-6;
        ``trusted``: the candidate's prelude item, or the checker's (prelude, test code)."""
        global _STATUS_FD
        _STATUS_FD = 6
        try:
            program = marshal.loads(code) if code is not None else None
            self.forget_in_child()
            self.setup_process(limits, stdin_fd, out_w, err_w, res_w, peer)
        except BaseException as exc:
            _setup_failed(f"{type(exc).__name__}: {exc}")
        if program is None:
            _run_checker(test, *trusted)
        _run_program(program, test, trusted)

    def setup_process(self, limits, stdin_fd, out_w, err_w, res_w, extra=(), drop=True) -> None:
        """In a fresh child: own process group, fds 0-3 (+ ``extra`` from 4), scratch as cwd,
        limits and (with ``drop``) the unprivileged uid. Seccomp is inherited."""
        os.setpgid(0, 0)
        # The zygote (pid 1) ignores SIGINT and SIGTERM; a program gets Python's own
        # dispositions back. Inherited SIG_IGN made multiprocessing.Pool.terminate() hang on
        # workers that ignored its SIGTERM.
        # (``_signal`` itself: ``signal.signal``'s enum conversions cost each child ~30
        # copy-on-write page faults, ~75 us)
        _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        os.dup2(stdin_fd, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.dup2(res_w, 3)
        for i, fd in enumerate(extra):
            os.dup2(fd, 4 + i)
        _close_fds_from(4 + len(extra))
        os.chdir(SCRATCH)
        self.apply_limits(limits)
        if drop:
            self.drop_privileges()

    def drop_privileges(self) -> None:
        if self.can_setuid:
            os.setgroups([])
            os.setresgid(self.config["gid"], self.config["gid"], self.config["gid"])
            os.setresuid(self.config["uid"], self.config["uid"], self.config["uid"])
        if not self.is_init:  # (as pid 1, our death kills the whole namespace anyway)
            _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # after setuid: it clears it

    # -- accounting: the test cgroup ---------------------------------------------------------
    @property
    def cgroup(self) -> _TestCgroup | None:
        return self.config.get("cgroup")

    @property
    def counts_cpu(self) -> bool:
        return self.cgroup is not None and self.cgroup.counts_cpu

    def memory_bytes(self, limits: dict) -> int:
        """The memory bound of one process (RLIMIT_AS) and of a whole test (its cgroup)."""
        return self.base_vm_bytes + limits["memory_mb"] * 1024 * 1024

    def charge_to_test(self, pid: int, limits: dict) -> None:
        """A freshly forked spare goes into the test cgroup, under this test's memory limit."""
        if self.cgroup is not None:
            self.cgroup.limit_memory(self.memory_bytes(limits))
            self.cgroup.join(pid)

    def enter_test_cgroup(self, limits: dict) -> None:
        if self.cgroup is not None:
            self.cgroup.limit_memory(self.memory_bytes(limits))
            self.cgroup.enter()

    def leave_test_cgroup(self, pid: int):
        """Back to the server cgroup; returns the clock of the test begun in there."""
        if self.cgroup is not None:
            self.cgroup.leave()
        return self.program_clock(pid, 0.0)

    def program_clock(self, pid: int, setup_s: float):
        """A function giving the CPU seconds the test's programs used from now on: the test
        cgroup's whole process tree, or (without one) ``pid``'s own clock less its set-up."""
        if self.counts_cpu:
            cgroup = self.cgroup
            base = cgroup.cpu_s()
            return lambda: cgroup.cpu_s() - base
        return lambda: _process_cpu_s(pid) - setup_s

    def memory_exceeded(self) -> bool:
        return self.cgroup is not None and self.cgroup.memory_exceeded()

    def rlimit_table(self, limits: dict) -> tuple:
        """The resource limits of ``limits`` as ((resource, (soft, hard)), ...), built once
        in the zygote before the fork (a child that builds it takes ~10 copy-on-write faults)."""
        if self.rlimits is not None and self.rlimits[0] is limits:
            return self.rlimits[1]
        memory = self.memory_bytes(limits)
        table = [
            (resource.RLIMIT_AS, memory),
            (resource.RLIMIT_FSIZE, limits["max_file_bytes"]),
            (resource.RLIMIT_NOFILE, limits["max_open_files"]),
            (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_STACK, limits["stack_mb"] * 1024 * 1024),
            # no real-time scheduling and no raised priority: the worker's core is timed
            (resource.RLIMIT_RTPRIO, 0),
            (resource.RLIMIT_NICE, 0),
        ]
        if self.can_setuid:  # counts per uid: meaningful only with a uid of our own
            table.append((resource.RLIMIT_NPROC, limits["max_processes"]))
        self.rlimits = (limits, tuple((res, (value, value)) for res, value in table))
        return self.rlimits[1]

    def apply_limits(self, limits: dict) -> None:
        # The kernel's CPU limit: SIGXCPU at the limit in whole seconds, SIGKILL a second later
        # (for a program that ignores SIGXCPU). The supervisor stops it sooner, to 20 ms. The
        # kernel counts the whole process, so the CPU its set-up used so far (fork's page
        # copies: 0.1 s on a loaded machine) is added, lest it stop a program short of its
        # limit with a verdict that says the limit was reached.
        cpu = math.ceil(limits["cpu_time_s"] + time.process_time())
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        for res, pair in self.rlimit_table(limits):
            try:
                resource.setrlimit(res, pair)
            except ValueError:  # (only under Valgrind, which keeps some hard limits: lower soft)
                if self.count_log_fd is None:
                    raise
                hard = resource.getrlimit(res)[1]
                resource.setrlimit(res, (min(pair[0], hard), hard))


_SOCKET_WAIT_S = 1.0
_EXIT_POLL_S = 0.002
"""Without pidfd_open (Valgrind 3.19 does not know the syscall), how often a child's exit is
looked for."""


def _reap_orphans() -> None:
    """As pid 1: kill and reap whatever a request's process left behind (re-parented here)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, 0)[0]:
            pass


def _pidfd_open(pid: int) -> int | None:
    """A pidfd for ``pid``, or None where the system call is missing (ENOSYS)."""
    try:
        return os.pidfd_open(pid)
    except OSError as exc:
        if exc.errno != errno.ENOSYS:
            raise
        return None


_CANDIDATE_EXIT_S = 60.0


def _bound_unix_sockets() -> int:
    """How many unix sockets with a name (a path or an abstract one) this network namespace
    has; the zygote itself has none."""
    try:
        with open("/proc/net/unix", "rb") as f:
            lines = f.read().splitlines()[1:]
    except OSError:
        return 0
    return sum(1 for line in lines if len(line.split()) >= 8)


_FIRST_PID_MINUS_1 = 99
"""The pid counter is set to this before each test's first fork (its first process is 100)."""


class _ZygoteBroken(Exception):
    """The zygote's own state is not trustworthy any more (e.g. scratch it could not clean)."""


class _CleanupFailed(OSError):
    """Scratch or /dev/shm could not be emptied (too deep, too many entries, unremovable)."""


def _lock_down(config: dict) -> None:
    """The seccomp filter (and no_new_privs), installed once after the privileged set-up:
    the process needs none of the denied calls any more and every child inherits it
    (installing it per child cost ~0.2 ms of page faults)."""
    if config["seccomp"] and SECCOMP_SUPPORTED:
        install_seccomp(build_seccomp_filter())
    else:
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def compile_source(source: bytes, filename: str = "<program>") -> bytes | str:
    """A program's (or trusted code's) marshalled code, or its compile error (any failure of
    the parser, its own limits included: deep nesting is a MemoryError or RecursionError)."""
    try:
        code = compile(source.decode("utf-8", errors="surrogateescape"), filename, "exec")
        return marshal.dumps(code)
    except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        return _compile_error_line(exc)


class _Compiler:
    """The zygote's side of the worker's compiler: a second sandboxed process (its own
    namespaces and root, seccomp; started by the host next to the zygote) that compiles each new
    program and returns its marshalled code. CPython's compiler leaves copies of a source in
    the heap it ran in (tokenizer buffers, the AST, constants); that heap is never forked, so
    no program inherits another's source. Without one (``fds`` None) it compiles here."""

    def __init__(self, fds) -> None:
        self.request_fd, self.reply_fd = fds if fds else (-1, -1)
        if fds:  # its greeting: it is up (or why not)
            ready, _ = read_message(self.reply_fd)
            if not ready.get("ready"):
                raise RuntimeError(f"the compiler did not start: {ready.get('error')}")

    @property
    def separate(self) -> bool:
        """Whether compiling happens in the compiler process (not in this one)."""
        return self.request_fd >= 0

    def compile(self, source: bytes, filename: str = "<program>") -> bytes | str:
        if not self.separate:
            return compile_source(source, filename)
        write_message(self.request_fd, {"op": "compile", "filename": filename}, source)
        try:
            reply, payloads = read_message(self.reply_fd, exact=_COUNTING["on"])
        except EOFError:  # it died on this source (or was killed): the worker is restarted
            raise RuntimeError("the compiler process died") from None
        if "compile_error" in reply:
            return str(reply["compile_error"])[:2000]
        return payloads[0]


def _serve_compiler(config: dict) -> None:
    """The compiler process: compile what the zygote sends until it closes the channel."""
    request_fd, reply_fd = config["request_fd"], config["reply_fd"]
    # (as the zygote did when it compiled: it stays root in its own namespaces, so no process
    # of the sandbox's uid exists between tests)
    _lock_down(config)
    write_message(reply_fd, {"ready": True})
    cache = _CompileCache()
    while True:
        try:
            header, payloads = read_message(request_fd)
        except EOFError:
            return
        compiled = cache.compile(bytes(payloads[0]), str(header.get("filename", "<program>")))
        del payloads
        if isinstance(compiled, str):
            write_message(reply_fd, {"compile_error": compiled})
        else:
            write_message(reply_fd, {"ok": True}, compiled)
        del compiled


class _CompileCache:
    """The compiler process's last ``entries`` results (sources of up to ``max_source`` bytes):
    a group of samples of one problem shares its tests' code and prelude (and resubmitted
    programs recur), so most of a batch's compiles are one dictionary lookup. It lives in the
    compiler process only, which never forks and never runs a program."""

    def __init__(self, entries: int = 128, max_source: int = 1 << 16) -> None:
        self.entries, self.max_source = entries, max_source
        self.results: dict[tuple[str, bytes], bytes | str] = {}  # least recently used first
        self.hits = 0

    def compile(self, source: bytes, filename: str) -> bytes | str:
        key = (filename, source)
        compiled = self.results.pop(key, None)
        if compiled is None:
            compiled = compile_source(source, filename)
        else:
            self.hits += 1
        if len(source) <= self.max_source:
            self.results[key] = compiled
            while len(self.results) > self.entries:
                del self.results[next(iter(self.results))]
        return compiled


class _CompileFailed(Exception):
    """Trusted code (a prelude, an assert test's code) that does not compile; its message is
    the compiler's error line."""


def _trusted_code(item, filename: str):
    """In a child: the code object of trusted code the zygote passed on. ``item`` is its
    marshalled code (bytes: the worker's compiler compiled it), its compile error (str), or
    ``("source", text)`` without a compiler process (compiled here in the child, never in the
    zygote: an assert test's code must not reach the heap the candidate is forked from)."""
    if isinstance(item, tuple):
        return compile(_text(item[1]), filename, "exec")
    if isinstance(item, str):
        raise _CompileFailed(item)
    return marshal.loads(item)


def _text(source) -> str:
    return source if isinstance(source, str) else bytes(source).decode("utf-8", "surrogateescape")


def _compile_error_line(exc: BaseException) -> str:
    try:
        return _format_exc_line(exc)
    except BaseException:  # out of memory while formatting: the type still names it
        return type(exc).__name__


class _Spare:
    """A child forked ahead of its test, and the zygote's ends of its pipes."""

    __slots__ = ("err_r", "limits", "out_r", "pid", "ready", "ready_r", "res_r", "stdin_fd")
    __slots__ += ("task_w",)

    def __init__(self, pid, limits, task_w, ready_r, stdin_fd, out_r, err_r, res_r) -> None:
        self.pid, self.limits, self.task_w, self.ready_r = pid, limits, task_w, ready_r
        self.ready = b""  # the first byte of its status channel, once read
        self.stdin_fd, self.out_r, self.err_r, self.res_r = stdin_fd, out_r, err_r, res_r

    def close(self) -> None:
        for fd in (self.task_w, self.ready_r, self.stdin_fd, self.out_r, self.err_r, self.res_r):
            with contextlib.suppress(OSError):
                os.close(fd)


def _raw_result(
    outcome, status, cpu_s, wall_s, rusage, streams, limit_hit=None, memory_exceeded=False
) -> dict:
    result = {
        "outcome": outcome,
        "limit_hit": limit_hit,
        # the kernel's memory accounting (the test's memory cgroup killed a process for it)
        "memory_exceeded": memory_exceeded,
        "exit_code": None,
        "signal": None,
        "cpu_s": cpu_s,
        "wall_s": wall_s,
        "max_rss_mb": (rusage.ru_maxrss / 1024) if rusage else 0.0,
        **streams,
    }
    if status is not None:
        if os.WIFSIGNALED(status):
            result["signal"] = os.WTERMSIG(status)
        else:
            result["exit_code"] = os.WEXITSTATUS(status)
    return result


_CPU_POLL_S = 0.02
"""How often the supervisor reads a running program's CPU clock (the CPU limit's precision)."""


def _process_cpu_s(pid: int) -> float:
    """CPU time used so far by another process (its process CPU clock), 0 if unreadable."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)  # MAKE_PROCESS_CPUCLOCK(pid, SCHED)
    except OSError:
        return 0.0


class _TestCgroup:
    """The worker's accounting cgroups, held open from before pivot_root. The zygote lives in
    ``server``; a test's processes in ``test`` (a spare is moved there right after its fork,
    an assert test's candidate is forked there), one test at a time. ``test`` counts the CPU
    time of its whole process tree (v1 ``cpuacct.usage``, v2 ``cpu.stat``) — whatever
    reaps or re-parents them — and bounds its memory, memfd and tmpfs pages included."""

    def __init__(self, spec: dict) -> None:
        self.server = [os.open(p, os.O_WRONLY) for p in spec["server_procs"]]
        self.test = [os.open(p, os.O_WRONLY) for p in spec["test_procs"]]
        cpu, memory = spec.get("cpu"), spec.get("memory")
        self.cpu_fd = os.open(cpu["usage"], os.O_RDONLY) if cpu else -1
        self.cpu_v2 = bool(cpu) and cpu["version"] == 2
        self.limit_fd = self.memsw_fd = self.events_fd = -1
        self.memory_v2 = bool(memory) and memory["version"] == 2
        if memory:
            self.limit_fd = os.open(memory["limit"], os.O_WRONLY)
            self.events_fd = os.open(memory["events"], os.O_RDONLY)
            if memory.get("memsw"):
                self.memsw_fd = os.open(memory["memsw"], os.O_WRONLY)
            if memory.get("swap") and os.path.exists(memory["swap"]):
                with open(memory["swap"], "w") as f:
                    f.write("0")  # (v2) no swapping instead of failing
        self.memory_bytes = 1 << 62  # a fresh cgroup is unlimited
        self.oom_kills = self.read_oom_kills()
        self.leave()

    @classmethod
    def open(cls, spec: dict | None) -> _TestCgroup | None:
        return cls(spec) if spec else None

    @property
    def counts_cpu(self) -> bool:
        return self.cpu_fd >= 0

    def join(self, pid: int) -> None:
        """Move ``pid`` (a spare that has not got its task yet) into the test cgroup."""
        for fd in self.test:
            os.write(fd, b"%d" % pid)

    def enter(self) -> None:
        """Move the zygote itself into the test cgroup (what it forks now starts there)."""
        for fd in self.test:
            os.write(fd, b"0")

    def leave(self) -> None:
        for fd in self.server:
            os.write(fd, b"0")

    def cpu_s(self) -> float:
        """CPU time (user + system) the test cgroup's processes used so far, alive or dead."""
        data = os.pread(self.cpu_fd, 4096, 0)
        if not self.cpu_v2:
            return int(data) / 1e9
        for line in data.split(b"\n"):
            if line.startswith(b"usage_usec "):
                return int(line.split()[1]) / 1e6
        return 0.0

    def limit_memory(self, limit_bytes: int) -> None:
        """The memory limit of the test cgroup (written only when it changes)."""
        if self.limit_fd < 0 or limit_bytes == self.memory_bytes:
            return
        value = b"%d" % limit_bytes
        # v1: memory+swap must stay >= memory, so raising writes it first and lowering last.
        # Which one this is is not taken from memory_bytes: a counted zygote's requests are
        # answered by forks, whose writes its own copy never sees.
        if self.memsw_fd >= 0:
            with contextlib.suppress(OSError):  # (EINVAL when lowering: written again below)
                os.write(self.memsw_fd, value)
        os.write(self.limit_fd, value)
        if self.memsw_fd >= 0:
            os.write(self.memsw_fd, value)
        self.memory_bytes = limit_bytes

    def read_oom_kills(self) -> int:
        if self.events_fd < 0:
            return 0
        for line in os.pread(self.events_fd, 4096, 0).split(b"\n"):
            if line.startswith(b"oom_kill "):
                return int(line.split()[1])
        return 0

    def memory_exceeded(self) -> bool:
        """Whether the kernel killed a process of the test cgroup for memory since the last
        call (v1 ``memory.oom_control``, v2 ``memory.events``: ``oom_kill``)."""
        if self.events_fd < 0:
            return False
        kills = self.read_oom_kills()
        exceeded, self.oom_kills = kills > self.oom_kills, kills
        return exceeded


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


def _install_stdio() -> None:
    """Install the children's text streams in the zygote itself, once: a child then has
    them from birth. (Installing them in each child cost ~70 copy-on-write page faults: the
    interpreter's original streams were finalised there.) The zygote never writes to them —
    it reports over its own pipes — so their buffers stay empty. The originals are kept."""
    global _ORIGINAL_STDIO
    _ORIGINAL_STDIO = (sys.stdin, sys.stdout, sys.stderr)
    sys.stdin, sys.stdout, sys.stderr = _build_stdio()
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr


class _Quitter:
    """``exit`` and ``quit`` as the ``site`` module defines them (the sandbox runs ``-S``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Use {self.name}() or Ctrl-D (i.e. EOF) to exit"

    def __call__(self, code=None):
        with contextlib.suppress(Exception):
            sys.stdin.close()
        raise SystemExit(code)


def _script_namespace(path: str) -> dict:
    """The globals of a script run as ``python3 path``: a module's, registered as
    ``sys.modules["__main__"]`` (pickle finds the program's functions there, as
    ``multiprocessing.Pool.map`` needs), and the ``exit``/``quit`` built-ins that ``site``
    would have added (installed in the child only: the host imports this file)."""
    if not hasattr(builtins, "exit"):
        builtins.exit, builtins.quit = _Quitter("exit"), _Quitter("quit")
    module = type(sys)("__main__")  # (__name__, __doc__, __package__, __loader__, __spec__)
    namespace = module.__dict__
    namespace.update(__annotations__={}, __builtins__=builtins, __file__=path, __cached__=None)
    sys.modules["__main__"] = module
    return namespace


def _run_prelude(prelude, namespace: dict) -> dict:
    """Run the trusted prelude (its ``_trusted_code`` item; None: there is none) in the
    program's namespace; returns the classes it defines. Its failure is the sandbox's, not
    the program's (set-up failure: inconclusive)."""
    if prelude is None:
        return {}
    try:
        exec(_trusted_code(prelude, "<prelude>"), namespace)
    except BaseException as exc:
        _setup_failed(f"the prelude raised {_trusted_failure_line(exc)}")
    return _prelude_classes(namespace)


def _trusted_failure_line(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, _CompileFailed) else _format_exc_line(exc)


_STATUS_FD = -1
"""In a child: the write end of its status channel to the zygote. Before any of the program's
code runs, only trusted code writes there: ``F`` + a message (set-up failed), then ``S`` (the
program starts). After ``S`` the program could write too, so nothing after it is trusted
except as the program's own claim (``M``: a MemoryError reached the top level, which the
program could equally cause by raising one)."""


def _setup_failed(message: str) -> None:
    """The sandbox (not the program) failed before the program started: say so on the status
    channel, which the program has never been able to write to, and exit."""
    with contextlib.suppress(BaseException):
        os.write(_STATUS_FD, b"F" + message.encode("utf-8", "replace")[:2000])
    os._exit(121)


def read_status(fd: int, first: bytes = b"") -> tuple[str | None, bool]:
    """Zygote side: (set-up failure message or None, whether a MemoryError reached the top
    level) from a finished child's status channel; ``first``: a byte already read from it
    (a spare's ``r`` is dropped). Closes ``fd``."""
    try:
        os.set_blocking(fd, False)
        data = os.read(fd, 4096)
    except OSError:
        data = b""
    finally:
        os.close(fd)
    data = (first if first != b"r" else b"") + data
    if data.startswith(b"F"):
        return data[1:].decode("utf-8", "replace") or "unknown error", False
    return None, data.startswith(b"S") and b"M" in data[1:64]


def _run_program(code, test: dict, prelude=None) -> None:
    """Execute the candidate in this (child) process as ``python3 program.py`` would (with the
    trusted prelude first in call and assert tests); exits, never returns."""
    sys.argv = [SCRATCH + "/program.py"]
    sys.setrecursionlimit(1000)
    namespace = _script_namespace(sys.argv[0])
    classes = _run_prelude(prelude, namespace)
    exit_code, shut_down = 0, False
    with contextlib.suppress(OSError):
        os.write(_STATUS_FD, b"S")  # from here on the program runs
    if _COUNTING["on"]:
        _count_from_here(_COUNTING["filters"])
    try:
        exec(code, namespace)
        if test["kind"] == "call":
            _call_entry_point(namespace, test)
        elif test["kind"] == "assert":
            _serve_calls(namespace, test, classes)
        shut_down = True
        _interpreter_shutdown()
    except SystemExit as exc:
        exit_code = _exit_code(exc.code)
    except BaseException as exc:
        if isinstance(exc, MemoryError):
            with contextlib.suppress(OSError):
                os.write(_STATUS_FD, b"M")
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


def _thread_excepthook(args, _default=_thread._excepthook) -> None:
    """``threading.excepthook`` in every child: note the failure, then print the traceback as
    Python does. It is installed in ``_thread`` (built in, already loaded), from which
    ``threading`` takes its hook when the program imports it: the zygote never imports
    ``threading`` (it would make every fork slower), and a hook set at import time sees every
    thread's failure, not only those still visible at exit. A program that sets its own
    ``threading.excepthook`` handles its threads' exceptions itself."""
    if args.exc_type is not SystemExit and not _THREAD_FAILURES:
        name = getattr(args.thread, "name", "?")
        try:
            _THREAD_FAILURES.append(f"{name}: {_format_exc_line(args.exc_value)}")
        except BaseException:  # (e.g. out of memory): the type still names it
            _THREAD_FAILURES.append(f"{name}: {getattr(args.exc_type, '__name__', '?')}")
    _default(args)


def _serve_calls(namespace: dict, test: dict, classes: dict) -> None:
    """Candidate side of an assert test: announce the program's top-level names, then answer
    the checker's requests (fd 4 in, fd 5 out) until it hangs up. Only exceptions escape a
    call as data; SystemExit and the like end the process, as they would end ``python3``."""
    entry = _resolve_entry(namespace, test["entry_point"])
    handles = _Handles()
    names = {
        name: _exception_base(value) if isinstance(value, type) else None
        for name, value in list(namespace.items())[:10000]
        if not name.startswith("__") and callable(value)
    }
    write_message(5, {"hello": names})
    # Classes the checker may send objects of: the program's own binding of a prelude name
    # wins, as it would in one concatenated file.
    local = {
        n: namespace[n] if isinstance(namespace.get(n), type) else c for n, c in classes.items()
    }

    def target(key):
        if key is None:
            return entry
        if type(key) is int:
            return handles.objects[key]
        return namespace[key]

    def resolve(key, _type_name):
        try:
            return target(key)
        except (IndexError, KeyError, TypeError):
            raise ValueError(f"unknown remote {key!r}") from None

    while True:
        try:
            header, _ = read_message(4)
        except EOFError:
            return
        write_message(5, _answer(header, target, resolve, local, handles))


def _answer(header: dict, target, resolve, classes: dict, handles: _Handles) -> dict:
    try:
        obj = target(header.get("target"))
        if header["op"] == "resolve":
            try:
                return {"value": encode_value(obj, classes=classes)}
            except NotPlainData as exc:
                return {"not_plain_data": str(exc)}
        if header["op"] == "getattr":
            value = getattr(obj, header["name"])
        elif header["op"] == "apply":
            value = _APPLY[header["fn"]](obj)
        else:
            args, *rest = decode_value(header["args"], classes=classes, remote=resolve)
            value = obj(*args, **(rest[0] if rest else {}))
    except Exception as exc:  # the program's own exception travels back as data
        return {"raised": _exception_data(exc)}
    return {"value": encode_value(value, classes=classes, handles=handles)}


_APPLY = {"bool": bool, "len": len, "list": list, "str": str, "int": int, "float": float}


def _exception_base(cls) -> str | None:
    """The nearest built-in exception class a class derives from (None: not an exception)."""
    if not issubclass(cls, Exception):
        return None
    for base in cls.__mro__:
        if base.__module__ == "builtins":
            return base.__name__
    return "Exception"


def _exception_data(exc: Exception) -> dict:
    try:
        args = encode_value(list(exc.args))
    except NotPlainData:
        args = None
    try:
        message = str(exc)
    except Exception:
        message = ""
    return {
        "type": type(exc).__name__[:200],
        "base": _exception_base(type(exc)),
        "args": args,
        "message": message[:2000],
    }


class CandidateFailed(Exception):
    def __init__(self, detail: str, *, stopped: bool = False) -> None:
        super().__init__(detail)
        self.stopped = stopped


class UnsupportedTest(Exception):
    pass


_MAX_REPLY_BYTES = 1 << 28
_STOPPED = "the program stopped while serving a call"


class _CallChannel:
    """Checker side of an assert test: requests to the candidate process (fd 5 out, fd 4 in).
    Replies are untrusted data: read with a size cap, decoded into plain values, trusted
    prelude objects and Remote handles; nothing the candidate sends runs as code here."""

    def __init__(self, classes: dict) -> None:
        self.requests = 0
        self.classes = classes
        self.entry_calls = 0
        self.stand_ins: dict[tuple[str, str], type] = {}

    def hello(self) -> dict:
        header = self.read()
        names = header.get("hello")
        if not isinstance(names, dict):
            raise CandidateFailed("the program broke the call protocol (no greeting)")
        return names

    def request(self, message: dict):
        self.requests += 1  # (reported: a counted run subtracts the harness's part of each)
        try:
            write_message(5, message)
        except OSError:
            raise CandidateFailed(_STOPPED, stopped=True) from None
        reply = self.read()
        if "raised" in reply:
            raise self.program_exception(reply["raised"])
        if "not_plain_data" in reply:
            raise CandidateFailed(f"the program returned {str(reply['not_plain_data'])[:300]}")
        if "value" not in reply:
            raise CandidateFailed("the program broke the call protocol (no value)")
        try:
            return decode_value(reply["value"], classes=self.classes, remote=self.remote)
        except (ValueError, RecursionError, MemoryError) as exc:
            raise CandidateFailed(f"unreadable return value: {exc}") from None

    def read(self) -> dict:
        try:
            (size,) = _LEN.unpack(_read_exact(4, _LEN.size))
            if size > _MAX_REPLY_BYTES:
                raise CandidateFailed(f"the program sent a {size}-byte reply (over 256 MiB)")
            header = json.loads(_read_exact(4, size))
        except (EOFError, OSError):
            raise CandidateFailed(_STOPPED, stopped=True) from None
        except (ValueError, RecursionError) as exc:
            raise CandidateFailed(f"the program broke the call protocol ({exc})") from None
        if not isinstance(header, dict) or header.get("payload_sizes"):
            raise CandidateFailed("the program broke the call protocol (bad header)")
        return header

    def remote(self, key, type_name: str) -> Remote:
        if not (key is None or type(key) in (int, str)):
            raise ValueError("malformed remote key")
        return Remote(self, key, type_name)

    def call(self, key, args: tuple, kwargs: dict):
        if key is None:
            self.entry_calls += 1
        try:
            # [args] alone without keywords: often plain, so it skips the object table
            envelope = [list(args), kwargs] if kwargs else [list(args)]
            encoded = encode_value(envelope, classes=self.classes)
        except NotPlainData as exc:
            raise UnsupportedTest(f"the test passes {exc}") from None
        return self.request({"op": "call", "target": key, "args": encoded})

    def stand_in(self, name: str, base_name) -> type:
        """The checker's class for an exception class of the program: the built-in itself,
        or a class of the same name deriving from its nearest built-in base."""
        base = getattr(builtins, str(base_name), None)
        if not (isinstance(base, type) and issubclass(base, Exception)):
            base = Exception
        if name == base.__name__:
            return base
        key = (name, base.__name__)
        if key not in self.stand_ins:
            self.stand_ins[key] = type(name, (base,), {"__module__": "program"})
        return self.stand_ins[key]

    def program_exception(self, info) -> BaseException:
        if not isinstance(info, dict):
            return CandidateFailed("the program broke the call protocol (bad exception)")
        name, message = str(info.get("type", "Exception")), str(info.get("message", ""))
        cls = self.stand_in(name, info.get("base"))
        try:
            exc = cls(*decode_value(info.get("args")))
        except Exception:
            try:
                exc = cls(message)
            except Exception:  # a built-in with a fixed signature (UnicodeDecodeError)
                exc = self.stand_in(name, "Exception")(message)
        exc._execrl_from_program = True
        return exc


class Remote:
    """Checker side: a value that lives in the candidate process (an object of a class the
    program defines, or one of the program's top-level names, such as a class the test code
    instantiates). Calls, attribute reads and conversions whose result is checked here (bool,
    len, iteration, str, int, float) are forwarded; comparisons and other operators, which
    would need the expected value, ask the candidate for the value as plain data and run here:
    nothing the test compares with is ever sent to the candidate."""

    __slots__ = ("_channel", "_key", "_what")

    def __init__(self, channel: _CallChannel, key, what: str) -> None:
        self._channel, self._key, self._what = channel, key, what

    def __call__(self, *args, **kwargs):
        return self._channel.call(self._key, args, kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._channel.request({"op": "getattr", "target": self._key, "name": name})

    def _plain(self):
        return self._channel.request({"op": "resolve", "target": self._key})

    def _apply(self, function: str, result_type: type):
        value = self._channel.request({"op": "apply", "target": self._key, "fn": function})
        if type(value) is not result_type:
            kind = type(value).__name__
            raise CandidateFailed(f"the program's {function}() of a {self._what} gave a {kind}")
        return value

    def __bool__(self) -> bool:
        return self._apply("bool", bool)

    def __len__(self) -> int:
        return self._apply("len", int)

    def __iter__(self):
        return iter(self._apply("list", list))

    def __str__(self) -> str:
        return self._apply("str", str)

    def __int__(self) -> int:
        return self._apply("int", int)

    def __float__(self) -> float:
        return self._apply("float", float)

    def __repr__(self) -> str:
        return f"<{self._what} of the program>"

    def __hash__(self) -> int:
        return hash(self._plain())

    def __eq__(self, other):
        return self._plain() == other

    def __ne__(self, other):
        return self._plain() != other


_OPERATORS = {
    "__lt__": lambda v, o: v < o,
    "__le__": lambda v, o: v <= o,
    "__gt__": lambda v, o: v > o,
    "__ge__": lambda v, o: v >= o,
    "__getitem__": lambda v, k: v[k],
    "__contains__": lambda v, x: x in v,
    "__add__": lambda v, o: v + o,
    "__radd__": lambda v, o: o + v,
    "__sub__": lambda v, o: v - o,
    "__mul__": lambda v, o: v * o,
    "__neg__": lambda v: -v,
    "__abs__": abs,
    "__round__": round,
}


def _on_plain(operator):
    return lambda self, *args: operator(self._plain(), *args)


for _name, _operator in _OPERATORS.items():
    setattr(Remote, _name, _on_plain(_operator))


def _run_checker(test: dict, prelude, test_code) -> None:
    """Checker side of an assert test: run the prelude and the test code (``_trusted_code``
    items; the prelude's None when there is none) with proxies that forward each call to the
    candidate process; report the outcome on fd 3. Exits."""
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # same uid as the candidate: keep /proc/<pid>/mem shut
    sys.stdout = sys.stderr = io.StringIO()
    sys.setrecursionlimit(1000)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    entry_point = test["entry_point"]
    channel = None
    try:
        try:
            if prelude is not None:
                exec(_trusted_code(prelude, "<prelude>"), namespace)
            test_code = _trusted_code(test_code, "<test>")
        except BaseException as exc:
            detail = f"the prelude or test code failed: {_trusted_failure_line(exc)}"
            raise UnsupportedTest(detail) from None
        channel = _CallChannel(_prelude_classes(namespace))
        candidate = Remote(channel, None, entry_point)
        _bind_program_names(namespace, test_code, channel.hello(), channel, entry_point)
        if entry_point.isidentifier():
            namespace[entry_point] = candidate
        exec(test_code, namespace)
        check = namespace.get("check")
        code = getattr(check, "__code__", None)
        # HumanEval-style test code only defines check(candidate): call it, unless the test code
        # already exercised the candidate itself (or `check` is the function under test).
        if channel.entry_calls == 0 and code is not None and code.co_filename == "<test>":
            check(candidate)
        report = {"passed": True}
    except CandidateFailed as exc:
        report = {"candidate_failed": True, "stopped": exc.stopped, "detail": str(exc)}
    except UnsupportedTest as exc:
        report = {"unsupported": True, "detail": str(exc)}
    except BaseException as exc:
        if getattr(exc, "_execrl_from_program", False):
            detail = f"the program raised {_format_exc_line(exc)}"
            # (a built-in MemoryError of the candidate, not a class of its own of that name)
            memory = isinstance(exc, MemoryError)
            report = {"candidate_raised": True, "detail": detail, "memory_error": memory}
        elif isinstance(exc, AssertionError):
            report = {"assertion": True, "detail": _format_exc_line(exc)}
        else:
            report = {"detail": f"test code raised {_format_exc_line(exc)}"}
    report["requests"] = channel.requests if channel is not None else 0
    _write_all(3, json.dumps(report).encode())
    os._exit(0)


def _prelude_classes(namespace: dict) -> dict:
    """The classes a prelude defined itself (not ones it imported): known on both sides."""
    return {
        name: value
        for name, value in namespace.items()
        if isinstance(value, type) and value.__module__ == namespace["__name__"]
    }


_BUILTIN_NAMES = frozenset(dir(builtins)) | {"exit", "quit"}  # (those two: set in children)
"""Computed once in the zygote (``dir`` of the builtins costs a checker ~0.1 ms per test)."""


def _bind_program_names(namespace, test_code, names: dict, channel, entry_point: str) -> None:
    """Names the test code uses that neither the prelude nor the built-ins define, but the
    program does (MBPP's ``Pair``): bound to Remote handles, exception classes to stand-ins.
    Built-ins and the prelude's names are never shadowed by the program's."""
    used, codes = set(), [test_code]
    while codes:
        code = codes.pop()
        used.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, type(test_code)))
    for name in used - namespace.keys() - _BUILTIN_NAMES - {entry_point}:
        if name not in names:
            continue
        if names[name] is not None:
            namespace[name] = channel.stand_in(name, names[name])
        else:
            namespace[name] = Remote(channel, name, name)


def _resolve_entry(namespace: dict, name: str):
    """The function under test: a top-level name, ``Solution().method`` as LeetCode writes
    it, or a method of ``Solution`` named ``name``."""
    if "()." in name:
        cls_name, method = name.split("().", 1)
        cls = namespace.get(cls_name)
        if isinstance(cls, type):
            return getattr(cls(), method)
    fn = namespace.get(name)
    if fn is None and isinstance(namespace.get("Solution"), type):
        fn = getattr(namespace["Solution"](), name, None)
    if fn is None:
        raise NameError(f"the program does not define {name!r}")
    return fn


def _call_entry_point(namespace: dict, test: dict) -> None:
    fn = _resolve_entry(namespace, test["fn_name"])
    value = fn(*decode_value(json.loads(test["args"])))
    try:
        encoded = json.dumps(encode_value(value)).encode()
    except NotPlainData as exc:
        encoded = json.dumps({"not_plain_data": f"the function returned {exc}"}).encode()
    _write_all(3, encoded)


_CLEANUP_MAX_DEPTH = 128
_CLEANUP_MAX_ENTRIES = 200_000
"""Bounds on the tree a run may leave behind; past them the worker restarts (a fresh tmpfs)."""


def _remove_tree(path: str, *, keep_root: bool = False) -> None:
    """rm -rf without shutil (which would drag compression modules into every fork), and
    without recursion: a stack of directory descriptors (names relative to them, so no path
    grows past PATH_MAX), at most _CLEANUP_MAX_DEPTH deep. Raises _CleanupFailed when the
    tree is deeper or larger than the bounds or something in it cannot be removed."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        os.unlink(path)
        return
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    stack = [(os.open(path, flags), "")]  # (directory fd, its name in the one below)
    seen = 0
    try:
        while stack:
            fd = stack[-1][0]
            subdirectory = None
            with os.scandir(fd) as entries:
                for entry in entries:
                    seen += 1
                    if seen > _CLEANUP_MAX_ENTRIES:
                        raise _CleanupFailed(f"more than {_CLEANUP_MAX_ENTRIES} entries")
                    if entry.is_dir(follow_symlinks=False):
                        subdirectory = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
            if subdirectory is not None:
                if len(stack) >= _CLEANUP_MAX_DEPTH:
                    raise _CleanupFailed(f"directories nested over {_CLEANUP_MAX_DEPTH} deep")
                stack.append((os.open(subdirectory, flags, dir_fd=fd), subdirectory))
                continue
            fd, name = stack.pop()
            os.close(fd)
            if stack:
                os.rmdir(name, dir_fd=stack[-1][0])
    except _CleanupFailed:
        raise
    except OSError as exc:
        raise _CleanupFailed(f"{path}: {exc}") from None
    finally:
        for fd, _ in stack:
            os.close(fd)
    if not keep_root:
        os.rmdir(path)


_CLOSE_RANGE = {"os": False}
"""Whether os.closerange is one close_range(2) call here (the build has it and the kernel
too, decided once in the zygote): through ctypes it costs each child ~10 more page faults."""


def _close_fds_from(first: int) -> None:
    """Close every descriptor >= ``first`` (close_range(2) when the kernel has it)."""
    if _CLOSE_RANGE["os"]:
        os.closerange(first, 0x7FFFFFFF)
        return
    if _libc.syscall(436, first, 0xFFFFFFFF, 0) == 0:  # close_range: same number on x86_64/arm64
        return
    for name in os.listdir("/proc/self/fd"):
        if int(name) >= first:
            with contextlib.suppress(OSError):
                os.close(int(name))


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _format_exc_line(exc: BaseException) -> str:
    import traceback  # (imported by the zygote: see main)

    return "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]


def _vm_size_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


SCRATCH = "/tmp/run"
"""The only writable directory: recreated empty for every run (the rest of /tmp is read-only,
so nothing a run leaves behind is there for the next one)."""


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
    global SCRATCH
    # This module as ``_zygote`` (the launcher registers it so; run as a script it is
    # ``__main__``, which a child replaces by the program's own module)
    sys.modules.setdefault("_zygote", sys.modules[__name__])
    config = json.loads(sys.argv[1])
    if config.get("fds_on_stdin"):
        receive_fds(config)
    _COUNTING["on"] = bool(config.get("counting"))  # (before the set-up: see _mounts_under)
    SCRATCH = config.get("scratch") or SCRATCH  # a private host directory without namespaces
    os.environ.update(TMPDIR=SCRATCH, HOME=SCRATCH)  # inherited by every child
    if not config.get("counting"):  # (the loader read it at start; a counted run keeps its env)
        os.environ.pop("LD_BIND_NOW", None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # pid 1 of the sandbox ignores stray signals
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        if config.get("cgroup_procs"):
            with open(config["cgroup_procs"], "w") as f:
                f.write("0")  # this process and everything it forks
        # (opened before pivot_root: /sys is not in the sandbox's root)
        config["cgroup"] = _TestCgroup.open(config.get("test_cgroup"))
        if config["fs_isolation"]:
            build_root(config)
            _libc.sethostname(b"sandbox", 7)
        # Extra site paths (bound read-only by build_root) go on sys.path here, so every child
        # inherits them; .pth files in them are not processed (no site module, no code run).
        sys.path.extend(config.get("site_paths", ()))
        _thread._excepthook = _thread_excepthook  # threading takes it from here when imported
        for module in config["preimport"]:
            with contextlib.suppress(ImportError):
                __import__(module)
        _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # children cannot read our memory via /proc
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
    kernel_has_it = _libc.syscall(436, 0x7FFFFFF0, 0x7FFFFFF0, 0) == 0
    # exit() and quit() as site would add them, for every child (set in a child, they cost it
    # copy-on-write faults in the builtins' dict)
    builtins.exit, builtins.quit = _Quitter("exit"), _Quitter("quit")
    _CLOSE_RANGE["os"] = bool(config.get("closerange_syscall")) and kernel_has_it
    if config.get("role") == "compiler":
        _serve_compiler(config)
        return
    if config.get("counting") and config["seccomp"] and SECCOMP_SUPPORTED:
        program = _counting_seccomp_program()
        filters = (_SockFilter * len(program))(*[_SockFilter(*ins) for ins in program])
        _COUNTING["filters"] = (filters, _SockFprog(len(program), filters))
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
    _install_stdio()
    # Compiling this file (see isolation.zygote_command) left ~5 MB of freed blocks in malloc's
    # heap, still mapped below live objects: every fork copied their page-table entries and
    # write-protected them. Handed back to the kernel here (not in a counted zygote: what it
    # releases depends on how the start-up's reads arrived, and a count would move with it).
    if not config.get("counting"):
        _libc.malloc_trim(0)
    gc.freeze()  # forked children share these pages instead of copying them on first gc
    if config.get("counting"):
        server.serve_forked()
    else:
        server.serve()


if __name__ == "__main__":
    main()
