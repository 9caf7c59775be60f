"""Asynchronous rollouts: a worker thread samples and scores groups with its own copy of the
weights into a bounded queue, while the trainer updates.

The trainer takes groups from the queue and drops those sampled more than
``async.max_staleness`` optimizer steps ago (:func:`drop_stale`); every ``async.push_every``
steps it hands the worker newer weights (:meth:`RolloutWorker.push`), loaded before the
worker's next batch. The worker records its samples' log-probabilities, so the clipped ratio
π_θ / π_old corrects for the lag.
"""

from __future__ import annotations

import copy
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

from execrl.errors import ExecrlError
from execrl.rl.config import AsyncConfig
from execrl.rl.policy import state_copy
from execrl.rl.rollouts import ScoredGroup
from execrl.sandbox.protocol import Executor

GroupSource = Callable[[Any, int, int], list[ScoredGroup]]
"""(model, version, n) → n scored groups: draws prompts, samples with ``model``, scores."""


def drop_stale(
    groups: Sequence[ScoredGroup], version: int, max_staleness: int
) -> tuple[list[ScoredGroup], list[ScoredGroup]]:
    """(kept, dropped): a group sampled at policy version v is kept while
    ``version − v ≤ max_staleness`` (``version`` = optimizer steps taken so far)."""
    kept = [g for g in groups if version - g.version <= max_staleness]
    dropped = [g for g in groups if version - g.version > max_staleness]
    return kept, dropped


class RolloutWorker(threading.Thread):
    """Samples and scores groups forever into ``out`` (a bounded queue); a failure is put in
    the queue for the trainer thread to raise."""

    def __init__(
        self,
        model: Any,
        version: int,
        groups: GroupSource,
        n: int,
        out: queue.Queue[ScoredGroup | BaseException],
    ) -> None:
        super().__init__(name="execrl-rollouts", daemon=True)
        self.model = copy.deepcopy(model)
        self.version = version
        self.groups = groups
        self.n = n
        self.out = out
        self._pending: tuple[int, dict[str, Any]] | None = None
        self._lock = threading.Lock()
        self.stop = threading.Event()

    def push(self, version: int, state: dict[str, Any]) -> None:
        """Newer weights (a state dict), loaded before the next batch."""
        with self._lock:
            self._pending = (version, state)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                with self._lock:
                    pending, self._pending = self._pending, None
                if pending is not None:
                    self.version = pending[0]
                    self.model.load_state_dict(pending[1])
                for group in self.groups(self.model, self.version, self.n):
                    self._put(group)
        except BaseException as exc:  # hand the failure to the trainer thread
            self.out.put(exc)

    def _put(self, group: ScoredGroup) -> None:
        while not self.stop.is_set():
            try:
                self.out.put(group, timeout=0.2)
                return
            except queue.Full:
                continue

    def close(self) -> None:
        self.stop.set()
        self.join(timeout=60)


class AsyncRollouts:
    """The rollout worker and its queue, seen from the trainer: fresh groups to take, weights
    to push, and (``owned``) the executor of the worker's own pool to close at the end."""

    def __init__(
        self,
        model: Any,
        version: int,
        groups: GroupSource,
        settings: AsyncConfig,
        *,
        n: int,
        owned: Executor | None = None,
    ) -> None:
        self.settings = settings
        self.owned = owned
        self.queue: queue.Queue[ScoredGroup | BaseException] = queue.Queue(settings.queue_size)
        self.worker = RolloutWorker(model, version, groups, n, self.queue)
        self.worker.start()

    def take(self, n: int, version: int) -> tuple[list[ScoredGroup], list[ScoredGroup]]:
        """(fresh, stale): ``n`` groups within ``max_staleness`` of ``version``, and those
        dropped for being older."""
        return take_fresh(self.queue, n, version, self.settings.max_staleness)

    def push(self, version: int, model: Any) -> None:
        """Every ``push_every`` versions, the trainer's weights to the worker."""
        if version % self.settings.push_every == 0:
            self.worker.push(version, state_copy(model))

    def close(self) -> None:
        self.worker.close()
        if self.owned is not None:
            self.owned.close()


def take_fresh(
    groups_in: queue.Queue[ScoredGroup | BaseException],
    n: int,
    version: int,
    max_staleness: int,
) -> tuple[list[ScoredGroup], list[ScoredGroup]]:
    """(fresh, stale): pull groups until ``n`` fresh ones are in hand."""
    fresh: list[ScoredGroup] = []
    stale: list[ScoredGroup] = []
    while len(fresh) < n:
        item = groups_in.get()
        if isinstance(item, BaseException):
            raise ExecrlError(f"the rollout worker failed: {item!r}") from item
        kept, dropped = drop_stale([item], version, max_staleness)
        fresh += kept
        stale += dropped
    return fresh, stale
