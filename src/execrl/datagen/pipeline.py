"""``execrl build``: spec §9 on any problem set with labelled solutions.

For each problem, in order:

1. **verify**: every labelled solution runs on the problem's own tests. A correct-labelled
   solution that fails one disagrees with its label (reported, never used); the verified
   correct ones are the references from here on, and every incorrect one that ran is a
   negative control (those passing every original test are the false positives *before*).
2. **generate**: each generator (the problem's own, supplied ones, or ones a model writes)
   gets ``attempts`` attempts of 15 calls; an attempt is accepted only by agreement of the
   verified correct solutions (:mod:`execrl.datagen.consensus`), all or nothing.
3. **run**: every verified correct and every incorrect solution runs on every generated test.
4. **rounds**: the correctness round and the optimization round, then the keep rules
   (:mod:`execrl.datagen.rounds`, :mod:`execrl.datagen.filters`).
5. **split**: the kept problems are split into ``train`` and ``heldout`` (a tag each).

Everything that ran is cached under ``OUT/cache`` by content (the program, the tests, the
limits), so an interrupted or repeated build reruns only what it lacks; the built set is
written to ``OUT/problems`` in execrl's folder format, with ``OUT/build-report.json``, the
HTML report and the dataset card beside it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from execrl.datagen.consensus import AttemptResult, run_attempt
from execrl.datagen.filters import Removal, split_problems
from execrl.datagen.generators import (
    GENERATOR_LIMITS,
    GeneratorProgram,
    model_generators,
    supplied_generators,
)
from execrl.datagen.reference_runs import language_of, program_key
from execrl.datagen.report import write_build_report
from execrl.datagen.rounds import (
    ProblemRuns,
    Rounds,
    Run,
    TestInfo,
    duration_percentiles_ms,
    run_rounds,
)
from execrl.datagen.verify import ReferenceReport, iter_reference_reports
from execrl.errors import UsageError
from execrl.problems.io import save_problems
from execrl.problems.models import Problem, Reference, ReferenceLabel, StdioTest
from execrl.results import ResultsFile, Row
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import Status

BUILD_FORMAT = "execrl-build/1"
SPLITS = ("train", "heldout")
REPORT_FILE = "build-report.json"


@dataclass(frozen=True)
class BuildSettings:
    """What a build does beyond spec §9's fixed rules."""

    attempts: int = 2
    """Attempts per generator (15 calls each: 5 seeds x small / edge / large)."""
    model_generators: int = 0
    """Generators a model writes per problem (with a sampler)."""
    max_solutions: int | None = None
    """Use at most this many solutions of each label per problem (the first ones; None: all).
    Real CodeContests rows carry hundreds."""
    heldout_share: float = 0.2
    split_seed: int = 0
    require_duration_filterable: bool = False
    """Also drop problems whose reference durations do not spread (robust CV < 0.3)."""
    generator_limits: Limits = field(default_factory=lambda: GENERATOR_LIMITS)

    def recorded(self) -> dict[str, Any]:
        data = asdict(self)
        data["generator_limits"] = self.generator_limits.model_dump(mode="json")
        return data


@dataclass
class BuildResult:
    summary: dict[str, Any]
    problems: list[Problem]
    folder: Path


def build_problem_set(
    problems: Sequence[Problem],
    out: str | Path,
    *,
    executor: Executor,
    settings: BuildSettings = BuildSettings(),
    generators: Path | None = None,
    sampler: Any = None,
    source: str = "",
    show_progress: bool = True,
    on_problem: Callable[[Row], None] | None = None,
) -> BuildResult:
    """Build ``problems`` into ``out`` (see the module docstring); returns the summary (also
    ``out/build-report.json``) and the kept problems. ``sampler`` (``sample(conversation, n)``)
    writes ``settings.model_generators`` generators per problem; ``on_problem`` is called
    with each problem's summary row as soon as it is known."""
    out = Path(out)
    check_build_folder(out)
    rows: list[Row] = []
    built: list[Problem] = []
    with BuildCache(out / "cache") as cache:
        for problem in problems:
            work = ProblemBuild(problem, executor, settings, cache, show_progress)
            row, kept = work.run(generators, sampler)
            rows.append(row)
            if kept is not None:
                built.append(kept)
            if on_problem is not None:
                on_problem(row)
    built = _split(built, rows, settings)
    summary = _summary(rows, settings, source)
    _write(out, built, summary)
    return BuildResult(summary, built, out)


