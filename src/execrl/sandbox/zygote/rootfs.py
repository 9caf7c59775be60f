"""The minimal root file system the zygote pivots into: ``/usr`` and the interpreter
read-only, a synthetic ``/etc``, a few ``/dev`` nodes, a private ``/proc``, size-limited
``/tmp`` and ``/dev/shm``. The host's home directories, project files, sockets and secrets are
simply not there."""

from __future__ import annotations

import os

from . import scratch
from .counting import COUNTING
from .syscalls import (
    MACHINE,
    MNT_DETACH,
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    check,
    libc,
)
from .wire import read_message, write_message

_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}


def _mount(source, target, fstype, flags, data=None) -> None:
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    check(libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


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
    if not COUNTING["on"]:
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
    # SandboxFusion's programs write and read files under /mnt (its own tests do): there it is
    # the working directory, a link into the scratch tmpfs (nothing of the host's).
    os.symlink(scratch.PATH, root + "/mnt")
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
    check(
        libc.syscall(_PIVOT_ROOT.get(MACHINE, 155), root.encode(), (root + "/.old").encode()),
        "pivot_root",
    )
    os.chdir("/")
    check(libc.umount2(b"/.old", MNT_DETACH), "umount old root")
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
    # Toolchains reach their programs and configuration through these: Debian's alternatives
    # (cc, java, javac) and the JDK's conf (its security and logging files), read-only.
    for name in sorted(os.listdir("/etc")):
        if name == "alternatives" or (name.startswith("java-") and name.endswith("-openjdk")):
            host = "/etc/" + name
            if os.path.isdir(host) and not os.path.islink(host):
                os.mkdir(f"{etc}/{name}")
                _bind_readonly(host, f"{etc}/{name}")


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
