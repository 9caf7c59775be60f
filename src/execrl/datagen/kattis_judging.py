"""Judging a Kattis package as Kattis judges it (issue 35): what ``execrl problems check``
does for a problem the Kattis loader read.

- The time limit: the package's own (``.timelimit``, ``limits.time_limit``), else derived as
  problemtools' ``verifyproblem`` derives it: the accepted submissions run (every language
  installed) and, with ``t`` the slowest one's CPU time over the tests,
  ``limit = max(1, int(0.5 + t * time_multiplier))`` and the limit the other submissions run
  under, ``safety = max(limit + 1, int(0.5 + t * time_multiplier * time_safety_margin))``
  (:func:`derived_limits`). The derived limit is stored in the package
  (:func:`store_time_limit`), so the loader and ``execrl run`` use it afterwards.
- The verdict: tests in the loader's order (sample, then secret, natural order), stopped at
  the first failing test, which decides (:func:`verdict_at`); CPU time over the limit is a
  time-out whatever the program then did. A submission agrees with its folder when its
  verdict at the limit, or at the safety limit, is the folder's (problemtools' "OK with extra
  time"); a run that ran out of memory agrees with ``run_time_error/``.
- Python 3 submissions run on PyPy when it is installed (:func:`default_python_runtime`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from execrl.datagen.checking import reference_row
from execrl.datagen.reference_runs import language_of, not_runnable, reference_request
from execrl.datagen.verify import ALSO_ACCEPTED, ReferenceReport
from execrl.errors import UsageError
from execrl.problems.kattis import DERIVED_LIMIT_FILE
from execrl.problems.models import MAX_TIME_LIMIT_S, Problem, Reference, ReferenceLabel
from execrl.results import ResultsFile, Row
from execrl.sandbox.languages import probe
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

TIME_MULTIPLIER = 5.0
"""problemtools' default ``limits.time_multiplier``."""
TIME_SAFETY_MARGIN = 2.0
"""problemtools' default ``limits.time_safety_margin``."""
ACCEPTED_RUN_LIMIT_S = 60.0
"""The CPU limit per test the accepted submissions run under while a limit is derived
(problemtools: 300 s)."""
GIVEN_LIMITS = (".timelimit", "problem.yaml")
"""Where a package's own time limit comes from (``source.extra["time_limit_from"]``)."""
PYTHON_RUNTIMES = {"cpython": "python", "pypy": "pypy"}
"""``--kattis-python`` value → the language row that runs a Python 3 submission."""
FOLDER_OF = {
    None: "accepted",
    "wrong_answer": "wrong_answer",
    "timeout": "time_limit_exceeded",
    "runtime_error": "run_time_error",
    "memory_limit": "memory_limit_exceeded",
    "output_limit": "output_limit_exceeded",
    "compile_error": "compile_error",
}
"""A reference's ``expected_verdict`` → the submissions folder it came from."""
FOLDER_CLASSES = ("accepted", "wrong_answer", "time_limit_exceeded", "run_time_error")
"""The problem package format's four folders, in the summary's order."""
RULE = "limit = max(1, int(0.5 + t * time_multiplier)); safety = max(limit + 1, int(0.5 + t * "
RULE += "time_multiplier * time_safety_margin)) (problemtools verifyproblem)"


@dataclass(frozen=True)
class TimeLimit:
    """The limit a package's submissions are judged at, and where it came from."""

    time_limit_s: float
    """Submissions are judged at this CPU time per test."""
    safety_limit_s: float
    """They run under this one (problemtools' ``timelim_margin``): a verdict reached only
    with the extra time still agrees with the folder, as problemtools' "OK with extra time"."""
    origin: str
    """``.timelimit``, ``problem.yaml``, ``derived``, or ``default`` (no accepted
    submission could run here: the problem's limit as loaded)."""
    rule: str
    time_multiplier: float = TIME_MULTIPLIER
    time_safety_margin: float = TIME_SAFETY_MARGIN
    slowest_cpu_s: float | None = None
    """``t``: the slowest accepted submission's CPU time over the tests (derived limits)."""
    slowest_reference: str | None = None
    slowest_file: str | None = None
    slowest_test: str | None = None

    def record(self) -> dict[str, Any]:
        return asdict(self)


