"""The pairwise speed judge (spec pairwise-judge.md): *why* one source's programs are faster.

The reward only sees that a program is faster. After an evaluation campaign this module picks,
per problem, one program of each of two sources — two sampled models, or a model and the
``references`` (the fastest correct reference) — whose true speed order is known from the
campaign's records, shows them to a judge model blinded as "Solution 1" / "Solution 2" in a
random order, R times per pair, and classifies the judge's explanation of the difference.

The pieces, each a pure function of stored data:

- :func:`select_pairs` — the pairs and the spec's drop counts (:class:`PairSelection`);
- :func:`judge_prompt`, :func:`call_order` — what one call shows, and in which order;
- :func:`execrl.evaluate.judge_parse.parse_judgement` — the tolerant reader of the answer;
- :func:`is_speed_correct`, :func:`label_pair` — the speed-correct filter and majority labels;
- :func:`judge_metrics` — accuracy, classifiable share, category proportions per winner.

Calling the judge and writing the folder is :mod:`execrl.evaluate.judge_run`. See docs/judge.md.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from execrl.errors import UsageError
from execrl.evaluate.judge_parse import (
    CASES,
    SAME,
    SOLUTION_1,
    SOLUTION_2,
    Classification,
    Judgement,
    PrimaryCategory,
)
from execrl.evaluate.replay import EvalData
from execrl.problems.models import Problem, ReferenceLabel
from execrl.sandbox.protocol import Conversation
from execrl.sandbox.records import ExecutionRecord

REFERENCES = "references"
"""The source name of the fastest correct reference per problem (human solutions)."""
SPEED_TIE = 0.01
"""Pairs whose relative speed difference is below this are speed ties (dropped)."""
CALLS_PER_PAIR = 10
"""R: judge calls per pair, each with its own random order."""
MIN_SPEED_CORRECT = 3
"""A pair with fewer speed-correct calls than this is unclassifiable."""


# --------------------------------------------------------------------------------------------
# Pairs


@dataclass(frozen=True)
class Candidate:
    """One source's program on one problem: the one the judge sees."""

    source: str
    name: str
    """The sample (``model#index``) or the reference's name."""
    code: str
    mean_duration: float
    """Mean duration over the optimization tests, in the campaign's timing unit."""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.code.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class JudgePair:
    """Two sources' programs on one problem; the truly faster one is known."""

    problem_id: str
    statement: str
    a: Candidate
    b: Candidate

    @property
    def faster(self) -> str:
        """The source whose program is truly faster."""
        return self.a.source if self.a.mean_duration < self.b.mean_duration else self.b.source

    @property
    def relative_difference(self) -> float:
        return relative_difference(self.a.mean_duration, self.b.mean_duration)

    def candidate(self, source: str) -> Candidate:
        return self.a if source == self.a.source else self.b


@dataclass(frozen=True)
class PairSelection:
    """The judged pairs of two sources and why the other problems were dropped (the spec's
    counts: problems → both fail, one fails, speed ties → judged pairs)."""

    sources: tuple[str, str]
    problems: int
    both_fail: int
    one_fails: int
    speed_ties: int
    pairs: tuple[JudgePair, ...]

    @property
    def judged_pairs(self) -> int:
        return len(self.pairs)

    def counts(self) -> dict[str, int]:
        return {
            "problems": self.problems,
            "both_fail": self.both_fail,
            "one_fails": self.one_fails,
            "speed_ties": self.speed_ties,
            "judged_pairs": self.judged_pairs,
        }

    def describe(self) -> str:
        return (
            f"{self.problems} problems → {self.both_fail} both fail, {self.one_fails} one "
            f"fails, {self.speed_ties} speed ties → {self.judged_pairs} judged pairs"
        )


def relative_difference(x: float, y: float) -> float:
    """``(slower − faster) / faster`` **[ours]**: 0 for two equal durations, infinite when
    only the faster one is 0."""
    fast, slow = sorted((x, y))
    if slow == fast:
        return 0.0
    return math.inf if fast <= 0 else (slow - fast) / fast


def is_speed_tie(x: float, y: float, threshold: float = SPEED_TIE) -> bool:
    """Whether two mean durations differ by less than ``threshold`` (relative)."""
    return relative_difference(x, y) < threshold


def mean_optimization_duration(
    record: ExecutionRecord, problem: Problem, timing: str
) -> float | None:
    """The mean duration of a passing record over the problem's optimization tests (all of
    its tests when it has none **[ours]**); None unless every test the problem asks for ran
    and succeeded (a timeout is not passing: its duration is not a measurement)."""
    results = {r.test_id: r for r in record.results}
    wanted = [t.id for t in problem.optimization_tests] or [t.id for t in problem.tests]
    if not record.all_passed or not wanted or any(t not in results for t in wanted):
        return None
    return sum(results[t].duration_s(timing) for t in wanted) / len(wanted)


