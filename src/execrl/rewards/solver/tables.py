"""The solver commands' tables as text: a header and rows of cells, for any front end (the
CLI prints them; a notebook can hand them to pandas). Numbers are formatted as the reports
show them: rewards to three significant digits, rates as percentages, ``—`` for none."""

from __future__ import annotations

from collections.abc import Sequence

from execrl.report import Table
from execrl.results import Row
from execrl.rewards.solver.evaluation import CATEGORIES, EvaluationReport, Summary

"""(header, rows): every cell a string."""


def score_table(scored: Sequence[Row]) -> Table:
    """One row per score row of :func:`~execrl.rewards.solver.response_files.score_response_rows`:
    problem, reward and its terms, verdict."""
    header = ["problem", "reward", "format", "exec", "acc", "bonus", "verdict"]
    rows = []
    for r in scored:
        reward = "—" if r["reward"] is None else f"{r['reward']:.3g}"
        terms = [f"{r[t]:g}" for t in ("execution", "accuracy", "bonus")]
        rows.append([str(r["problem_id"]), reward, f"{r['format']:.3g}", *terms, r["verdict"]])
    return header, rows


def evaluation_table(report: EvaluationReport) -> Table:
    """One row for all samples, then one per benchmark (source): counts, pass@1, execution
    rate, the verdict breakdown and the self-consistency accuracies."""
    header = ["benchmark", "problems", "samples", "pass@1", "exec rate", *CATEGORIES]
    rows = [_summary_row(n, s) for n, s in [("overall", report.overall), *report.by_source.items()]]
    return [*header, "vote / IE-SC"], rows


def _summary_row(name: str, s: Summary) -> list[str]:
    vote = "—"
    if s.majority_accuracy is not None:
        vote = f"{percent(s.majority_accuracy)} / {percent(s.instance_enhanced_accuracy)}"
    counts = [str(s.n_problems), str(s.n_samples), percent(s.pass_at_1), percent(s.execution_rate)]
    return [name, *counts, *(str(s.breakdown[c]) for c in CATEGORIES), vote]


def percent(value: float | None) -> str:
    """``0.125`` as ``12.5%``; None as ``—``."""
    return "—" if value is None else f"{100 * value:.1f}%"
