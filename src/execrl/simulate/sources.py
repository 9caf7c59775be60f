"""What the offline simulator replays, chosen from the stored runs a person names (what
``execrl simulate run | sweep`` do before simulating): a timing campaign of the store, a
scoring-records file, or a synthetic corpus; the schedule of quality bands, optionally with
the bands taken from another campaign; and the tables of the results, as text cells.

    runs, corpus = load_stored_runs(problems, campaign=store.load(None))
    schedule = Schedule.build(runs, points=21)
    print(corpus, describe_schedule(schedule))
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from execrl.problems.models import Problem
from execrl.report import Table
from execrl.sandbox.limits import TimingMetric
from execrl.simulate.runs import StoredRuns, load_runs
from execrl.simulate.schedule import Schedule, aligned_quality
from execrl.simulate.simulation import Simulation
from execrl.simulate.sweep import SweepResult
from execrl.simulate.synthetic import synthetic_runs

"""(header, rows): every cell a string."""

SIMULATION_COLUMNS = ["environment", "reward", "degenerate", "dev ↓", "corr ↑", "corr~"]
SIMULATION_COLUMNS += ["steep ↑", "AUC", "AUC~", "var"]
SWEEP_COLUMNS = ["rank", "environment", "reward", "deviation", "correlation", "steepness"]
SWEEP_COLUMNS += ["same curve"]


def load_synthetic_runs(
    problems: int, *, tests: int = 120, references: int = 100, seed: int = 0
) -> tuple[StoredRuns, str]:
    """A synthetic corpus and its one-line description."""
    runs = synthetic_runs(problems, tests, references, seed=seed)
    return runs, (
        f"a synthetic corpus of {problems:,} problems × {tests} tests × {references} references"
    )


def load_stored_runs(
    problems: Sequence[Problem],
    *,
    campaign=None,
    records: str | Path | None = None,
    timing: TimingMetric = "cpu",
    count_rate: float | None = None,
) -> tuple[StoredRuns, str]:
    """The runs of ``problems`` stored in a timing campaign (a ``timing.store.Campaign``,
    passed in: the simulator reads records, it does not open the store) or a records file
    (exactly one), and a one-line description: where they come from, how many problems and
    correct references."""
    runs = load_runs(
        problems, campaign=campaign, records=records, timing=timing, count_rate=count_rate
    )
    where = f"campaign {campaign.id}" if campaign is not None else f"records {records}"
    return runs, f"{where}: {len(runs)} problems, {runs.pairs} correct references"


def quality_from_campaign(
    problems: Sequence[Problem],
    campaign,
    runs: StoredRuns,
    *,
    timing: TimingMetric = "cpu",
    count_rate: float | None = None,
) -> np.ndarray:
    """Quality scores of ``runs``' references judged on ``campaign``'s durations of the same
    problems, so the bands are not ranked on the durations being replayed."""
    source = load_runs(problems, campaign=campaign, timing=timing, count_rate=count_rate)
    return aligned_quality(source, runs)


def describe_schedule(schedule: Schedule, quality_campaign: str | None = None) -> str:
    """The schedule in one sentence: points, band width, band means or draws, and where the
    quality bands came from."""
    mode = "band means" if schedule.draws is None else f"{schedule.draws} draws per problem"
    source = f"; quality from campaign {quality_campaign}" if quality_campaign else ""
    return (
        f"{schedule.points} points from weak to strong, bands ±{schedule.half_width:.3f}, "
        f"{mode}{source}."
    )


def simulation_table(simulations: Sequence[Simulation]) -> Table:
    """One row per (environment, reward): degeneracy, then the ranked diagnostics (three
    decimals) and the variance (four)."""
    rows = []
    for sim in simulations:
        d = sim.diagnostics
        values = [f"{v:.3f}" for v in d.ranked_values()]
        rows.append(
            [sim.environment, sim.reward, d.degenerate or "no", *values, f"{d.variance:.4f}"]
        )
    return SIMULATION_COLUMNS, rows


def sweep_table(result: SweepResult, top: int) -> Table:
    """The best ``top`` distinct curves of a sweep: rank, configuration, diagnostics, and how
    many configurations share the curve."""
    rows = [
        [str(row["rank"]), row["environment"], row["reward"], f"{row['deviation']:.3f}",
         f"{row['correlation']:.3f}", f"{row['steepness']:.3f}", str(row["same"])]
        for row in result.distinct(top)
    ]  # fmt: skip
    return SWEEP_COLUMNS, rows