def derived_limits(slowest_cpu_s: float, multiplier: float, margin: float) -> tuple[int, int]:
    """problemtools' (limit, safety limit) in whole seconds from the slowest accepted
    submission's CPU time (see :data:`RULE`)."""
    exact = slowest_cpu_s * multiplier
    limit = max(1, int(0.5 + exact))
    return limit, max(limit + 1, int(0.5 + exact * margin))


def default_python_runtime() -> str:
    """``pypy`` when PyPy runs here (Kattis runs Python 3 on PyPy), else ``cpython``."""
    return "pypy" if probe("pypy").installed else "cpython"


def python_runtime_language(name: str | None) -> str:
    """The language row for ``--kattis-python`` ``name`` (None: the default); PyPy asked for
    but missing is a UsageError."""
    name = name or default_python_runtime()
    if name not in PYTHON_RUNTIMES:
        raise UsageError(f"`kattis_python`: expected cpython or pypy, got {name!r}")
    if name == "pypy" and not probe("pypy").installed:
        raise UsageError(f"`kattis_python` pypy: PyPy does not run here ({probe('pypy').why_not})")
    return PYTHON_RUNTIMES[name]


@dataclass(frozen=True)
class Verdict:
    """A submission's verdict at one limit: the first failing test's, or success."""

    verdict: str
    test_id: str | None
    """The first failing test (None when every test run passed)."""
    cpu_s: float | None
    """That test's CPU seconds (on success: the slowest test's)."""


def verdict_at(results: list[TestResult], limit_s: float) -> Verdict:
    """The verdict of tests run in order at ``limit_s``: the first that failed or used more
    CPU than the limit (a time-out, whatever it did after) decides."""
    for r in results:
        status = Status.TIMEOUT.value if r.cpu_s > limit_s else r.status.value
        if status != Status.SUCCESS.value:
            return Verdict(status, r.test_id, r.cpu_s)
    slowest = max(results, key=lambda r: r.cpu_s, default=None)
    return Verdict(Status.SUCCESS.value, None, slowest.cpu_s if slowest else None)


def at_limit(record: ExecutionRecord, limit_s: float) -> ExecutionRecord:
    """``record`` as its tests would be judged at ``limit_s``: a success over it times out."""
    results = [
        r.model_copy(update={"status": Status.TIMEOUT})
        if r.status is Status.SUCCESS and r.cpu_s > limit_s
        else r
        for r in record.results
    ]
    return record.model_copy(update={"results": results})


def folder_of(ref: Reference) -> str:
    """The submissions folder a reference came from (its ``source_file``, else its verdict)."""
    parts = (ref.source_file or "").split("/")
    if len(parts) >= 3 and parts[0] == "submissions":
        return parts[1]
    if ref.label is ReferenceLabel.CORRECT:
        return "accepted"
    return FOLDER_OF.get(ref.expected_verdict, "rejected")


def wanted_verdicts(ref: Reference) -> set[str] | None:
    """The verdicts that agree with ``ref``'s folder (None: any failure)."""
    if ref.label is ReferenceLabel.CORRECT:
        return {Status.SUCCESS.value}
    if ref.expected_verdict is None:
        return None
    return {ref.expected_verdict, *ALSO_ACCEPTED.get(ref.expected_verdict, ())}


def agrees(ref: Reference, *verdicts: Verdict) -> bool:
    wanted = wanted_verdicts(ref)
    for v in verdicts:
        if wanted is None and v.verdict not in (Status.SUCCESS.value, Status.INCONCLUSIVE.value):
            return True
        if wanted is not None and v.verdict in wanted:
            return True
    return False