def ran_every_test(record: ExecutionRecord, problem: Problem) -> bool:
    """Whether the record has a result for every test of the problem (a sample's run does;
    one missing a correctness test cannot count as passing)."""
    ran = {r.test_id for r in record.results}
    return all(t.id in ran for t in problem.tests)


def best_sample(
    data: EvalData, programs: Mapping[tuple[str, str, int], str], model: str, problem_id: str
) -> Candidate | None:
    """The model's passing sample with the lowest mean optimization-test duration (best of N;
    ties: the lower sample index); None when no sample passes every test."""
    problem = data.problems[problem_id]
    best: Candidate | None = None
    for run in data.samples:
        if run.model != model or run.problem_id != problem_id:
            continue
        if not ran_every_test(run.record, problem):
            continue
        mean = mean_optimization_duration(run.record, problem, data.timing)
        if mean is not None and (best is None or mean < best.mean_duration):
            code = programs[(model, problem_id, run.index)]
            best = Candidate(model, f"{model}#{run.index}", code, mean)
    return best


def fastest_reference(data: EvalData, problem_id: str) -> Candidate | None:
    """The fastest correct reference: among the correct references, those that passed every
    optimization test in this campaign, the lowest mean duration; None when none did."""
    problem = data.problems[problem_id]
    records = data.references.get(problem_id, {})
    best: Candidate | None = None
    for ref in problem.references_labelled(ReferenceLabel.CORRECT):
        record = records.get(ref.name)
        mean = None if record is None else mean_optimization_duration(record, problem, data.timing)
        if mean is not None and (best is None or mean < best.mean_duration):
            best = Candidate(REFERENCES, ref.name, ref.code, mean)
    return best


def select_pairs(
    data: EvalData,
    programs: Mapping[tuple[str, str, int], str],
    a: str,
    b: str,
    *,
    tie: float = SPEED_TIE,
) -> PairSelection:
    """Per problem (in the folder's order), the best program of source ``a`` and of ``b`` (a
    model label, or :data:`REFERENCES`), dropping problems where both or one side have no
    passing program and speed ties. ``programs`` maps (model, problem, index) to the sample's
    program. An unknown source or ``a == b`` is a UsageError naming the labels there are."""
    check_sources(data, a, b)
    both_fail = one_fails = ties = 0
    pairs = []
    for pid, problem in data.problems.items():
        x, y = (_candidate(data, programs, source, pid) for source in (a, b))
        if x is None and y is None:
            both_fail += 1
        elif x is None or y is None:
            one_fails += 1
        elif is_speed_tie(x.mean_duration, y.mean_duration, tie):
            ties += 1
        else:
            pairs.append(JudgePair(pid, problem.statement or problem.title, x, y))
    return PairSelection((a, b), len(data.problems), both_fail, one_fails, ties, tuple(pairs))


def check_sources(data: EvalData, a: str, b: str) -> None:
    known = [*data.models, REFERENCES]
    for source in (a, b):
        if source not in known:
            raise UsageError(
                f"no source {source!r} in this evaluation; use a model label "
                f"({', '.join(data.models) or 'none sampled'}) or {REFERENCES!r}"
            )
    if a == b:
        raise UsageError(f"compare two different sources, got {a!r} twice")


def _candidate(
    data: EvalData, programs: Mapping[tuple[str, str, int], str], source: str, problem_id: str
) -> Candidate | None:
    if source == REFERENCES:
        return fastest_reference(data, problem_id)
    return best_sample(data, programs, source, problem_id)


# --------------------------------------------------------------------------------------------
# The prompt and the order of one call

JUDGE_SYSTEM = (
    "You are an expert in algorithms and in the performance of Python programs. You compare "
    "two correct solutions to the same programming problem and explain which one runs faster "
    "on large inputs and why."
)

JUDGE_INSTRUCTIONS = f"""\
Both solutions are correct. First analyse them in free text: their algorithms, data \
structures, input/output handling and time complexity. Then decide which solution is faster \
on large inputs, and classify the difference between the one you call faster and the other.

End your answer with ONE JSON object with exactly these fields:
- "faster": "{SOLUTION_1}", "{SOLUTION_2}" or "{SAME}"
- "primary_category": one of {", ".join(c.value for c in PrimaryCategory)}
- "secondary_categories": a list of further categories from the same set (may be empty)
- "classification": "ALGORITHMIC" (a real change of algorithm or complexity) or "SUPERFICIAL" \
(same algorithm; I/O, constant factors or style)
- "classification_reason": one line saying why
- "complexity": {{"solution_1": {{"best": ..., "average": ..., "worst": ...}}, \
"solution_2": {{...}}}} in big-O notation
- "complexity_improves": {{"best": true/false/null, "average": true/false/null, \
"worst": true/false/null}}: does the faster solution's complexity improve on the other's
- "key_differences": a list of short strings"""


