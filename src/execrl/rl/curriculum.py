"""Which prompts a training step learns from: dynamic sampling and pass-rate selection.

With group-relative advantages (GRPO and relatives) a group whose G rewards are all equal has
advantage 0 for every rollout: it adds nothing to the gradient, yet it costs a full group of
samples and executions. On a small model and small groups most groups are like that (all
fail), so two rules, both pure and free of torch, keep the batch informative:

- :func:`informative` is DAPO's *dynamic sampling* filter (Yu et al. 2025, "DAPO: An
  Open-Source LLM Reinforcement Learning System at Scale"): a group whose rewards are all equal
  is dropped and more prompts are drawn until the batch holds ``prompts_per_step`` groups that
  teach something.
- :class:`PassRateSelector` picks the prompts to draw from each problem's recent pass rate,
  *before* sampling, so fewer groups need dropping: problems neither always solved nor never
  solved are preferred, as in online difficulty filtering (Bae et al. 2025, "Online Difficulty
  Filtering for Reasoning Oriented Reinforcement Learning", which keeps prompts whose pass rate
  lies inside a band) and the prioritised sampling of Kimi k1.5 (Kimi Team 2025). Saturated
  problems stay drawable with a small probability, since a policy that changes can make them
  informative again.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from execrl.errors import UsageError

REWARD_TOLERANCE = 1e-9
"""Rewards closer than this count as equal: a group spread less than this has (numerically)
zero group-relative advantage."""

STATE_FORMAT = "execrl-pass-rate-selector/1"


def informative(rewards: Sequence[float], *, tolerance: float = REWARD_TOLERANCE) -> bool:
    """Whether a group's rewards differ (max − min > ``tolerance``): only then is its
    group-relative advantage non-zero, so only then does it teach anything (DAPO's dynamic
    sampling keeps exactly these groups). Leave inconclusive rollouts out before calling; a
    group of fewer than two rewards is never informative."""
    values = [float(r) for r in rewards]
    if any(math.isnan(v) for v in values):
        raise UsageError(f"informative: rewards must be numbers, got NaN in {values}")
    if len(values) < 2:
        return False
    return max(values) - min(values) > tolerance


class PassRateSelector:
    """Draws training problems, preferring those whose recent pass rate is strictly between
    0 and 1, or that have not been seen yet.

    The rule, per slot of :meth:`take`: a problem is *saturated* when its last ``window``
    observed rollouts all passed or all failed (at least one rollout observed); every other
    problem (unseen, or recently mixed) is *preferred*. Each slot is filled by a saturated
    problem with probability ``explore`` (default 0.1), otherwise by a preferred one, uniformly
    at random within the pool; when one pool is used up the other fills the slot. Saturated
    problems are therefore drawn rarely, never excluded: one whose policy changes comes back
    and, once it shows a mixed window, is preferred again. Sources: DAPO's dynamic sampling
    (Yu et al. 2025) drops groups with all-equal rewards after sampling; online difficulty
    filtering (Bae et al. 2025) keeps prompts whose pass rate lies inside a band; this applies
    the same band before sampling, from what was observed.

    Draws are deterministic: the k-th :meth:`take` uses a generator seeded from ``seed`` and
    k, and its pools from the observations so far, so a run resumed from :meth:`state_dict`
    draws exactly what the uninterrupted run would have.
    """

    def __init__(
        self,
        problem_ids: Sequence[str],
        *,
        seed: int,
        window: int = 8,
        explore: float = 0.1,
    ) -> None:
        ids = list(problem_ids)
        if not ids:
            raise UsageError("PassRateSelector: no problems to draw from; give at least one id")
        repeated = sorted(p for p, count in Counter(ids).items() if count > 1)
        if repeated:
            raise UsageError(
                f"PassRateSelector: problem ids must be distinct, repeated: {repeated}"
            )
        if window < 1:
            raise UsageError(f"PassRateSelector: window must be >= 1 rollouts, got {window}")
        if not 0 <= explore <= 1:
            raise UsageError(f"PassRateSelector: explore must lie in [0, 1], got {explore}")
        self.ids = ids
        self.seed = seed
        self.window = window
        self.explore = explore
        self.takes = 0
        self.history: dict[str, list[bool]] = {p: [] for p in ids}

    def pass_rate(self, problem_id: str) -> float | None:
        """The pass rate over the problem's last ``window`` rollouts; None before any."""
        recent = self.history[self._known(problem_id)]
        return sum(recent) / len(recent) if recent else None

    def saturated(self, problem_id: str) -> bool:
        """Whether its recent rollouts all passed or all failed (so it would teach nothing)."""
        rate = self.pass_rate(problem_id)
        return rate is not None and rate in (0.0, 1.0)

    def observe(self, problem_id: str, passed: Sequence[bool]) -> None:
        """Record one group's rollouts (their pass flags, inconclusive ones left out; an empty
        group records nothing)."""
        recent = self.history[self._known(problem_id)]
        recent.extend(bool(p) for p in passed)
        del recent[: max(0, len(recent) - self.window)]

    def take(self, n: int, *, exclude: Collection[str] = ()) -> list[str]:
        """``n`` problems, distinct when at least ``n`` are drawable (``n`` larger than that
        repeats problems, in successive rounds of distinct draws). ``exclude`` (e.g. the
        problems already drawn this step) is left out while other problems remain."""
        if n < 0:
            raise UsageError(f"PassRateSelector.take: n must be >= 0, got {n}")
        rng = random.Random(self.seed * 1_000_003 + self.takes)
        self.takes += 1
        allowed = [p for p in self.ids if p not in exclude] or list(self.ids)
        out: list[str] = []
        while len(out) < n:
            out += self._round(rng, allowed, n - len(out))
        return out

    def _round(self, rng: random.Random, allowed: list[str], n: int) -> list[str]:
        """Up to ``n`` distinct problems of ``allowed``, each slot by the rule above."""
        saturated = [p for p in allowed if self.saturated(p)]
        preferred = [p for p in allowed if not self.saturated(p)]
        picked: list[str] = []
        while len(picked) < n and (saturated or preferred):
            explore = rng.random() < self.explore
            pool = saturated if (explore and saturated) or not preferred else preferred
            picked.append(pool.pop(rng.randrange(len(pool))))
        return picked

    def state_dict(self) -> dict[str, Any]:
        """Everything a resumed run needs to draw the same problems (JSON-serialisable)."""
        return {
            "format": STATE_FORMAT,
            "ids": list(self.ids),
            "seed": self.seed,
            "window": self.window,
            "explore": self.explore,
            "takes": self.takes,
            "history": {p: list(h) for p, h in self.history.items()},
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from :meth:`state_dict` of a selector built with the same settings."""
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise UsageError(f"PassRateSelector: not a {STATE_FORMAT} state")
        mine = {"ids": self.ids, "seed": self.seed, "window": self.window, "explore": self.explore}
        differ = sorted(k for k, v in mine.items() if state.get(k) != v)
        if differ:
            raise UsageError(
                f"PassRateSelector: the saved state was made with other settings ({differ}); "
                "build the selector with the run's problems, seed, window and explore"
            )
        self.takes = int(state["takes"])
        self.history = {p: [bool(x) for x in state["history"][p]] for p in self.ids}

    def _known(self, problem_id: str) -> str:
        if problem_id not in self.history:
            raise UsageError(f"PassRateSelector: unknown problem id {problem_id!r}")
        return problem_id
