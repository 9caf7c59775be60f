"""Sweep the screening grid: every environment × reward shape replayed over the schedule,
diagnosed, flagged and ranked (spec §2, §7).

Environments that differ only in the tolerance ρ or the duration gate p share everything
but the gate ``g``, so they are evaluated as one group: the engine computes the plan, the
counts and the ranking once, each member only its gate, and the rewards that do not read
``g`` (correctness, graded, naive) once for the group. Curves are weighted sums of per-pair
values, so a group's values are stacked and multiplied by the schedule's weights in one
matrix product. Problems are processed in chunks to bound memory.

Ranking **[ours]**: the three diagnostics that predicted online results in the source —
deviation from the diagonal (lower is better), quality correlation and steepness (higher is
better) — are ranked among the non-degenerate configurations (average ranks; a NaN
correlation ranks last) and a configuration's score is the mean of its three ranks.
Degenerate configurations are listed after all others.
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from execrl.envs.environment import EnvironmentConfig
from execrl.envs.operators import AbsoluteLimit, RankedReferenceLimit
from execrl.errors import ExecrlError
from execrl.rewards.compositions import Reward, RewardFn, reward
from execrl.simulate.diagnostics import DEFAULT_WINDOW, diagnose_many
from execrl.simulate.engine import CHUNK_ELEMENTS, Engine, chunks, gate, reward_values
from execrl.simulate.grid import GridPoint, environment_grid
from execrl.simulate.runs import StoredRuns
from execrl.simulate.schedule import Metric, Schedule, metric_values
from execrl.stats import average_ranks
from execrl.timing.pool import Calibration

DIAGNOSTICS = (
    "deviation",
    "correlation",
    "steepness",
    "correlation_smoothed",
    "auc",
    "auc_smoothed",
    "variance",
)


@dataclass(frozen=True, eq=False)
class SweepResult:
    """Curves and diagnostics of every (environment, reward) configuration of a sweep."""

    x: np.ndarray
    environments: list[GridPoint]
    rewards: list[str]
    curves: np.ndarray
    """(E, W, K) the curve of environment e and reward w."""
    rows: list[dict[str, Any]]
    """One row per configuration, best first (see the module docstring)."""
    metric: Metric
    window: int
    seconds: float
    corpus: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def curve(self, environment: str, reward_name: str) -> np.ndarray:
        e = next(i for i, p in enumerate(self.environments) if p.name == environment)
        return self.curves[e, self.rewards.index(reward_name)]

    @property
    def ranked(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if not r["degenerate"]]

    @property
    def degenerate(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["degenerate"]]

    def distinct(self, top: int) -> list[dict[str, Any]]:
        """The best ``top`` non-degenerate rows with distinct curves; each row's ``same``
        counts the lower-ranked configurations with an identical curve (e.g. the gates of a
        graded reward, which ignores them)."""
        seen: dict[tuple, dict[str, Any]] = {}
        out = []
        for row in self.ranked:
            key = tuple(np.round(row["curve"], 12))
            if key in seen:
                seen[key]["same"] += 1
                continue
            if len(out) < top:
                shown = {**row, "same": 0}
                seen[key] = shown
                out.append(shown)
            else:
                seen[key] = {"same": 0}
        return out

    def write_csv(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        columns = ["rank", "score", "family", "environment", "reward", "degenerate", *DIAGNOSTICS]
        columns += ["slope", "intercept", "curve"]
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, columns, extrasaction="ignore")
            writer.writeheader()
            for row in self.rows:
                writer.writerow({**row, "curve": " ".join(f"{v:.4f}" for v in row["curve"])})
        return path


def _group_key(config: EnvironmentConfig) -> EnvironmentConfig:
    return config.model_copy(update={"name": "", "tolerance": 1.0, "gate": None})


def _parts(reward_fn: RewardFn) -> tuple[RewardFn, RewardFn]:
    """The rewards an even and an odd group index get (multitask alternates)."""
    if isinstance(reward_fn, Reward) and reward_fn.composition == "multitask":
        speed = {"signal": reward_fn.signal, "map": reward_fn.map}
        return Reward(composition="correctness"), Reward(composition="optimization", **speed)
    return reward_fn, reward_fn


def _reads_gate(reward_fn: RewardFn) -> bool:
    return (
        isinstance(reward_fn, Reward)
        and reward_fn.composition != "correctness"
        and reward_fn.signal == "binary"
    )


# A binary reward's metric is linear in a few per-pair vectors: g, c̃·g, c·g, c, c̃ (all 0/1).
# With r the reward: (r + 1)/2 for the "reward" metric, 1[r > 0] for "pass".
_BINARY_FORMS: dict[tuple[str, str], list[tuple[float, str]]] = {
    ("reward", "optimization"): [(1.0, "g")],  # r = 2g − 1
    ("reward", "collapsed"): [(1.0, "sg")],  # r = 2c̃g − 1
    ("reward", "two_gate"): [(0.5, "sg"), (0.5, "s")],  # r = c̃g + c̃ − 1
    ("reward", "additive"): [(0.5, "c"), (0.5, "g")],  # r = c + g − 1
    ("pass", "optimization"): [(1.0, "g")],
    ("pass", "collapsed"): [(1.0, "sg")],
    ("pass", "two_gate"): [(1.0, "sg")],  # r = g when c̃ = 1, else −1
    ("pass", "additive"): [(1.0, "cg")],  # r > 0 iff c = g = 1
}


def _form(part: RewardFn, metric: Metric) -> list[tuple[float, tuple[str, Any]]]:
    """``part``'s per-pair metric as Σ coef · vector: a basis vector of the member's gate
    (``("g", None)`` …) or the reward's own values, shared by the group (``("shape", part)``)."""
    if _reads_gate(part):
        return [(coef, (name, None)) for coef, name in _BINARY_FORMS[(metric, part.composition)]]
    return [(1.0, ("shape", part))]


