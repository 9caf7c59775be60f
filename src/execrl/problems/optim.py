"""Optimisation word problems: the bundled set and the public benchmark formats.

A problem is a question in words and its ground truth: the optimal objective value, or the
status ``"infeasible"`` / ``"unbounded"`` for the trap problems (a correct response reports
that status). See docs/solver-rewards.md.

Formats (``load_optim_problems(source, format=...)``):

- ``optim`` — execrl's own JSONL, one problem per line with the fields of
  :class:`OptimProblem`; the bundled set (``src/execrl/data/optim/problems.jsonl``) uses it.
- ``nl4opt``, ``mamo``, ``industryor``, ``optmath`` and ``generic`` — the public benchmarks'
  rows, as JSONL (or a JSON array, or JSONL saved as ``.json``), with a question field
  (``question``, ``en_question``, ``Question``, ``problem`` or ``description``) and an answer
  field (``answer``, ``en_answer``, ``Answer``, ``optimal_value`` or ``objective_value``).
  Ids are ``<format>-<id>`` from an ``id``/``index`` field, else ``<format>-<row number>``
  (from 0). Answers are numbers or numeric strings (``"1,234.5"`` too); ``"infeasible"``,
  ``"No Best Solution"`` (ORLM-style files), ``"no feasible solution"`` and ``"no solution"``
  mean infeasible, ``"unbounded"`` means unbounded. The sentinels −9999 (SIRL) and −99999
  (ORLM) mean "no valid answer", like ``"No Best Solution"``: read as infeasible, never as a
  number (a response reports ``status: infeasible``; printing the sentinel is no answer).
- MAMO ships two sets: ``mamo-easylp`` and ``mamo-complexlp`` name them (ids
  ``mamo-easylp-<id>``, source ``mamo-easylp``); ``mamo`` picks one from the file name
  (``easy_lp.json``, ``EasyLP.json``, ``complex_lp.jsonl`` …) and stays ``mamo`` otherwise.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from execrl.errors import LoaderError, ProblemFormatError
from execrl.problems._files import read_text
from execrl.problems._validation import describe_validation_error

BUNDLED = "bundled"
Status = Literal["infeasible", "unbounded"]
Answer = float | Status
"""A ground truth or a reported result: the optimal objective value, or a status."""

STATUSES: tuple[Status, ...] = ("infeasible", "unbounded")
OPTIM_FORMATS = (
    "optim",
    "nl4opt",
    "mamo",
    "mamo-easylp",
    "mamo-complexlp",
    "industryor",
    "optmath",
    "generic",
)
PUBLIC_FORMATS = OPTIM_FORMATS[1:]
ErrorKind = Literal["format", "extraction", "execution", "wrong_answer", "timeout"]

QUESTION_FIELDS = ("question", "en_question", "Question", "problem", "description")
ANSWER_FIELDS = ("answer", "en_answer", "Answer", "optimal_value", "objective_value")
ID_FIELDS = ("id", "index", "ID", "problem_id")
INFEASIBLE_WORDS = ("infeasible", "no best solution", "no feasible solution", "no solution")
SENTINELS = (-9999.0, -99999.0)
"""Dataset values meaning "no valid answer" (SIRL's −9999, ORLM's −99999)."""


class IncorrectResponse(BaseModel):
    """A worked response that must not earn the maximum reward, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    response: str
    error: ErrorKind
    """``format`` (right answer, broken tags), ``extraction`` (no code to run),
    ``execution`` (the code fails), ``wrong_answer`` or ``timeout``."""


class OptimProblem(BaseModel):
    """One optimisation word problem with its ground truth."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    answer: Answer
    """The optimal objective value, or ``"infeasible"`` / ``"unbounded"``."""
    direction: Literal["max", "min"] | None = None
    kind: Literal["lp", "milp", "bigm", "infeasible", "unbounded"] | None = None
    n_binary: int | None = Field(default=None, ge=0)
    n_integer: int | None = Field(default=None, ge=0)
    """General integer variables of the reference model (binaries excluded)."""
    n_constraints: int | None = Field(default=None, ge=0)
    """Constraints of the reference model."""
    reference: str | None = None
    """A full correct tagged response (solver code that writes model.lp)."""
    incorrect: list[IncorrectResponse] = Field(default_factory=list)
    source: str = BUNDLED
    """Which set the problem comes from (``bundled``, ``nl4opt``, …): evaluation reports
    break results down by it."""


# -- loading ---------------------------------------------------------------------------------
def bundled_optim_path() -> Path:
    """The bundled set's JSONL file (inside the installed package)."""
    return Path(str(resources.files("execrl") / "data" / "optim" / "problems.jsonl"))