@dataclass
class KattisCheck:
    """One package's check: the limit used, the Python runtime, one row per reference."""

    problem: Problem
    limit: TimeLimit
    python_language: str
    rows: list[Row] = field(default_factory=list)


def check_kattis_problem(
    problem: Problem,
    *,
    executor: Executor,
    out: ResultsFile | None = None,
    python_runtime: str | None = None,
    full: bool = False,
    accepted: list[Reference] | None = None,
) -> KattisCheck:
    """Judge ``problem`` (read by the Kattis loader) as Kattis does. ``accepted``: the
    accepted submissions a limit is derived from (default: the problem's correct references;
    give every language's when the problem was loaded with a ``languages`` filter).
    ``full``: every test runs and the check is the every-test one (a correct reference
    passes them all, an incorrect one gets its folder's verdict on one)."""
    python = python_runtime_language(python_runtime)
    extra = problem.source.extra
    multiplier = float(extra.get("time_multiplier") or TIME_MULTIPLIER)
    margin = float(extra.get("time_safety_margin") or TIME_SAFETY_MARGIN)
    options = ExecutionOptions(stop_at_first_failure=not full)
    records: dict[str, ExecutionRecord] = {}
    if extra.get("time_limit_from") in GIVEN_LIMITS:
        seconds = problem.time_limit_s
        limit = TimeLimit(
            seconds,
            min(MAX_TIME_LIMIT_S, seconds * margin),
            str(extra["time_limit_from"]),
            "the package's own limit; safety = limit * time_safety_margin",
            multiplier,
            margin,
        )
    else:
        pool = problem.references_labelled("correct") if accepted is None else accepted
        records = dict(_run(problem, pool, executor, ACCEPTED_RUN_LIMIT_S, options, python))
        limit = _derive(problem, pool, records, multiplier, margin)
    judged = problem.model_copy(update={"time_limit_s": limit.time_limit_s})
    earlier = _earlier_rows(problem, out)
    todo = [r for r in problem.references if r.name not in earlier and r.name not in records]
    run_s = limit.time_limit_s if full else limit.safety_limit_s
    records.update(_run(judged, todo, executor, run_s, options, python))
    check = KattisCheck(judged, limit, python)
    for ref in problem.references:
        if ref.name in earlier:
            check.rows.append(earlier[ref.name])
            continue
        row = kattis_row(judged, ref, records[ref.name], limit, python=python, full=full)
        if out is not None:
            out.write(row)
        check.rows.append(row)
    return check


def _earlier_rows(problem: Problem, out: ResultsFile | None) -> dict[str, Row]:
    rows = out.rows if out is not None else []
    return {r["reference"]: r for r in rows if r.get("problem_id") == problem.id}


def _as_run(ref: Reference, python: str) -> Reference:
    """``ref`` in the language that runs it (a Python 3 submission on ``python``)."""
    if language_of(ref) == "python" and python != "python":
        return ref.model_copy(update={"language": python})
    return ref


def _run(
    problem: Problem,
    refs: list[Reference],
    executor: Executor,
    cpu_s: float,
    options: ExecutionOptions,
    python: str,
) -> Iterator[tuple[str, ExecutionRecord]]:
    """Each reference's record at ``cpu_s`` per test (one request per reference, so tests
    run in order and stop at the first failure when ``options`` say so)."""
    limits = Limits.for_problem(problem, cap_s=min(MAX_TIME_LIMIT_S, cpu_s))
    runnable = [_as_run(r, python) for r in refs if not_runnable(r, problem.tests) is None]
    requests = [reference_request(problem, r, limits=limits, options=options) for r in runnable]
    if not requests:
        return
    batch = executor.run_batch(requests, progress=True, description=f"judging {problem.id}")
    for ref, record in zip(runnable, batch, strict=True):
        yield ref.name, record


