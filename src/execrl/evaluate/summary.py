"""What an executed campaign holds at a glance (``execrl eval run`` prints it): per model its
samples, how many are strictly correct and how many inconclusive, and the reference test runs
that neither succeeded nor timed out (those references are left out of D_t there)."""

from __future__ import annotations

from dataclasses import dataclass

from execrl.evaluate.replay import EvalData, replay
from execrl.sandbox.records import Status


@dataclass(frozen=True)
class ModelTally:
    """One model's samples in a campaign, scored as executed."""

    model: str
    samples: int
    strictly_correct: int
    inconclusive: int


def model_tallies(data: EvalData) -> list[ModelTally]:
    """Per model (in sampling order), its samples scored under the executed settings."""
    scores = replay(data).scores
    tallies = []
    for model in data.models:
        mine = [s for s in scores if s.model == model]
        tallies.append(
            ModelTally(
                model,
                len(mine),
                sum(s.c_strict for s in mine),
                sum(s.inconclusive for s in mine),
            )
        )
    return tallies


def failing_reference_runs(data: EvalData) -> int:
    """How many reference test runs neither succeeded nor timed out."""
    return sum(
        r.status not in (Status.SUCCESS, Status.TIMEOUT)
        for refs in data.references.values()
        for record in refs.values()
        for r in record.results
    )
