"""The evaluation folder: samples of every model, then one campaign's records.

::

    DIR/eval.json              the problem set, the models and how they were sampled, and the
                               campaign's settings (cap, repeats, seed, machine)
    DIR/samples/<model>.jsonl  one row per sample: model, problem_id, index, completion, program
    DIR/records.jsonl          the campaign's ExecutionRecords, in execution order
    DIR/manifest.jsonl         one row per record, same order: sample (model, index) or reference
    DIR/campaign.partial.json  while a campaign runs (or after it was interrupted): its
                               settings; records.jsonl and manifest.jsonl then hold the runs
                               that finished, appended as they finish (``resume`` continues)

Everything a metric needs is in these files; the problems themselves are reloaded from the
source named in ``eval.json`` and checked against the fingerprint taken when sampling.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from execrl.errors import DataError, ExecrlError, UsageError, describe_validation_error
from execrl.problems.io import BUNDLED, load_problem, load_problems, select_problems
from execrl.problems.models import Problem, TestGroup
from execrl.results import read_rows
from execrl.sandbox.limits import TimingMetric
from execrl.sandbox.records import ExecutionRecord, save_records

EVAL_FILE = "eval.json"
SAMPLES_DIR = "samples"
RECORDS_FILE = "records.jsonl"
MANIFEST_FILE = "manifest.jsonl"
PARTIAL_FILE = "campaign.partial.json"
REFERENCE = "reference"
"""The manifest kind of a reference solution's record (they are not a model)."""

_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProblemSet(_Model):
    """Which problems were sampled, where they load from, and their fingerprints."""

    source: str
    format: str | None = None
    ids: list[str]
    sha256: dict[str, str] = Field(default_factory=dict)
    """Per problem, a hash of its tests (ids, groups, inputs, outputs) and limits."""


class ModelInfo(_Model):
    """One model's samples: where they came from and how they were drawn."""

    label: str
    kind: Literal["local", "endpoint", "file", "programs"]
    model: str = ""
    """The model folder, endpoint URL and model name, or the file the samples came from."""
    n: int
    settings: dict[str, Any] = Field(default_factory=dict)
    """Sampling settings (temperature, max_new_tokens, top_p, seed, ...)."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))


class CampaignInfo(_Model):
    """How the samples and references were executed together."""

    created_at: datetime
    seed: int
    cap_s: float | None
    """The hard cap every test ran under; None = each problem's own time limit."""
    repeats: int
    timing: TimingMetric
    """How durations were measured (``ExecutionOptions.timing``): a clock, or a count (the
    records then keep the native CPU and wall times too)."""
    workers: int
    max_optimization_tests: int | None = None
    """When set, only this many optimization tests per problem (smallest inputs) were run."""
    machine: dict[str, Any] = Field(default_factory=dict)
    """The machine that ran the programs (the first of ``machines``; the caller's when no
    record named one, as campaigns stored before executing machines were kept did)."""
    machines: list[dict[str, Any]] = Field(default_factory=list)
    """Every machine whose records this run of the campaign wrote (servers, Ray nodes)."""
    isolation: list[str] = Field(default_factory=list)
    samples: int
    references: int
    wall_s: float


class EvalManifest(_Model):
    """The contents of ``eval.json``."""

    version: int = 1
    problems: ProblemSet
    models: list[ModelInfo] = Field(default_factory=list)
    campaign: CampaignInfo | None = None


class Sample(_Model):
    """One sampled completion and the program extracted from it."""

    model: str
    problem_id: str
    index: int
    completion: str
    program: str


class ManifestEntry(_Model):
    """Which program a campaign record belongs to."""

    kind: Literal["sample", "reference"]
    problem_id: str
    model: str | None = None
    index: int | None = None
    reference: str | None = None
    program_sha256: str


def check_label(label: str) -> str:
    """A model label names a file: letters, digits, ``_ . -``, starting with a letter/digit."""
    if not _LABEL.match(label) or label == REFERENCE:
        raise ExecrlError(
            f"model label {label!r} is not usable: use letters, digits, '_', '.', '-' "
            f"(and not {REFERENCE!r}), e.g. `label` smollm2-t0.7"
        )
    return label


