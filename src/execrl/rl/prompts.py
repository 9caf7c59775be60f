"""Which training problems each step draws (``data.selection`` picks the selector once).

A selector has ``take(n, exclude=...)``, ``observe(problem_id, passed)`` and a JSON
``state_dict`` that a checkpoint keeps, so a resumed run draws what the uninterrupted run
would have: :class:`PromptStream` (a seeded shuffled order, every problem once per pass) or
:class:`execrl.rl.curriculum.PassRateSelector` (problems neither always solved nor never).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol

from execrl.errors import ExecrlError
from execrl.rl.config import DataConfig
from execrl.rl.curriculum import PassRateSelector


class PromptSelector(Protocol):
    """Draws problem ids for a step and learns from what their groups did."""

    def take(self, n: int, *, exclude: Collection[str] = ()) -> list[str]: ...

    def observe(self, problem_id: str, passed: Sequence[bool]) -> None: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


class PromptStream:
    """Training problems in a seeded shuffled order, reshuffled each pass; its position is part
    of a checkpoint. It ignores what the groups did (``observe``) and keeps its order whatever
    was drawn this step (``exclude``)."""

    def __init__(self, problem_ids: Sequence[str], seed: int) -> None:
        if not problem_ids:
            raise ExecrlError("no training problems: check data.train_tag / data.train_ids")
        self.ids = list(problem_ids)
        self.seed = seed
        self.position = 0
        """Problems drawn so far."""

    def take(self, n: int, *, exclude: Collection[str] = ()) -> list[str]:
        out = []
        for _ in range(n):
            epoch, index = divmod(self.position, len(self.ids))
            order = list(self.ids)
            random.Random(self.seed * 1_000_003 + epoch).shuffle(order)
            out.append(order[index])
            self.position += 1
        return out

    def observe(self, problem_id: str, passed: Sequence[bool]) -> None:
        """Nothing: the order is fixed by the seed."""

    def state_dict(self) -> dict[str, Any]:
        return {"position": self.position}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.position = int(state["position"])


def split_ids(problems: Sequence[Any], data: DataConfig) -> tuple[list[str], list[str]]:
    """(training ids, held-out ids): ``train_ids`` or the ``train_tag`` problems, less every
    held-out one (``eval_ids`` or the ``eval_tag`` problems; none when neither is set)."""
    held_out = (
        _chosen(problems, data.eval_ids, data.eval_tag) if (data.eval_ids or data.eval_tag) else []
    )
    train = _chosen(problems, data.train_ids, data.train_tag)
    return [p for p in train if p not in set(held_out)], held_out


def load_split(
    load: Callable[[str], list[Any]], data: DataConfig
) -> tuple[dict[str, Any], list[str], list[str]]:
    """(problems by id, training ids, held-out ids): ``data.problems`` split by
    :func:`split_ids`, or with ``data.eval_problems`` the held-out ones from that source
    (whose ids must not clash with the training source's)."""
    everything = load(data.problems)
    own = data.model_copy(update={"eval_ids": []}) if data.eval_problems else data  # (its ids)
    train, held_out = split_ids(everything, own)
    if data.eval_problems is not None:
        extra = load(data.eval_problems)
        clash = sorted({p.id for p in extra} & {p.id for p in everything})
        if clash:
            raise ExecrlError(
                f"data.eval_problems {data.eval_problems!r} shares problem id {clash[0]!r} "
                f"with data.problems {data.problems!r}: held-out problems must be others"
            )
        held_out = _chosen(extra, data.eval_ids, None)
        everything = [*everything, *extra]
    return {p.id: p for p in everything}, train, held_out


def _chosen(problems: Sequence[Any], ids: Sequence[str], tag: str | None) -> list[str]:
    known = {p.id for p in problems}
    missing = [i for i in ids if i not in known]
    if missing:
        raise ExecrlError(f"unknown problem id {missing[0]!r} in the training data config")
    return list(ids) or [p.id for p in problems if tag is None or tag in getattr(p, "tags", ())]


def _pass_rate(data: DataConfig, ids: Sequence[str], seed: int) -> PassRateSelector:
    if not ids:
        raise ExecrlError("no training problems: check data.train_tag / data.train_ids")
    return PassRateSelector(
        ids, seed=seed, window=data.pass_rate_window, explore=data.pass_rate_explore
    )


SELECTORS: dict[str, Callable[[DataConfig, Sequence[str], int], PromptSelector]] = {
    "stream": lambda data, ids, seed: PromptStream(ids, seed),
    "pass_rate": _pass_rate,
}
"""The selector of each ``data.selection``: (data config, training ids, seed) → selector."""