class BuildCache:
    """The build's runs, one results file per stage, keyed by content (so a change to a
    program, a test or a limit reruns exactly what it changed)."""

    def __init__(self, folder: Path) -> None:
        self.files = {
            name: ResultsFile(folder / f"{name}.jsonl.gz", key=_row_key, resume=True)
            for name in ("verify", "generators", "attempts", "runs")
        }
        self.index: dict[str, dict[Hashable, Row]] = {
            name: {_row_key(r): r for r in f.rows} for name, f in self.files.items()
        }

    def get(self, stage: str, key: str) -> Row | None:
        return self.index[stage].get(key)

    def put(self, stage: str, row: Row) -> None:
        self.files[stage].write(row)
        self.index[stage][_row_key(row)] = row

    def __enter__(self) -> BuildCache:
        return self

    def __exit__(self, *exc: object) -> None:
        for f in self.files.values():
            f.close()


def _row_key(row: Row) -> Hashable:
    return row["key"]


def digest(*parts: Any) -> str:
    """A short content key of JSON-able parts."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _judging(problem: Problem) -> dict[str, Any]:
    """What decides a run's verdict besides the program and the test."""
    return problem.model_dump(
        mode="json",
        include={"checker", "time_limit_s", "memory_limit_mb", "stdin_as_function", "prelude"},
    )


