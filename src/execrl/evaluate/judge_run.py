"""Running the pairwise judge on an evaluated folder and writing its folder.

::

    OUT/judge.jsonl   one row per judge call, appended as it finishes: the pair (problem, the
                      two programs' hashes), the call's index and order, the judge, the raw
                      answer, the parsed fields or the parse error, speed-correct or not
    OUT/judge.json    the settings, the pair selection's counts and every metric
    OUT/index.html    the report (:mod:`execrl.evaluate.judge_report`)

A rerun with the same judge and seed skips every call already in judge.jsonl (an interrupted
run resumes; a finished one only rewrites the metrics and the report). Metrics are recomputed
from the raw answers, so a rerun also applies the current parser to earlier calls.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from execrl.errors import OutputError, UsageError
from execrl.evaluate.folder import EvalFolder
from execrl.evaluate.judge import (
    CALLS_PER_PAIR,
    MIN_SPEED_CORRECT,
    SPEED_TIE,
    JudgeCall,
    JudgeMetrics,
    JudgePair,
    PairSelection,
    call_order,
    is_speed_correct,
    judge_metrics,
    judge_prompt,
    select_pairs,
)
from execrl.evaluate.judge_parse import parse_judgement
from execrl.evaluate.judge_report import write_judge_report
from execrl.evaluate.replay import load_eval
from execrl.evaluate.samplers import SamplingSettings, is_completions_file, open_sampler
from execrl.integrations.openai import OpenAIChatClient
from execrl.results import ResultsFile
from execrl.sandbox.batch import progress_bar
from execrl.sandbox.protocol import CompletionSampler

CALLS_FILE = "judge.jsonl"
METRICS_FILE = "judge.json"


@dataclass(frozen=True)
class JudgeSettings:
    """How pairs are chosen and judged."""

    calls_per_pair: int = CALLS_PER_PAIR
    """R: judge calls per pair, each in its own random order."""
    seed: int = 0
    """Seeds the order of every call (and is part of a call's identity in judge.jsonl)."""
    tie: float = SPEED_TIE
    """Relative speed difference below which a pair is a speed tie and dropped."""
    min_speed_correct: int = MIN_SPEED_CORRECT
    """Fewer speed-correct calls than this make a pair unclassifiable."""

    def check(self) -> None:
        if self.calls_per_pair < 1:
            raise UsageError(f"calls per pair must be >= 1, got {self.calls_per_pair}")
        if not 0 <= self.tie < 1:
            raise UsageError(f"the speed-tie threshold must lie in [0, 1), got {self.tie}")
        if self.min_speed_correct < 1:
            raise UsageError(f"min speed-correct calls must be >= 1, got {self.min_speed_correct}")


@dataclass(frozen=True)
class JudgeResult:
    """A finished judge run: its metrics and where they were written."""

    metrics: JudgeMetrics
    out: Path
    page: Path
    resumed: int
    """Calls taken from an earlier run's judge.jsonl."""
    new_calls: int


def load_pairs(path: str | Path, a: str, b: str, *, tie: float = SPEED_TIE) -> PairSelection:
    """The pairs of sources ``a`` and ``b`` in an executed evaluation folder (a folder without
    a campaign, or an unknown source, is a one-line error)."""
    data = load_eval(path)
    programs = {(s.model, s.problem_id, s.index): s.program for s in EvalFolder(path).samples()}
    return select_pairs(data, programs, a, b, tie=tie)


def open_judge(
    spec: str,
    settings: SamplingSettings,
    *,
    model_name: str | None = None,
    api_key: str | None = None,
) -> tuple[CompletionSampler, str]:
    """The judge's sampler and a description of it (``local``, a model folder or an
    OpenAI-compatible URL, through :func:`open_sampler`). An endpoint is asked for its models
    first, so an unreachable one fails before any work."""
    if is_completions_file(spec):
        raise UsageError(f"the judge {spec!r} is a file; give 'local', a model folder or a URL")
    sampler, info = open_sampler(spec, settings, n=1, model_name=model_name, api_key=api_key)
    if sampler is None:  # (only a completions file has none, refused above)
        raise UsageError(f"the judge {spec!r} cannot be sampled")
    if isinstance(sampler, OpenAIChatClient) and model_name:
        sampler.models()  # (without a model name, open_sampler has already asked)
    return sampler, info.model


def call_key(row: Mapping[str, Any]) -> Hashable:
    """What identifies a call in judge.jsonl: pair (problem and both programs), index, judge
    and seed (the judge's sampling settings are not part of it)."""
    return (row["problem_id"], tuple(row["programs"]), row["call"], row["judge"], row["seed"])


def pair_key(pair: JudgePair, call: int, *, judge: str, seed: int) -> Hashable:
    """:func:`call_key` of the row that call ``call`` of ``pair`` writes."""
    programs = [pair.a.sha256, pair.b.sha256]
    return call_key(
        {
            "problem_id": pair.problem_id,
            "programs": programs,
            "call": call,
            "judge": judge,
            "seed": seed,
        }
    )


def call_row(
    pair: JudgePair, call: int, order: tuple[str, str], raw: str, *, judge: str, seed: int
) -> dict[str, Any]:
    """The judge.jsonl row of one answered call."""
    parsed = parse_judgement(raw)
    judged = JudgeCall(pair.problem_id, call, order, raw, parsed.judgement, parsed.error)
    return {
        "problem_id": pair.problem_id,
        "sources": [pair.a.source, pair.b.source],
        "programs": [pair.a.sha256, pair.b.sha256],
        "call": call,
        "order": list(order),
        "judge": judge,
        "seed": seed,
        "raw": raw,
        "parsed": None if parsed.judgement is None else parsed.judgement.to_dict(),
        "error": parsed.error,
        "speed_correct": is_speed_correct(judged, pair.faster),
    }


def run_calls(
    selection: PairSelection,
    sampler: CompletionSampler,
    out_file: Path,
    *,
    judge: str,
    settings: JudgeSettings,
    progress: bool = True,
) -> tuple[dict[str, list[JudgeCall]], int, int]:
    """Every call of every pair, answered now or taken from ``out_file``: per problem, the
    calls in index order; with how many were resumed and how many made now. Calls of one pair
    shown in the same order are asked for together (``sampler.sample(prompt, k)``)."""
    rows: dict[Hashable, dict[str, Any]] = {}
    with ResultsFile(out_file, key=call_key, resume=True) as out:
        rows.update((call_key(r), r) for r in out.rows)
        todo = [
            (pair, r)
            for pair in selection.pairs
            for r in range(settings.calls_per_pair)
            if not out.has(pair_key(pair, r, judge=judge, seed=settings.seed))
        ]
        with progress_bar(progress) as bar:
            task = bar.add_task(f"judging {' vs '.join(selection.sources)}", total=len(todo))
            for pair, order, indices in _batches(todo, settings.seed):
                answers = sampler.sample(judge_prompt(pair, order), len(indices))
                for r, raw in zip(indices, answers, strict=True):
                    row = call_row(pair, r, order, raw, judge=judge, seed=settings.seed)
                    out.write(row)
                    rows[call_key(row)] = row
                bar.advance(task, len(indices))
    calls = {
        pair.problem_id: [
            _call(rows[pair_key(pair, r, judge=judge, seed=settings.seed)])
            for r in range(settings.calls_per_pair)
        ]
        for pair in selection.pairs
    }
    return calls, sum(settings.calls_per_pair for _ in selection.pairs) - len(todo), len(todo)


def _batches(todo: list[tuple[JudgePair, int]], seed: int):
    """(pair, order, call indices) for the calls still to make, grouped by pair and order."""
    groups: dict[tuple[str, tuple[str, str]], tuple[JudgePair, list[int]]] = {}
    for pair, r in todo:
        order = call_order(pair, r, seed)
        groups.setdefault((pair.problem_id, order), (pair, []))[1].append(r)
    for (_, order), (pair, indices) in groups.items():
        yield pair, order, indices


def _call(row: Mapping[str, Any]) -> JudgeCall:
    """A stored call, its answer read again by the current parser."""
    parsed = parse_judgement(row["raw"])
    order = (row["order"][0], row["order"][1])
    return JudgeCall(
        row["problem_id"], row["call"], order, row["raw"], parsed.judgement, parsed.error
    )


def judge_pairs(
    selection: PairSelection,
    sampler: CompletionSampler,
    out: str | Path,
    *,
    judge: str,
    settings: JudgeSettings = JudgeSettings(),
    progress: bool = True,
) -> JudgeResult:
    """Judge every pair ``settings.calls_per_pair`` times, then write judge.json and the
    report."""
    settings.check()
    out = Path(out)
    calls, resumed, made = run_calls(
        selection, sampler, out / CALLS_FILE, judge=judge, settings=settings, progress=progress
    )
    metrics = judge_metrics(
        selection,
        calls,
        calls_per_pair=settings.calls_per_pair,
        min_speed_correct=settings.min_speed_correct,
    )
    summary = {"judge": judge, "settings": asdict(settings), **metrics.to_dict()}
    _write_json(out / METRICS_FILE, summary)
    page = write_judge_report(metrics, out, judge=judge)
    return JudgeResult(metrics, out, page, resumed, made)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    try:
        path.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({exc.strerror or exc})") from None