def _derive(
    problem: Problem,
    accepted: list[Reference],
    records: dict[str, ExecutionRecord],
    multiplier: float,
    margin: float,
) -> TimeLimit:
    slowest: tuple[float, Reference, str] | None = None
    groups = {t.id: t.group for t in problem.tests}
    for ref in accepted:
        record = records.get(ref.name)
        if record is None or ReferenceReport(ref, record, groups).skipped:
            continue
        for r in record.results:
            if r.status is not Status.INCONCLUSIVE and (slowest is None or r.cpu_s > slowest[0]):
                slowest = (r.cpu_s, ref, r.test_id)
    if slowest is None:
        seconds = problem.time_limit_s
        return TimeLimit(
            seconds,
            min(MAX_TIME_LIMIT_S, seconds * margin),
            "default",
            "no accepted submission ran here, so none could give a limit: the problem's "
            f"{seconds:g} s as loaded",
            multiplier,
            margin,
        )
    t, ref, test_id = slowest
    limit, safety = derived_limits(t, multiplier, margin)
    return TimeLimit(
        float(min(limit, MAX_TIME_LIMIT_S)),
        float(min(safety, MAX_TIME_LIMIT_S)),
        "derived",
        RULE,
        multiplier,
        margin,
        t,
        ref.name,
        ref.source_file,
        test_id,
    )


def kattis_row(
    problem: Problem,
    ref: Reference,
    record: ExecutionRecord,
    limit: TimeLimit,
    *,
    python: str,
    full: bool,
) -> Row:
    """:func:`~execrl.datagen.checking.reference_row` of ``ref`` judged at the limit, with
    its folder, file, Kattis verdict (at the limit and at the safety limit), the verdicts
    that agree with its folder (``expects_verdict``), first failing test and that test's CPU
    time, and the limits used; ``as_expected`` is the agreement
    with its folder (``full``: the every-test check)."""
    ran = _as_run(ref, python)
    groups = {t.id: t.group for t in problem.tests}
    judged = ReferenceReport(ran, at_limit(record, limit.time_limit_s), groups)
    row = reference_row(problem, judged)
    first = verdict_at(record.results, limit.time_limit_s)
    extra = verdict_at(record.results, limit.safety_limit_s)
    skipped = judged.skipped
    agreed = judged.as_expected if full else agrees(ref, first)
    with_extra_time = not full and not agreed and agrees(ref, extra)
    wanted = wanted_verdicts(ref)
    row.update(
        folder=folder_of(ref),
        source_file=ref.source_file,
        language=language_of(ran),
        written_in=language_of(ref),
        verdict=None if skipped else first.verdict,
        first_failed_test=None if skipped else first.test_id,
        cpu_s=first.cpu_s,
        verdict_with_extra_time=None if skipped else extra.verdict,
        time_limit_s=limit.time_limit_s,
        safety_limit_s=limit.safety_limit_s,
        time_limit_from=limit.origin,
        as_expected=None if skipped else (agreed or with_extra_time),
        expects_verdict=_expects(wanted),
        with_extra_time=with_extra_time,
    )
    return row


def _expects(wanted: set[str] | None) -> str:
    """What the first failing test's verdict must be (``success``: none fails)."""
    if wanted is None:
        return "any failure"
    order = [s.value for s in Status]
    return " or ".join(sorted(wanted, key=order.index))


# -- storing the derived limit ----------------------------------------------------------------


def store_time_limit(package: Path, limit: TimeLimit) -> Path | None:
    """Write a derived ``limit`` to ``package``/:data:`DERIVED_LIMIT_FILE` (read by the
    loader next time); None when it is not derived or the folder cannot be written."""
    if limit.origin != "derived":
        return None
    path = package / DERIVED_LIMIT_FILE
    text = "# written by `execrl problems check`: the time limit derived from the accepted "
    text += "submissions\n# (delete this file to derive it again)\n"
    text += yaml.safe_dump(limit.record(), sort_keys=False)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return path


def package_folder(source: str | Path, problem: Problem) -> Path | None:
    """The folder of ``problem``'s package under ``source`` (a package, or a folder of
    them), or None."""
    source = Path(source)
    name = problem.source.id or problem.id
    for candidate in (source, source / name):
        if candidate.is_dir() and candidate.name == name and (candidate / "data").is_dir():
            return candidate
    return None


