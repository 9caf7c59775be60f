"""The scratch directory, the one writable place a run has: where it is, and emptying it
(and /dev/shm) between runs within bounds."""

from __future__ import annotations

import os
import stat

PATH = "/tmp/run"
"""The only writable directory: recreated empty for every run (the rest of /tmp is read-only,
so nothing a run leaves behind is there for the next one)."""


class CleanupFailed(OSError):
    """Scratch or /dev/shm could not be emptied (too deep, too many entries, unremovable)."""


CLEANUP_MAX_DEPTH = 128
CLEANUP_MAX_ENTRIES = 200_000
"""Bounds on the tree a run may leave behind; past them the worker restarts (a fresh tmpfs)."""


def remove_tree(path: str, *, keep_root: bool = False) -> None:
    """rm -rf without shutil (which would drag compression modules into every fork), and
    without recursion: a stack of directory descriptors (names relative to them, so no path
    grows past PATH_MAX), at most CLEANUP_MAX_DEPTH deep. Raises CleanupFailed when the
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
                    if seen > CLEANUP_MAX_ENTRIES:
                        raise CleanupFailed(f"more than {CLEANUP_MAX_ENTRIES} entries")
                    if entry.is_dir(follow_symlinks=False):
                        subdirectory = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
            if subdirectory is not None:
                if len(stack) >= CLEANUP_MAX_DEPTH:
                    raise CleanupFailed(f"directories nested over {CLEANUP_MAX_DEPTH} deep")
                stack.append((os.open(subdirectory, flags, dir_fd=fd), subdirectory))
                continue
            fd, name = stack.pop()
            os.close(fd)
            if stack:
                os.rmdir(name, dir_fd=stack[-1][0])
    except CleanupFailed:
        raise
    except OSError as exc:
        raise CleanupFailed(f"{path}: {exc}") from None
    finally:
        for fd, _ in stack:
            os.close(fd)
    if not keep_root:
        os.rmdir(path)