def problem_fingerprint(problem: Problem) -> str:
    """A hash of what execution depends on: tests (id, group, content), checker, limits, the
    prelude and program wrapping. Fields added later enter the hash only when they are set, so
    folders written before them keep their fingerprints."""
    h = hashlib.sha256()
    legacy_checker = {"kind", "abs_tol", "rel_tol"}
    parts = [
        problem.id,
        repr(problem.time_limit_s),
        repr(problem.memory_limit_mb),
        problem.checker.model_dump_json(include=legacy_checker),
        problem.starter_code or "",
    ]
    later_checker = problem.checker.model_dump_json(exclude=legacy_checker, exclude_defaults=True)
    if later_checker != "{}":
        parts.append(later_checker)
    if problem.prelude:
        parts.append("prelude:" + problem.prelude)
    if problem.stdin_as_function:
        parts.append("stdin_as_function")
    for part in parts:
        h.update(part.encode("utf-8") + b"\0")
    for test in problem.tests:
        h.update(test.model_dump_json().encode("utf-8") + b"\0")
    return h.hexdigest()


def restrict_optimization_tests(problem: Problem, max_tests: int | None) -> Problem:
    """The problem with only its ``max_tests`` smallest optimization tests (by input length,
    stable); the correctness tests are all kept."""
    if max_tests is None:
        return problem
    optimization = problem.optimization_tests
    keep = {t.id for t in sorted(optimization, key=_input_length)[:max_tests]}
    tests = [t for t in problem.tests if t.group is not TestGroup.OPTIMIZATION or t.id in keep]
    return problem.model_copy(update={"tests": tests})


def _input_length(test) -> int:
    return len(getattr(test, "input", "") or json.dumps(getattr(test, "args", "")))