def load_optim_problems(
    source: str | Path = BUNDLED, *, format: str | None = None
) -> list[OptimProblem]:
    """Load a problem set: ``"bundled"``, an ``optim`` JSONL file, or a public benchmark file
    (``format`` names it; guessed as ``optim`` when rows carry ``id``, ``question`` and
    ``answer``, else ``generic``)."""
    if format is not None and format not in OPTIM_FORMATS:
        raise LoaderError(f"unknown format {format!r}; use one of: {', '.join(OPTIM_FORMATS)}")
    if str(source) == BUNDLED:
        path = bundled_optim_path()
        if not path.is_file():
            raise LoaderError(
                f"the bundled optimisation set is missing ({path}); reinstall execrl or pass "
                "a problems file"
            )
        return _native(path, BUNDLED)
    path = Path(source)
    if not path.is_file():
        raise LoaderError(f"{path}: no such file")
    fmt = format or _guess(path)
    if fmt == "optim":
        return _native(path, path.stem.lower())
    dataset = path.stem.lower() if fmt == "generic" else _mamo_set(fmt, path)
    return [_public_row(row, where, i, dataset) for i, (where, row) in enumerate(_rows(path))]


def load_optim_problem(
    source: str | Path, problem_id: str, *, format: str | None = None
) -> OptimProblem:
    """One problem by id."""
    problems = load_optim_problems(source, format=format)
    for problem in problems:
        if problem.id == problem_id:
            return problem
    known = ", ".join(p.id for p in problems[:5])
    raise LoaderError(
        f"no problem with id {problem_id!r} in {source} ({len(problems)} problems, e.g. {known})"
    )


def parse_answer(value: Any, *, where: str = "answer") -> Answer:
    """A ground truth from a dataset field: a number, a numeric string or a status word."""
    if isinstance(value, bool) or value is None:
        raise ProblemFormatError(f"{where}: expected a number or a status, got {value!r}")
    if isinstance(value, int | float):
        number = float(value)
    else:
        text = str(value).strip()
        lowered = " ".join(text.lower().split())
        if lowered in INFEASIBLE_WORDS:
            return "infeasible"
        if lowered == "unbounded":
            return "unbounded"
        try:
            number = float(text.replace(",", ""))
        except ValueError:
            raise ProblemFormatError(
                f"{where}: {text[:40]!r} is neither a number nor 'infeasible'/'unbounded'"
            ) from None
    if math.isnan(number):
        raise ProblemFormatError(f"{where}: the answer is NaN")
    if number in SENTINELS:
        return "infeasible"
    return number


def _native(path: Path, source: str) -> list[OptimProblem]:
    """``optim`` rows; a row without ``source`` gets the set's name (the file name's stem)."""
    problems = []
    seen: set[str] = set()
    for where, row in _rows(path):
        try:
            problem = OptimProblem.model_validate({"source": source, **row})
        except ValidationError as exc:
            raise ProblemFormatError(f"{where}: {describe_validation_error(exc)}") from exc
        if problem.id in seen:
            raise ProblemFormatError(f"{where}: duplicate problem id {problem.id!r}")
        seen.add(problem.id)
        problems.append(problem)
    return problems


def _public_row(row: dict[str, Any], where: str, index: int, dataset: str) -> OptimProblem:
    question = _first(row, QUESTION_FIELDS)
    if not isinstance(question, str) or not question.strip():
        raise ProblemFormatError(
            f"{where}: no question; expected one of the fields {', '.join(QUESTION_FIELDS)}"
        )
    raw_answer = _first(row, ANSWER_FIELDS)
    if raw_answer is None:
        raise ProblemFormatError(
            f"{where}: no answer; expected one of the fields {', '.join(ANSWER_FIELDS)}"
        )
    raw_id = _first(row, ID_FIELDS)
    local = str(raw_id) if raw_id is not None and str(raw_id).strip() else str(index)
    return OptimProblem(
        id=f"{dataset}-{local}",
        question=question.strip(),
        answer=parse_answer(raw_answer, where=f"{where}: answer"),
        source=dataset,
    )


def _mamo_set(fmt: str, path: Path) -> str:
    """``mamo`` from a file named for one of MAMO's two sets is that set."""
    if fmt != "mamo":
        return fmt
    name = path.stem.lower().replace("_", "").replace("-", "")
    if "easy" in name:
        return "mamo-easylp"
    if "complex" in name:
        return "mamo-complexlp"
    return fmt


def _first(row: dict[str, Any], fields: tuple[str, ...]) -> Any:
    for name in fields:
        if row.get(name) is not None:
            return row[name]
    return None


def _guess(path: Path) -> str:
    for _, row in _rows(path):
        return "optim" if {"id", "question", "answer"} <= row.keys() else "generic"
    return "optim"


def _rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Rows of a .jsonl file, a JSON array, or JSONL saved under a .json name."""
    text = read_text(path, error=LoaderError)
    rows: list[tuple[str, Any]]
    stripped = text.lstrip()
    if path.suffix == ".json" and stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LoaderError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from exc
        rows = [(f"{path}[{i}]", row) for i, row in enumerate(data)]
    else:
        rows = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append((f"{path}:{lineno}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise LoaderError(f"{path}:{lineno}: not valid JSON: {exc.msg}") from exc
    for where, row in rows:
        if not isinstance(row, dict):
            raise LoaderError(f"{where}: expected a JSON object, got {type(row).__name__}")
        yield where, row
