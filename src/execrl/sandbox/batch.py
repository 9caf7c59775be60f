"""Run many (program, test) pairs in parallel with a progress bar."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

T = TypeVar("T")
R = TypeVar("R")


def default_jobs() -> int:
    """One job per core this process may run on."""
    return max(1, len(os.sched_getaffinity(0)))


def parallel_map(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    jobs: int | None = None,
    description: str = "",
    show_progress: bool = True,
) -> Iterator[R]:
    """``map(fn, items)`` on a thread pool (each call starts its own process), in order."""
    items = list(items)
    with (
        ThreadPoolExecutor(max_workers=jobs or default_jobs()) as pool,
        progress_bar(show_progress) as bar,
    ):
        task = bar.add_task(description or "running", total=len(items))
        for result in pool.map(fn, items):
            bar.advance(task)
            yield result


def progress_bar(enabled: bool) -> Progress:
    """The progress bar every batch of executions shows (description, bar, done/total, time
    left; gone when done): ``with progress_bar(True) as bar:``."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        disable=not enabled,
    )