class EvalFolder:
    """An evaluation folder on disk (see the module docstring for its layout)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"EvalFolder({str(self.path)!r})"

    @property
    def manifest_path(self) -> Path:
        return self.path / EVAL_FILE

    def exists(self) -> bool:
        return self.manifest_path.is_file()

    # -- eval.json ---------------------------------------------------------------------------
    def manifest(self) -> EvalManifest:
        if not self.exists():
            raise ExecrlError(
                f"{self.path} is not an evaluation folder (no {EVAL_FILE}); "
                "create one with `execrl eval sample --out DIR`"
            )
        text = _read_text(self.manifest_path)
        try:
            return EvalManifest.model_validate_json(text)
        except ValidationError as exc:
            raise DataError(
                f"{self.manifest_path}: not a valid {EVAL_FILE} ({describe_validation_error(exc)})"
            ) from None

    def write_manifest(self, manifest: EvalManifest) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self.manifest_path.with_suffix(".json.tmp")
        tmp.write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.manifest_path)

    # -- samples -----------------------------------------------------------------------------
    def samples_path(self, label: str) -> Path:
        return self.path / SAMPLES_DIR / f"{check_label(label)}.jsonl"

    def add_samples(
        self,
        info: ModelInfo,
        samples: list[Sample],
        problems: list[Problem],
        *,
        source: str,
        format: str | None = None,
        replace: bool = False,
    ) -> Path:
        """Store one model's samples. The first model fixes the problem set; later ones must
        use the same problems. ``replace`` overwrites a model already sampled under the label
        (and drops the campaign, which no longer matches the samples)."""
        manifest = self.check_can_add(
            info.label, problems, source=source, format=format, replace=replace
        )
        wanted = {p.id for p in problems}
        stray = sorted({s.problem_id for s in samples} - wanted)
        if stray:
            raise ExecrlError(f"samples for problems outside the set: {_ids(stray)}")
        path = self.samples_path(info.label)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as f:
            for s in samples:
                f.write(s.model_dump_json() + "\n")
        models = [m for m in manifest.models if m.label != info.label] + [info]
        # New samples: a campaign run before them no longer covers every model.
        self.write_manifest(manifest.model_copy(update={"models": models, "campaign": None}))
        return path

    def check_can_add(
        self,
        label: str,
        problems: list[Problem],
        *,
        source: str,
        format: str | None = None,
        replace: bool = False,
    ) -> EvalManifest:
        """Refuse, before any sampling, samples that :meth:`add_samples` would refuse: a bad
        label, a label already sampled (without ``replace``), other problems than the
        folder's. Returns the manifest to extend."""
        check_label(label)
        if source != BUNDLED:
            source = str(Path(source).resolve())
        problem_set = ProblemSet(
            source=source,
            format=format,
            ids=[p.id for p in problems],
            sha256={p.id: problem_fingerprint(p) for p in problems},
        )
        if not self.exists():
            return EvalManifest(problems=problem_set)
        manifest = self.manifest()
        if manifest.problems.ids != problem_set.ids or (
            manifest.problems.sha256 != problem_set.sha256
        ):
            raise UsageError(
                f"{self.path} holds samples for other problems ({_ids(manifest.problems.ids)}"
                f"); sample the same problems, or use another `out` folder"
            )
        if label in [m.label for m in manifest.models] and not replace:
            raise UsageError(
                f"{self.path} already has samples from model {label!r}; "
                "choose another `label` or pass `replace`"
            )
        return manifest

    def samples(self) -> list[Sample]:
        """Every model's samples, models in the order they were added."""
        out = []
        for info in self.manifest().models:
            path = self.samples_path(info.label)
            out.extend(_models(Sample, path, read_rows(path, drop_torn=False)))
        return out

    # -- problems ----------------------------------------------------------------------------
    def problems(self, *, check: bool = True, restrict: bool = True) -> list[Problem]:
        """The sampled problems, reloaded from their source; ``check`` compares their
        fingerprints with those taken at sampling, ``restrict`` keeps only the optimization
        tests the campaign ran (``max_optimization_tests``)."""
        manifest = self.manifest()
        problems = load_problem_set(
            manifest.problems.source, manifest.problems.format, manifest.problems.ids
        )
        if check:
            changed = [
                p.id
                for p in problems
                if manifest.problems.sha256.get(p.id) not in (None, problem_fingerprint(p))
            ]
            if changed:
                raise ExecrlError(
                    f"problems changed since they were sampled: {_ids(changed)} (tests or "
                    f"limits differ in {manifest.problems.source}); resample them"
                )
        limit = manifest.campaign.max_optimization_tests if manifest.campaign and restrict else None
        return [restrict_optimization_tests(p, limit) for p in problems]

    # -- the campaign ------------------------------------------------------------------------
    def write_campaign(
        self, info: CampaignInfo, entries: list[ManifestEntry], records: list[ExecutionRecord]
    ) -> None:
        """Store a campaign's records and their manifest (same order), then its settings."""
        if len(entries) != len(records):
            raise ExecrlError(f"{len(entries)} manifest entries for {len(records)} records")
        save_records(records, self.path / RECORDS_FILE)
        with (self.path / MANIFEST_FILE).open("w", encoding="utf-8") as f:
            for entry in entries:
                f.write(entry.model_dump_json() + "\n")
        self.write_manifest(self.manifest().model_copy(update={"campaign": info}))

    def campaign(self) -> tuple[CampaignInfo, list[ManifestEntry], list[ExecutionRecord]]:
        info = self.manifest().campaign
        if info is None:
            partial = self.interrupted_campaign()
            if partial is not None:
                raise UsageError(
                    f"{self.path}: the campaign was interrupted ({partial} runs finished); "
                    f"continue it with `execrl eval run {self.path} --resume`"
                )
            raise UsageError(
                f"{self.path}: the samples have not been executed yet; "
                f"run `execrl eval run {self.path}`"
            )
        paths = [self.path / RECORDS_FILE, self.path / MANIFEST_FILE]
        missing = [p.name for p in paths if not p.is_file()]
        if missing:
            raise DataError(
                f"{self.path}: campaign file {missing[0]} is missing; rerun `execrl eval run`"
            )
        records = _models(ExecutionRecord, paths[0], read_rows(paths[0], drop_torn=False))
        entries = _models(ManifestEntry, paths[1], read_rows(paths[1], drop_torn=False))
        if len(entries) != len(records):
            raise DataError(
                f"{self.path}: {MANIFEST_FILE} has {len(entries)} rows but {RECORDS_FILE} "
                f"{len(records)}; rerun `execrl eval run`"
            )
        for entry, record in zip(entries, records, strict=True):
            if entry.program_sha256 != record.program_sha256:
                raise DataError(
                    f"{self.path}: {MANIFEST_FILE} and {RECORDS_FILE} disagree on "
                    f"{entry.problem_id} ({entry.model or entry.reference}); rerun the campaign"
                )
        return info, entries, records

    # -- a campaign being written (or interrupted) -----------------------------------------
    @property
    def partial_path(self) -> Path:
        return self.path / PARTIAL_FILE

    def interrupted_campaign(self) -> int | None:
        """How many runs an interrupted (or running) campaign has finished; None if none."""
        if not self.partial_path.is_file():
            return None
        return len(self.finished_runs())

    def partial_settings(self) -> dict[str, Any] | None:
        if not self.partial_path.is_file():
            return None
        try:
            data = json.loads(_read_text(self.partial_path))
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("settings"), dict):
            raise DataError(
                f"{self.partial_path}: not a campaign's settings; delete it and start over"
            )
        return data

    def start_campaign(self, settings: dict[str, Any], wall_s: float = 0.0) -> None:
        """Note that a campaign runs with ``settings`` (and has taken ``wall_s`` so far)."""
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self.partial_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps({"settings": settings, "wall_s": wall_s}) + "\n", "utf-8")
        tmp.replace(self.partial_path)

    def finished_runs(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(manifest row, record row) of every run an interrupted campaign finished, in order:
        rows cut short by the interruption are dropped, and so is a record whose manifest row
        was never written."""
        paths = [self.path / MANIFEST_FILE, self.path / RECORDS_FILE]
        if not all(p.is_file() for p in paths):
            return []
        entries, records = (read_rows(p, drop_torn=True) for p in paths)
        pairs = []
        for entry, record in zip(entries, records, strict=False):
            if entry.get("program_sha256") != record.get("program_sha256"):
                break
            pairs.append((entry, record))
        return pairs

    def keep_runs(self, runs: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
        """Rewrite the campaign files with only ``runs`` (each replaced in one step)."""
        for path, rows in (
            (MANIFEST_FILE, [e for e, _ in runs]),
            (RECORDS_FILE, [r for _, r in runs]),
        ):
            _rewrite_jsonl(self.path / path, rows)

    def finish_campaign(self, info: CampaignInfo) -> None:
        self.write_manifest(self.manifest().model_copy(update={"campaign": info}))
        self.partial_path.unlink(missing_ok=True)


def entry_key(entry: ManifestEntry | dict[str, Any]) -> tuple:
    """What identifies one run of a campaign (a resumed campaign skips those it has)."""
    row = entry.model_dump(mode="json") if isinstance(entry, ManifestEntry) else entry
    return tuple(row.get(f) for f in ("kind", "problem_id", "model", "index", "reference"))


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text (byte {exc.start}); was it edited?") from None


def _models(model: type[BaseModel], path: Path, rows: list[dict[str, Any]]) -> list:
    out = []
    for number, row in enumerate(rows, 1):
        try:
            out.append(model.model_validate(row))
        except ValidationError as exc:
            raise DataError(f"{path}, row {number}: {describe_validation_error(exc)}") from None
    return out


def _rewrite_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    tmp.replace(path)


def load_problem_set(source: str, format: str | None, ids: list[str]) -> list[Problem]:
    """The problems ``ids`` from ``source``: folder sources read only those folders."""
    if format is None and (source == BUNDLED or Path(source).is_dir()):
        return [load_problem(source, pid) for pid in ids]
    return select_problems(load_problems(source, format=format), ids)


def _ids(ids: list[str], shown: int = 5) -> str:
    more = f", … ({len(ids)} in all)" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more
