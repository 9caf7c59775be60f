"""Reference durations measured next to the programs they rank (``execrl score --references
measure``), stored as a timing-store campaign: the same file :func:`load_campaign` reads and
``execrl timing`` reports, not a format of their own.

Spec §5 asks to compare what ran together: the references run once on the optimization tests,
on the same machine and executor as the programs, and the campaign keeps every run's status
and every clock (and the counts, under a counted timing). Durations are read from it under
the cap and count rate of whoever scores against it (:func:`with_campaign_durations`), so a
campaign measured once serves any later cap or ``--count-rate``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from execrl.errors import LoaderError
from execrl.problems.models import Problem, ReferenceLabel
from execrl.sandbox.limits import TimingMetric, is_counted
from execrl.sandbox.protocol import Executor
from execrl.timing.store import Campaign, DurationStore, load_campaign, run_campaign

OLD_FORMAT = "execrl-reference-durations/1"
"""The JSON file ``--references measure`` wrote before durations were campaigns (no longer
read: it kept only aggregated durations, without statuses, so it cannot become a campaign)."""


def measure_campaign(
    problems: Sequence[Problem],
    executor: Executor,
    *,
    timing: TimingMetric = "cpu",
    note: str = "",
    progress: bool = True,
) -> Campaign:
    """One pass of every correct reference of ``problems`` over its optimization tests on
    ``executor`` (:func:`execrl.timing.store.run_campaign` with one rerun)."""
    return run_campaign(problems, executor, reruns=1, timing=timing, note=note, progress=progress)


def save_measured(campaign: Campaign, store_root: str | Path) -> Path:
    """Save ``campaign`` in the timing store at ``store_root`` (made if missing); returns the
    campaign file."""
    return DurationStore(store_root).save(campaign)


def measured_store(out: Path) -> Path:
    """The store that keeps a results file's measured references: ``runs/score-x.jsonl`` →
    ``runs/score-x.references/`` (so ``--resume`` finds them again)."""
    name = out.name.removesuffix(".gz").removesuffix(".jsonl")
    return out.with_name(f"{name}.references")


def latest_measured(store_root: Path) -> Campaign | None:
    """The latest campaign in the store at ``store_root``; None when it holds none."""
    store = DurationStore(store_root)
    return store.load() if store.ids() else None


def read_campaign(path: str | Path) -> Campaign:
    """The campaign ``path`` names: a campaign file (``.jsonl.gz``), or a store folder (its
    latest campaign). A file in the old ``execrl-reference-durations/1`` format is refused in
    one line that says how to measure again."""
    path = Path(path)
    if path.is_dir():
        return DurationStore(path).load()
    if not path.is_file():
        raise LoaderError(
            f"`references` {path}: expected 'measure', 'stored' or a saved timing campaign "
            "(a .jsonl.gz campaign file or a timing store folder; no such file)"
        )
    if _is_old_format(path):
        raise LoaderError(
            f"{path}: reference durations in the old {OLD_FORMAT} format, no longer read "
            "(measured durations are timing campaigns now); measure them again with "
            "`execrl score --references measure` (saved as <out>.references/) or `execrl "
            "timing campaign`, and pass that campaign's .jsonl.gz file"
        )
    return load_campaign(path)


def _is_old_format(path: Path) -> bool:
    """Whether ``path`` is a JSON file of the old reference-durations format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == OLD_FORMAT


def check_campaign_timing(campaign: Campaign, timing: TimingMetric, where: str) -> None:
    """A campaign serves every clock (it keeps cpu and wall times of every run), but a count
    only if it counted: a counted ``timing`` it holds no counts of is a one-line error."""
    if is_counted(timing) and not any(m.has(timing) for m in campaign.measurements):
        raise LoaderError(
            f"{where}: these durations were measured by {campaign.timing}, but the environment "
            f"is timed by {timing}; score with `timing` {campaign.timing}, or measure the "
            "references again (`references` measure)"
        )


def with_campaign_durations(
    problems: Mapping[str, Problem],
    campaign: Campaign,
    *,
    timing: TimingMetric,
    caps_s: Mapping[str, float],
    per_second: float | None = None,
    where: str = "",
) -> dict[str, Problem]:
    """``problems`` whose correct references carry ``campaign``'s durations in ``timing``'s
    unit, a timeout at the problem's cap (``caps_s``; for a count at ``per_second`` counts
    per CPU second). References the campaign did not measure keep their own durations; a
    problem it has none for is a one-line error naming ``where`` (the campaign's file)."""
    where = where or f"campaign {campaign.id}"
    check_campaign_timing(campaign, timing, where)
    missing = sorted(set(problems) - set(campaign.info.problems))
    if missing:
        raise LoaderError(f"{where}: no measured durations for {', '.join(missing)}")
    updated = {}
    for pid, problem in problems.items():
        cap = caps_s[pid]
        measured = campaign.durations(timing, cap_s=cap, per_second=per_second).get(pid, {})
        refs = [
            ref.model_copy(update={"durations_s": measured[ref.name]})
            if ref.name in measured and ref.label == ReferenceLabel.CORRECT
            else ref
            for ref in problem.references
        ]
        updated[pid] = problem.model_copy(update={"references": refs})
    return updated