def judge_prompt(pair: JudgePair, order: tuple[str, str]) -> Conversation:
    """The conversation of one call: the statement, then the source ``order[0]``'s program as
    Solution 1 and ``order[1]``'s as Solution 2 (never which source or how fast)."""
    first, second = (pair.candidate(source) for source in order)
    user = (
        f"## Problem\n\n{pair.statement.strip()}\n\n"
        f"## {SOLUTION_1}\n\n```python\n{first.code.rstrip()}\n```\n\n"
        f"## {SOLUTION_2}\n\n```python\n{second.code.rstrip()}\n```\n\n"
        f"{JUDGE_INSTRUCTIONS}"
    )
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


def call_order(pair: JudgePair, call: int, seed: int) -> tuple[str, str]:
    """The sources shown as (Solution 1, Solution 2) in call ``call`` of ``pair``: a fair coin
    seeded by (seed, problem, call), so a rerun or a resumed run shows the same order."""
    rng = random.Random(f"{seed}:{pair.problem_id}:{call}")
    a, b = pair.a.source, pair.b.source
    return (b, a) if rng.random() < 0.5 else (a, b)


# --------------------------------------------------------------------------------------------
# Calls and labels


@dataclass(frozen=True)
class JudgeCall:
    """One judge call on one pair: the order shown, the raw answer, what was read from it."""

    problem_id: str
    call: int
    order: tuple[str, str]
    raw: str
    judgement: Judgement | None
    error: str | None = None

    @property
    def parsed(self) -> bool:
        return self.judgement is not None

    @property
    def predicted_faster(self) -> str | None:
        """The source the judge called faster, mapped back through the order (None for
        ``Same`` or an unparseable answer)."""
        if self.judgement is None or self.judgement.faster == SAME:
            return None
        return self.order[0] if self.judgement.faster == SOLUTION_1 else self.order[1]


def is_speed_correct(call: JudgeCall, truly_faster: str) -> bool:
    """The call named the truly faster program (``Same`` and unparseable calls never do)."""
    return call.predicted_faster == truly_faster


def majority(values: Sequence[Any], order: Sequence[Any]) -> tuple[Any | None, bool]:
    """The most common of ``values`` and whether it was tied; a tie goes to the value listed
    first in ``order`` (the spec's order of the categories) **[ours]**."""
    counts = Counter(v for v in values if v is not None)
    if not counts:
        return None, False
    top = max(counts.values())
    winners = [v for v in order if counts.get(v) == top]
    return winners[0], len(winners) > 1


@dataclass(frozen=True)
class PairLabel:
    """A pair's label: the majority over its speed-correct calls, or unclassifiable."""

    problem_id: str
    faster: str
    """The truly faster source."""
    relative_difference: float
    calls: int
    parsed: int
    speed_correct: int
    classifiable: bool
    primary_category: PrimaryCategory | None = None
    classification: Classification | None = None
    category_tied: bool = False
    classification_tied: bool = False
    complexity_improves: dict[str, bool | None] = field(default_factory=dict)
    """Per case, the majority over speed-correct calls that answered it (None: no answer)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem_id": self.problem_id,
            "faster": self.faster,
            "relative_difference": _finite(self.relative_difference),
            "calls": self.calls,
            "parsed": self.parsed,
            "speed_correct": self.speed_correct,
            "classifiable": self.classifiable,
            "primary_category": self.primary_category,
            "classification": self.classification,
            "category_tied": self.category_tied,
            "classification_tied": self.classification_tied,
            "complexity_improves": self.complexity_improves,
        }


def label_pair(
    pair: JudgePair, calls: Sequence[JudgeCall], *, min_speed_correct: int = MIN_SPEED_CORRECT
) -> PairLabel:
    """The spec's rule: fewer than ``min_speed_correct`` speed-correct calls → unclassifiable;
    otherwise the majority primary category and classification over the speed-correct calls
    (ties: :func:`majority`)."""
    correct = [c.judgement for c in calls if is_speed_correct(c, pair.faster) and c.judgement]
    base = {
        "problem_id": pair.problem_id,
        "faster": pair.faster,
        "relative_difference": pair.relative_difference,
        "calls": len(calls),
        "parsed": sum(c.parsed for c in calls),
        "speed_correct": len(correct),
    }
    if len(correct) < min_speed_correct:
        return PairLabel(**base, classifiable=False)
    category, category_tied = majority([j.primary_category for j in correct], list(PrimaryCategory))
    kind, kind_tied = majority([j.classification for j in correct], list(Classification))
    improves = {
        case: majority([j.complexity_improves.get(case) for j in correct], [True, False])[0]
        for case in CASES
    }
    return PairLabel(
        **base,
        classifiable=True,
        primary_category=category,
        classification=kind,
        category_tied=category_tied,
        classification_tied=kind_tied,
        complexity_improves=improves,
    )


# --------------------------------------------------------------------------------------------
# Metrics


@dataclass(frozen=True)
class WinnerShares:
    """The classifiable pairs one source won, and their labels' proportions."""

    source: str
    pairs: int
    classifiable: int
    primary_category: dict[str, float]
    """Per category: its share of the classifiable pairs this source won (0 when none)."""
    classification: dict[str, float]

    @classmethod
    def of(cls, source: str, labels: Sequence[PairLabel]) -> WinnerShares:
        won = [label for label in labels if source in ("all", label.faster)]
        done = [label for label in won if label.classifiable]
        return cls(
            source=source,
            pairs=len(won),
            classifiable=len(done),
            primary_category=_shares([lb.primary_category for lb in done], list(PrimaryCategory)),
            classification=_shares([lb.classification for lb in done], list(Classification)),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "classifiable": self.classifiable,
            "primary_category": self.primary_category,
            "classification": self.classification,
        }