class ProblemBuild:
    """One problem through the stages."""

    def __init__(
        self,
        problem: Problem,
        executor: Executor,
        settings: BuildSettings,
        cache: BuildCache,
        show_progress: bool,
    ) -> None:
        self.problem = problem
        self.executor = executor
        self.settings = settings
        self.cache = cache
        self.progress = show_progress
        self.seconds: dict[str, float] = {}
        self.model_written: dict[str, int] | None = None
        """Generators asked of the model, and kept (samples with code that parses)."""
        limit = settings.max_solutions
        correct = _distinct(problem.references_labelled(ReferenceLabel.CORRECT))
        incorrect = _distinct(problem.references_labelled(ReferenceLabel.INCORRECT))
        self.duplicates = len(problem.references) - len(correct) - len(incorrect)
        """Solutions whose code repeats an earlier one of the same label (real CodeContests
        rows carry copies): two copies of one program would "agree" on anything."""
        self.correct, self.incorrect = correct[:limit], incorrect[:limit]
        self.stdio = problem.test_kinds <= {"stdio"}
        """Generated inputs are stdin texts: a problem with call or assert tests gets none."""

    def run(self, generators: Path | None, sampler: Any) -> tuple[Row, Problem | None]:
        with self.timed("verify"):
            verified = self.verify()
        correct = [r for r in self.correct if verified[r.name]["verified"]]
        controls = [r for r in self.incorrect if not verified[r.name]["inconclusive"]]
        with self.timed("write_generators"):
            programs = self.generator_programs(generators, sampler)
        with self.timed("generate"):
            attempts = self.attempts(programs, correct)
        tests = _unique_inputs(self.problem, [t for a in attempts for t in a.tests])
        runs = {name: dict(row["runs"]) for name, row in verified.items()}
        with self.timed("run"):
            for name, results in self.run_generated(tests, [*correct, *controls]).items():
                runs[name].update(results)
        problem_runs = ProblemRuns(
            tests=[TestInfo(t.id, t.group, False) for t in self.problem.tests]
            + [TestInfo(t.id, t.group, True) for t in tests],
            correct=[r.name for r in correct],
            incorrect=[r.name for r in controls],
            runs={n: {t: Run(Status(s), c) for t, (s, c) in r.items()} for n, r in runs.items()},
            code_lengths={r.name: len(r.code) for r in self.problem.references},
        )
        rounds = run_rounds(problem_runs)
        row = self.summary_row(verified, programs, attempts, tests, rounds)
        row["seconds"] = {stage: round(t, 3) for stage, t in self.seconds.items()}
        if not row["kept"]:
            return row, None
        return row, self.output(tests, correct, controls, rounds, problem_runs)

    @contextlib.contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Add the block's wall seconds to ``stage`` (the summary's ``seconds``: what a build's
        time goes to; a stage answered from the cache takes almost none)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start

    # -- stages --------------------------------------------------------------------------

    def verify(self) -> dict[str, Row]:
        """Each solution's runs on the original tests, and whether its label holds."""
        problem = self.problem
        tests_key = digest(problem.model_dump(mode="json", include={"tests"}), _judging(problem))
        refs = [*self.correct, *self.incorrect]
        keys = {
            r.name: digest("verify", problem.id, program_key(r), r.label, tests_key) for r in refs
        }

        def verdicts(report: ReferenceReport) -> Row:
            # (a solution whose toolchain is missing here is skipped: inconclusive, unused)
            inconclusive = report.skipped is not None or any(
                r.status is Status.INCONCLUSIVE for r in report.record.results
            )
            return {
                "label": report.label.value,
                "verdicts": report.verdict_counts,
                "inconclusive": inconclusive,
                "verified": report.as_expected and not inconclusive,
            }

        return self.cached_runs("verify", problem, refs, keys, verdicts)

    def cached_runs(
        self,
        stage: str,
        problem: Problem,
        refs: Sequence[Reference],
        keys: dict[str, str],
        extra: Callable[[ReferenceReport], Row] = lambda report: {},
    ) -> dict[str, Row]:
        """Each solution's row of ``stage``: its runs on ``problem``'s tests (and ``extra``),
        from the cache, or run now (only the solutions the cache lacks) and cached."""
        todo = [r for r in refs if self.cache.get(stage, keys[r.name]) is None]
        if todo:
            reports = iter_reference_reports(
                problem, executor=self.executor, references=todo, show_progress=self.progress
            )
            for report in reports:
                results = report.record.results
                self.cache.put(stage, {
                    "key": keys[report.reference.name],
                    "problem_id": problem.id,
                    "reference": report.reference.name,
                    **extra(report),
                    "runs": {r.test_id: [r.status.value, r.cpu_s] for r in results},
                })  # fmt: skip
        return {r.name: self.cache.get(stage, keys[r.name]) for r in refs}  # type: ignore[misc]

    def generator_programs(self, folder: Path | None, sampler: Any) -> list[GeneratorProgram]:
        """The problem's own and the supplied generators, then the model's (written once and
        cached, so a resumed build tries the same programs)."""
        programs = supplied_generators(self.problem, folder)
        wanted = self.settings.model_generators
        if sampler is None or wanted == 0:
            return programs
        key = digest("generators", self.problem.id, self.problem.statement, wanted)
        row = self.cache.get("generators", key)
        if row is None:
            written = model_generators(self.problem, sampler, wanted)
            row = {"key": key, "problem_id": self.problem.id, "asked": wanted, "generators": [
                asdict(g) for g in written
            ]}  # fmt: skip
            self.cache.put("generators", row)
        self.model_written = {"asked": wanted, "kept": len(row["generators"])}
        return programs + [GeneratorProgram(**g) for g in row["generators"]]

    def attempts(
        self, programs: Sequence[GeneratorProgram], correct: Sequence[Reference]
    ) -> list[AttemptResult]:
        """Every attempt of every generator (those cached reused; an inconclusive one, an
        infrastructure failure, is tried again)."""
        if len(correct) < 2 or not self.stdio:
            return []  # no agreement is possible, or no stdin to feed: said by the reasons
        refs_key = digest([program_key(r) for r in correct], _judging(self.problem))
        limits = self.settings.generator_limits
        results = []
        for program in programs:
            for attempt in range(self.settings.attempts):
                key = digest("attempt", self.problem.id, program.code, attempt, refs_key)
                row = self.cache.get("attempts", key)
                if row is None or row["inconclusive"]:
                    result = run_attempt(
                        self.problem,
                        program,
                        attempt,
                        correct=correct,
                        executor=self.executor,
                        limits=limits,
                    )
                    row = _attempt_row(key, self.problem.id, result)
                    self.cache.put("attempts", row)
                results.append(_attempt_from_row(row))
        return results

    def run_generated(
        self, tests: Sequence[StdioTest], refs: Sequence[Reference]
    ) -> dict[str, dict[str, list]]:
        """Each solution's runs on the generated tests."""
        if not tests:
            return {}
        problem = self.problem.model_copy(update={"tests": list(tests)})
        tests_key = digest([t.model_dump(mode="json") for t in tests], _judging(problem))
        keys = {r.name: digest("runs", problem.id, program_key(r), tests_key) for r in refs}
        rows = self.cached_runs("runs", problem, refs, keys)
        return {name: row["runs"] for name, row in rows.items()}

    # -- what comes out ------------------------------------------------------------------

    def output(
        self,
        generated: Sequence[StdioTest],
        correct: Sequence[Reference],
        controls: Sequence[Reference],
        rounds: Rounds,
        runs: ProblemRuns,
    ) -> Problem:
        """The built problem: the kept tests, the surviving correct solutions (with their
        durations on the kept optimization tests) and the incorrect ones the tests catch."""
        kept = set(rounds.kept_tests)
        tests = [t for t in [*self.problem.tests, *generated] if t.id in kept]
        survivors = set(rounds.solutions.kept_correct)
        caught = set(rounds.solutions.caught)
        references = []
        for ref in correct:
            if ref.name in survivors:
                durations = {
                    t: run.cpu_s
                    for t, run in runs.runs[ref.name].items()
                    if t in rounds.per_test_mean_s and run.status is Status.SUCCESS
                }
                references.append(ref.model_copy(update={"durations_s": durations}))
        references += [r for r in controls if r.name in caught]
        return self.problem.model_copy(
            update={"tests": tests, "references": references, "generator": None}
        )

    def summary_row(
        self,
        verified: dict[str, Row],
        programs: Sequence[GeneratorProgram],
        attempts: Sequence[AttemptResult],
        generated: Sequence[StdioTest],
        rounds: Rounds,
    ) -> Row:
        """The problem's row of build-report.json (its schema: docs/datagen.md)."""
        correct = [verified[r.name] for r in self.correct]
        incorrect = [verified[r.name] for r in self.incorrect]
        reasons = list(rounds.reasons)
        if sum(r["verified"] for r in correct) < 2:
            reasons.insert(0, "fewer than 2 verified correct solutions: no generated test "
                           "can be accepted by agreement")  # fmt: skip
        if not programs:
            reasons.insert(0, "no generator (the problem's own, supplied, or model-written)")
        if not self.stdio:
            reasons.insert(0, "has call or assert tests; generated tests are stdin/stdout only")
        filterable = rounds.duration_filterable
        if self.settings.require_duration_filterable and not filterable:
            reasons.append("reference durations do not spread (robust CV < 0.3)")
        return {
            "problem_id": self.problem.id,
            "kept": rounds.kept and (filterable or not self.settings.require_duration_filterable),
            "reasons": reasons,
            "split": None,
            "verify": {
                "correct_labelled": len(correct),
                "correct_verified": sum(r["verified"] for r in correct),
                "incorrect_labelled": len(incorrect),
                "incorrect_verified": sum(r["verified"] for r in incorrect),
                "inconclusive": sum(r["inconclusive"] for r in [*correct, *incorrect]),
                "duplicates": self.duplicates,
                "disagreements": [  # correct-labelled, failing a test of the problem's own
                    {"reference": r["reference"], "label": r["label"], "verdicts": r["verdicts"]}
                    for r in correct
                    if not r["verified"] and not r["inconclusive"]
                ],
            },
            "generators": [{"name": p.name, "origin": p.origin} for p in programs],
            "model_generators": self.model_written,
            "attempts": _attempt_counts(attempts),
            "tests": {
                "original": len(self.problem.tests),
                "generated": len(generated),
                "removed": {
                    "correctness": _removed(rounds.correctness.removed),
                    "optimization": _removed(rounds.optimization.removed),
                },
                "extra": len(set(rounds.correctness.kept) & {t.id for t in generated}),
                "optimization": len(rounds.optimization.kept),
                "kept": len(rounds.kept_tests),
            },
            "solutions": {
                "correct_dropped": list(rounds.solutions.dropped_correct),
                "false_positives": list(rounds.solutions.false_positives),
                "timed": list(rounds.optimization_references),
            },
            "false_positive_rate": {
                "before": rounds.false_positive_rate_before,
                "after": rounds.solutions.false_positive_rate,
            },
            "robust_cv": _finite(rounds.robust_cv),
            "duration_filterable": rounds.duration_filterable,
            "length_cv": _finite(rounds.length_cv),
            "length_filterable": rounds.length_filterable,
            "durations_ms": duration_percentiles_ms(rounds.per_test_mean_s),
        }