@dataclass(frozen=True, eq=False)
class _Group:
    """Environments that differ only in ρ or the gate, and the per-pair vectors their curves
    need: ``vectors[i] = (kind, what, member)``; the rows of ``terms`` (member, reward,
    parity, vector, coefficient) say how they add up into the curves."""

    members: np.ndarray
    configs: list[EnvironmentConfig]
    vectors: list[tuple[str, Any, int]]
    terms: np.ndarray  # (n, 4) int: member, reward, parity, vector
    coefficients: np.ndarray  # (n,)


def _groups(
    grid: Sequence[GridPoint], reward_fns: Sequence[RewardFn], metric: Metric
) -> list[_Group]:
    by_key: dict[EnvironmentConfig, list[int]] = {}
    for e, point in enumerate(grid):
        by_key.setdefault(_group_key(point.config), []).append(e)
    forms = [[_form(part, metric) for part in _parts(r)] for r in reward_fns]
    groups = []
    for members in by_key.values():
        index: dict[tuple, int] = {}
        vectors: list[tuple[str, Any, int]] = []
        terms, coefficients = [], []
        for m in range(len(members)):
            for w, parts in enumerate(forms):
                for parity, form in enumerate(parts):
                    for coef, (kind, what) in form:
                        member = 0 if kind in ("shape", "c", "s") else m
                        key = (kind, what.name if kind == "shape" else None, member)
                        if key not in index:
                            index[key] = len(vectors)
                            vectors.append((kind, what, member))
                        terms.append((m, w, parity, index[key]))
                        coefficients.append(coef)
        configs = [grid[e].config for e in members]
        groups.append(
            _Group(np.array(members), configs, vectors, np.array(terms), np.array(coefficients))
        )
    return groups


def sweep(
    runs: StoredRuns,
    grid: Sequence[GridPoint] | None = None,
    rewards: Sequence[str | RewardFn] | None = None,
    *,
    schedule: Schedule | None = None,
    metric: Metric = "reward",
    window: int = DEFAULT_WINDOW,
    calibration: Calibration | None = None,
    chunk_elements: int = CHUNK_ELEMENTS,
    progress: bool = True,
    corpus: str = "",
) -> SweepResult:
    """Curves, diagnostics and the ranked table of every grid point × reward shape."""
    from execrl.simulate.grid import REWARD_SHAPES

    start = time.perf_counter()
    if metric not in ("reward", "pass"):
        raise ExecrlError(f"unknown curve metric {metric!r}; choose reward or pass")
    grid = list(environment_grid() if grid is None else grid)
    reward_fns = [reward(r) for r in (REWARD_SHAPES if rewards is None else rewards)]
    if not grid or not reward_fns:
        raise ExecrlError("a sweep needs at least one environment and one reward")
    for reward_fn in reward_fns:
        runs.check_reward(reward_fn)
    schedule = schedule or Schedule.build(runs)
    K = schedule.points
    if not 1 <= window <= K:
        raise ExecrlError(f"window {window}: use 1 to {K} (the number of points)")
    groups = _groups(grid, reward_fns, metric)
    limits = [p.config.limit for p in grid]
    absolute = {lim.seconds for lim in limits if isinstance(lim, AbsoluteLimit)}
    ranked = {lim.p for lim in limits if isinstance(lim, RankedReferenceLimit)}
    num = np.zeros((len(grid), len(reward_fns), K))
    den = np.zeros((len(grid), K))
    slices = chunks(runs, chunk_elements)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, disable=not progress) as bar:
        description = f"sweep: {len(grid) * len(reward_fns):,} configurations"
        task = bar.add_task(description, total=len(slices) * len(groups))
        for chunk in slices:
            weights = _Weights.of(schedule, chunk)
            if not weights.size:
                bar.advance(task, len(groups))
                continue
            engine = Engine(
                runs.subset(chunk),
                calibration=calibration,
                fast=True,
                absolute_limits=absolute,
                ranked_percentiles=ranked,
            )
            for group in groups:
                _accumulate(engine, group, metric, weights, num, den)
                bar.advance(task)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = den[:, None, :]
        curves = np.where(total > 0, num / np.where(total > 0, total, 1), np.nan)
    rows = _table(schedule.x, grid, reward_fns, curves, window)
    return SweepResult(
        x=schedule.x,
        environments=grid,
        rewards=[r.name for r in reward_fns],
        curves=curves,
        rows=rows,
        metric=metric,
        window=window,
        seconds=time.perf_counter() - start,
        corpus=corpus,
    )


