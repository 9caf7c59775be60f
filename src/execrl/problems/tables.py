"""A problem set described as text, for any front end: one row per problem (``execrl problems
list``), a problem's test counts by group, its facts line and its references."""

from __future__ import annotations

from collections.abc import Sequence

from execrl.problems.models import Problem, TestGroup

LIST_COLUMNS = ["id", "title", "difficulty", "T0", "T+", "T_O", "refs ✓/✗"]
"""T0, T+, T_O: original, extra and optimization tests; refs: correct/incorrect references."""


def list_table(problems: Sequence[Problem]) -> tuple[list[str], list[list[str]]]:
    """One row per problem: id, title, difficulty, tests per group, references by label."""
    return LIST_COLUMNS, [_list_row(p) for p in problems]


def _list_row(p: Problem) -> list[str]:
    tests = [str(len(p.tests_in(g))) for g in TestGroup]
    refs = f"{len(p.references_labelled('correct'))}/{len(p.references_labelled('incorrect'))}"
    return [p.id, p.title, str(p.difficulty), *tests, refs]


def tests_by_group(problem: Problem) -> str:
    """Its tests per group, in suite order: ``original 3, extra 2, optimization 5``."""
    return ", ".join(f"{g.value} {len(problem.tests_in(g))}" for g in TestGroup)


def facts_line(problem: Problem) -> str:
    """Difficulty, limits, checker and source on one line."""
    return (
        f"difficulty {problem.difficulty} · time limit {problem.time_limit_s} s · "
        f"memory {problem.memory_limit_mb} MB · checker {problem.checker.kind} · "
        f"source {problem.source.dataset}"
    )


def reference_lines(problem: Problem) -> list[str]:
    """One aligned line per reference: label, name, language, and its tier or flaw."""
    lines = []
    for ref in problem.references:
        note = ref.tier or ref.flaw or ""
        lines.append(f"  {ref.label.value:9} {ref.name:28} {ref.language:10} {note}".rstrip())
    return lines
