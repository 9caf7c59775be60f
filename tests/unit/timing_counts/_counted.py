"""Counted campaigns built by hand: Measurements whose reruns carry a CPU time and a count, as
``execrl timing campaign --timing instructions`` stores them."""

from __future__ import annotations

from datetime import UTC, datetime

from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.records import Status
from execrl.timing.store import (
    Campaign,
    CampaignInfo,
    ExecutorSettings,
    Measurement,
)

MACHINE = MachineFingerprint(
    hostname="test", cpu_model="toy", cores=2, kernel="6.0", python="3.11.7"
)


def measurement(
    key: tuple[str, str, str],
    reruns: list[tuple[Status, float, int | None]],
    *,
    cycles: bool = False,
) -> Measurement:
    """One triple from ``[(status, cpu_s, instructions), ...]`` (wall = 1.5 x CPU; estimated
    cycles, if asked, = 2 x instructions)."""
    problem, test, reference = key
    counts = [c for _, _, c in reruns]
    return Measurement(
        problem_id=problem,
        test_id=test,
        reference=reference,
        statuses=[s for s, _, _ in reruns],
        cpu_s=[t for _, t, _ in reruns],
        wall_s=[1.5 * t for _, t, _ in reruns],
        instructions=counts,
        cycles_estimate=[None if c is None else 2.0 * c for c in counts] if cycles else None,
    )


def counted_campaign(
    campaign_id: str,
    measurements: list[Measurement],
    timing: str = "instructions",
) -> Campaign:
    info = CampaignInfo(
        id=campaign_id,
        created_at=datetime(2026, 12, 1, tzinfo=UTC),
        machine=MACHINE,
        settings=ExecutorSettings(reruns=max(len(m.statuses) for m in measurements), timing=timing),
        problems=sorted({m.problem_id for m in measurements}),
    )
    return Campaign(info=info, measurements=measurements)


def ok(cpu_s: float, count: int) -> tuple[Status, float, int]:
    return (Status.SUCCESS, cpu_s, count)