def _distinct(references: Sequence[Reference]) -> list[Reference]:
    """The first of each program text in each language (whitespace at the ends ignored), in
    order."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for ref in references:
        key = (language_of(ref), ref.code.strip())
        if key not in seen:
            seen.add(key)
            kept.append(ref)
    return kept


def _attempt_row(key: str, problem_id: str, result: AttemptResult) -> Row:
    data = asdict(result)
    data["tests"] = [t.model_dump(mode="json") for t in result.tests]
    return {"key": key, "problem_id": problem_id, **data}


def _attempt_from_row(row: Row) -> AttemptResult:
    fields = {k: v for k, v in row.items() if k not in ("key", "problem_id")}
    fields["tests"] = [StdioTest.model_validate(t) for t in row["tests"]]
    return AttemptResult(**fields)


def _attempt_counts(attempts: Sequence[AttemptResult]) -> dict[str, Any]:
    rejected: dict[str, int] = {}
    for a in attempts:
        if not a.accepted and not a.inconclusive:
            kind = (a.reason or "rejected").split(":")[0]
            rejected[kind] = rejected.get(kind, 0) + 1
    return {
        "tried": len(attempts),
        "accepted": sum(a.accepted for a in attempts),
        "rejected": rejected,
        "inconclusive": sum(a.inconclusive for a in attempts),
        "seconds": sum(a.seconds for a in attempts),
    }


def _removed(removals: Sequence[Removal]) -> dict[str, int]:
    return {
        "timeout": sum(r.reason == "timeout" for r in removals),
        "failure": sum(r.reason == "failure" for r in removals),
    }


def _finite(value: float) -> float | None:
    return None if value != value else float(value)  # NaN -> None (JSON has no NaN)


def _unique_inputs(problem: Problem, tests: Sequence[StdioTest]) -> list[StdioTest]:
    """The generated tests whose input no earlier test (original or generated) has: two
    seeds that print the same input would count one test twice in the filter shares."""
    seen = {t.input for t in problem.tests if isinstance(t, StdioTest)}
    unique = []
    for test in tests:
        if test.input not in seen:
            seen.add(test.input)
            unique.append(test)
    return unique


def _split(built: list[Problem], rows: list[Row], settings: BuildSettings) -> list[Problem]:
    """Tag each kept problem ``train`` or ``heldout`` (and say so in its summary row)."""
    sides = split_problems(
        [p.id for p in built], heldout_share=settings.heldout_share, seed=settings.split_seed
    )
    by_id = {r["problem_id"]: r for r in rows}
    tagged = []
    for problem in built:
        side = sides[problem.id]
        by_id[problem.id]["split"] = side
        tags = [t for t in problem.tags if t not in SPLITS] + [side]
        tagged.append(problem.model_copy(update={"tags": tags}))
    return tagged


def _summary(rows: list[Row], settings: BuildSettings, source: str) -> dict[str, Any]:
    def total(path: str) -> int:
        count = 0
        for row in rows:
            value: Any = row
            for part in path.split("."):
                value = value[part]
            count += len(value) if isinstance(value, list) else int(value)
        return count

    kept = [r for r in rows if r["kept"]]
    stages = [
        {"stage": "verify", "problems": len(rows),
         "correct_labelled": total("verify.correct_labelled"),
         "correct_verified": total("verify.correct_verified"),
         "incorrect_labelled": total("verify.incorrect_labelled"),
         "incorrect_caught": total("verify.incorrect_verified"),
         "disagreements": total("verify.disagreements")},
        {"stage": "generate", "problems": sum(bool(r["generators"]) for r in rows),
         "generators": total("generators"), "attempts": total("attempts.tried"),
         "accepted": total("attempts.accepted"), "tests": total("tests.generated")},
        {"stage": "correctness", "problems": len(rows),
         "removed_timeout": total("tests.removed.correctness.timeout"),
         "removed_failure": total("tests.removed.correctness.failure"),
         "correct_dropped": total("solutions.correct_dropped")},
        {"stage": "optimization", "problems": len(rows),
         "removed_timeout": total("tests.removed.optimization.timeout"),
         "removed_failure": total("tests.removed.optimization.failure"),
         "tests": total("tests.optimization")},
        {"stage": "keep", "problems": len(kept), "dropped": len(rows) - len(kept)},
        {"stage": "split", "problems": len(kept),
         "train": sum(r["split"] == "train" for r in kept),
         "heldout": sum(r["split"] == "heldout" for r in kept)},
    ]  # fmt: skip
    return {
        "format": BUILD_FORMAT,
        "source": source,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "settings": settings.recorded(),
        "stages": stages,
        "problems": rows,
    }


def check_build_folder(out: Path) -> None:
    """Refuse to build into a folder that holds something other than an earlier build."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: is a file; name a folder to build into")
    if out.is_dir() and any(out.iterdir()):
        ours = (out / REPORT_FILE).exists() or (out / "cache").is_dir()
        if not ours:
            raise UsageError(f"{out}: is not empty and holds no earlier build; choose a new folder")


def _write(out: Path, problems: list[Problem], summary: dict[str, Any]) -> None:
    folder = out / "problems"
    if folder.exists():
        shutil.rmtree(folder)  # an earlier build's set: the kept problems may differ now
    folder.mkdir(parents=True)
    if problems:
        save_problems(problems, folder)
    (out / REPORT_FILE).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    write_build_report(summary, out)