@dataclass(frozen=True, eq=False)
class _Weights:
    """A chunk's schedule weights as a sparse list sorted by column: column c (the even
    samples at point c, then — unless they weigh the same — the odd ones at point c − K)
    gets ``weight`` × the value of pair ``pair``."""

    pair: np.ndarray
    weight: np.ndarray
    starts: np.ndarray  # where each non-empty column begins
    columns: np.ndarray  # which column that is
    points: int  # K
    symmetric: bool  # even and odd samples weigh the same (the exact-mean schedule)

    @classmethod
    def of(cls, schedule: Schedule, chunk: slice) -> _Weights:
        K = schedule.points
        even = schedule.even[:, chunk].reshape(K, -1)
        odd = schedule.odd[:, chunk].reshape(K, -1)
        symmetric = bool(np.array_equal(even, odd))
        dense = even if symmetric else np.concatenate([even, odd])
        column, pair = np.nonzero(dense)
        starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]]) if len(column) else column
        return cls(pair, dense[column, pair], starts, column[starts], K, symmetric)

    @property
    def size(self) -> int:
        return len(self.pair)

    def sums(self, stack: np.ndarray) -> np.ndarray:
        """(V, 2, K) the weighted sums of every row of ``stack`` (V, P·R) over the even and
        the odd samples at each point (without BLAS, which stalls on a busy machine)."""
        K = self.points
        out = np.zeros((len(stack), K if self.symmetric else 2 * K))
        out[:, self.columns] = np.add.reduceat(stack[:, self.pair] * self.weight, self.starts, 1)
        return np.stack([out, out], axis=1) if self.symmetric else out.reshape(-1, 2, K)


def _accumulate(
    engine: Engine,
    group: _Group,
    metric: Metric,
    weights: _Weights,
    num: np.ndarray,
    den: np.ndarray,
) -> None:
    """Add one chunk's share of a group's curves: per-pair values × the schedule's weights."""
    base = engine.signals(group.configs[0])  # all but the gate is the same for every member
    gates = [gate(c, base.timeout_fraction, base.q_dur) for c in group.configs]
    ok = base.ok
    speeds: dict[str, np.ndarray] = {}
    stack = np.empty((len(group.vectors) + 1, ok.size))
    for i, (kind, what, m) in enumerate(group.vectors):
        if kind == "shape":
            values = metric_values(reward_values(what, base, 0, speeds), metric)
        else:
            values = {
                "g": gates[m],
                "sg": base.c_strict * gates[m],
                "cg": base.c_cor * gates[m],
                "c": base.c_cor,
                "s": base.c_strict,
            }[kind]
        stack[i] = np.where(ok, values, 0.0).ravel()
    stack[-1] = ok.ravel()
    sums = weights.sums(stack)  # (V + 1, 2, K)
    m, w, parity, v = group.terms.T
    np.add.at(num, (group.members[m], w), group.coefficients[:, None] * sums[v, parity])
    den[group.members] += sums[-1].sum(axis=0)


def _table(
    x: np.ndarray,
    grid: Sequence[GridPoint],
    reward_fns: Sequence[RewardFn],
    curves: np.ndarray,
    window: int,
) -> list[dict[str, Any]]:
    E, W, K = curves.shape
    flat = curves.reshape(E * W, K)
    diagnostics = diagnose_many(x, flat, window=window)
    rows = []
    for i in range(E * W):
        point, reward_fn = grid[i // W], reward_fns[i % W]
        row: dict[str, Any] = {
            "family": point.family,
            "environment": point.name,
            "params": point.params,
            "reward": reward_fn.name,
            "curve": flat[i].tolist(),
        }
        for key, values in diagnostics.items():
            value = values[i]
            row[key] = value if key == "degenerate" else float(value)
        rows.append(row)
    _rank(rows)
    return sorted(rows, key=lambda r: (r["rank"] is None, r["score"], r["family"]))


def _rank(rows: list[dict[str, Any]]) -> None:
    live = [r for r in rows if not r["degenerate"]]
    for r in rows:
        r["rank"], r["score"] = None, math.inf
    if not live:
        return
    deviation = np.array([r["deviation"] for r in live])
    correlation = np.nan_to_num(np.array([r["correlation"] for r in live]), nan=-np.inf)
    steep = np.nan_to_num(np.array([r["steepness"] for r in live]), nan=-np.inf)
    score = (average_ranks(deviation) + average_ranks(-correlation) + average_ranks(-steep)) / 3
    for r, s in zip(live, score, strict=True):
        r["score"] = float(s)
    for position, i in enumerate(np.argsort(score, kind="stable"), start=1):
        live[i]["rank"] = position