@dataclass(frozen=True)
class JudgeMetrics:
    """What the report shows: call counts, the judge's speed-identification accuracy, the
    classifiable share and the category proportions, overall and per winning source."""

    selection: PairSelection
    calls_per_pair: int
    min_speed_correct: int
    calls: int
    parsed: int
    unparseable: int
    same: int
    """Parsed calls that answered ``Same`` (never speed-correct: no judged pair is a tie)."""
    speed_correct: int
    speed_accuracy: float
    """Speed-correct calls over all calls: an unparseable call counts as not speed-correct."""
    speed_accuracy_parsed: float
    """Speed-correct calls over the parsed calls only."""
    classifiable: int
    classifiable_share: float
    by_winner: dict[str, WinnerShares]
    """``all`` and each source: the pairs it won."""
    labels: tuple[PairLabel, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "sources": list(self.selection.sources),
            "selection": self.selection.counts(),
            "calls_per_pair": self.calls_per_pair,
            "min_speed_correct": self.min_speed_correct,
            "calls": self.calls,
            "parsed": self.parsed,
            "unparseable": self.unparseable,
            "same": self.same,
            "speed_correct": self.speed_correct,
            "speed_accuracy": _finite(self.speed_accuracy),
            "speed_accuracy_parsed": _finite(self.speed_accuracy_parsed),
            "classifiable": self.classifiable,
            "classifiable_share": _finite(self.classifiable_share),
            "by_winner": {k: v.to_dict() for k, v in self.by_winner.items()},
            "pairs": [label.to_dict() for label in self.labels],
        }


def judge_metrics(
    selection: PairSelection,
    calls: Mapping[str, Sequence[JudgeCall]],
    *,
    calls_per_pair: int,
    min_speed_correct: int = MIN_SPEED_CORRECT,
) -> JudgeMetrics:
    """The metrics of ``calls`` (per problem id) on the selection's pairs."""
    labels = tuple(
        label_pair(p, calls.get(p.problem_id, ()), min_speed_correct=min_speed_correct)
        for p in selection.pairs
    )
    every = [c for p in selection.pairs for c in calls.get(p.problem_id, ())]
    parsed = [c for c in every if c.parsed]
    correct = sum(label.speed_correct for label in labels)
    classifiable = sum(label.classifiable for label in labels)
    return JudgeMetrics(
        selection=selection,
        calls_per_pair=calls_per_pair,
        min_speed_correct=min_speed_correct,
        calls=len(every),
        parsed=len(parsed),
        unparseable=len(every) - len(parsed),
        same=sum(c.judgement is not None and c.judgement.faster == SAME for c in parsed),
        speed_correct=correct,
        speed_accuracy=_ratio(correct, len(every)),
        speed_accuracy_parsed=_ratio(correct, len(parsed)),
        classifiable=classifiable,
        classifiable_share=_ratio(classifiable, len(labels)),
        by_winner={s: WinnerShares.of(s, labels) for s in ("all", *selection.sources)},
        labels=labels,
    )


def _shares(values: Sequence[Any], order: Sequence[Any]) -> dict[str, float]:
    total = len(values)
    return {str(v): (sum(x == v for x in values) / total if total else 0.0) for v in order}


def _ratio(num: int, den: int) -> float:
    return num / den if den else math.nan


def _finite(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else value