# -- the summary ------------------------------------------------------------------------------


def agreement_table(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    """Agreement per folder class (rows) × language (columns): ``agreed/judged`` per cell,
    with ``(+n skipped)`` where submissions were not judged; ``—`` where there are none."""
    refs = [r for r in rows if r.get("reference") is not None]
    languages = sorted({str(r.get("language")) for r in refs})
    folders = [*FOLDER_CLASSES]
    folders += sorted({str(r.get("folder")) for r in refs} - set(FOLDER_CLASSES))
    cells = []
    for folder in folders:
        line = [folder]
        for lang in languages:
            mine = [r for r in refs if r.get("folder") == folder and r.get("language") == lang]
            judged = [r for r in mine if not r.get("skipped")]
            agreed = sum(r.get("as_expected") is True for r in judged)
            skipped = len(mine) - len(judged)
            text = f"{agreed}/{len(judged)}" if mine else "—"
            line.append(text + (f" (+{skipped} skipped)" if skipped else ""))
        cells.append(line)
    return ["folder", *languages], cells


SUBMISSION_COLUMNS = ["submission", "file", "language", "folder", "verdict", "first failing"]
SUBMISSION_COLUMNS += ["CPU ms", "agrees"]


def submission_table(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    """One line per submission: its file, the language it ran in, its folder, its verdict
    (``skipped``), the first failing test, that test's CPU milliseconds (on success: the
    slowest test's), and whether it agrees (``yes, with extra time``)."""
    cells = []
    for r in rows:
        if r.get("reference") is None:
            continue
        agreed = {True: "yes", False: "NO", None: "—"}[r.get("as_expected")]
        if r.get("with_extra_time"):
            agreed = "yes, with extra time"
        cpu = r.get("cpu_s")
        cells.append([
            str(r["reference"]),
            str(r.get("source_file") or ""),
            str(r.get("language")),
            str(r.get("folder")),
            "skipped" if r.get("skipped") else str(r.get("verdict")),
            str(r.get("first_failed_test") or ""),
            "—" if cpu is None else f"{cpu * 1000:.0f}",
            agreed,
        ])  # fmt: skip
    return SUBMISSION_COLUMNS, cells


def disagreements(rows: list[Row]) -> list[str]:
    """One line per judged submission that disagrees with its folder: its name, file,
    language, verdict, first failing test, that test's CPU time and the limit used."""
    lines = []
    for r in rows:
        if r.get("reference") is None or r.get("skipped") or r.get("as_expected"):
            continue
        cpu = "—" if r.get("cpu_s") is None else f"{r['cpu_s']:.3f} s"
        lines.append(
            f"{r['reference']} ({r.get('source_file') or r.get('language')}, "
            f"{r.get('language')}): in {r.get('folder')}/, expects {r.get('expects_verdict')}, got "
            f"{r.get('verdict')} on "
            f"{r.get('first_failed_test') or 'no test'} (CPU {cpu}, limit "
            f"{r.get('time_limit_s')} s)" + (f"; {r['issue']}" if r.get("issue") else "")
        )
    return lines


def limit_line(limit: TimeLimit) -> str:
    """The limit used and where it came from, in one line."""
    if limit.origin != "derived":
        return (
            f"time limit {limit.time_limit_s:g} s ({limit.origin}: {limit.rule}); safety "
            f"limit {limit.safety_limit_s:g} s"
        )
    return (
        f"time limit {limit.time_limit_s:g} s derived from {limit.slowest_reference} "
        f"({limit.slowest_file}), {limit.slowest_cpu_s:.3f} s CPU on {limit.slowest_test}: "
        f"max(1, int(0.5 + t × {limit.time_multiplier:g})); safety limit "
        f"{limit.safety_limit_s:g} s (× {limit.time_safety_margin:g})"
    )
