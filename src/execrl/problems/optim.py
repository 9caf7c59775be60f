"""Optimisation word problems: the bundled set and the public benchmark formats.

A problem is a question in words and its ground truth: the optimal objective value, or the
status ``"infeasible"`` / ``"unbounded"`` for the trap problems (a correct response reports
that status). See docs/solver-rewards.md.

Formats (``load_optim_problems(source, format=...)``):

- ``optim`` — execrl's own JSONL, one problem per line with the fields of
  :class:`OptimProblem`.
- A folder of problem folders (the bundled set, ``src/execrl/data/optim/<id>/``, is one):
  each ``<id>/`` holds ``problem.yaml`` (the fields of :class:`OptimProblem` except
  ``reference``; the reference response's ``think`` and ``model`` text; ``incorrect`` as a
  list of ``{error, code: incorrect/<name>.py}`` or ``{error, layout: <name>}``), the reference
  program ``reference.py`` and the incorrect programs under ``incorrect/``. The responses are
  composed from those parts (:func:`compose_response`); folders are read in sorted order.
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

from execrl.errors import LoaderError, ProblemFormatError, describe_validation_error
from execrl.problems._files import read_text, read_yaml

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
    """The bundled set's folder of problem folders (inside the installed package)."""
    return Path(str(resources.files("execrl") / "data" / "optim"))


def load_optim_problems(
    source: str | Path = BUNDLED, *, format: str | None = None
) -> list[OptimProblem]:
    """Load a problem set: ``"bundled"``, a folder of problem folders, an ``optim`` JSONL
    file, or a public benchmark file (``format`` names it; guessed as ``optim`` when rows carry
    ``id``, ``question`` and ``answer``, else ``generic``)."""
    if format is not None and format not in OPTIM_FORMATS:
        raise LoaderError(f"unknown format {format!r}; use one of: {', '.join(OPTIM_FORMATS)}")
    if str(source) == BUNDLED:
        root = bundled_optim_path()
        if not any(root.glob(f"*/{PROBLEM_FILE}")):
            raise LoaderError(
                f"the bundled optimisation set is missing ({root}); reinstall execrl or pass "
                "a problems file"
            )
        return read_optim_folders(root, source=BUNDLED)
    path = Path(source)
    if path.is_dir():
        return read_optim_folders(path, source=path.name.lower())
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


# -- problem folders -------------------------------------------------------------------------
PROBLEM_FILE = "problem.yaml"
REFERENCE_FILE = "reference.py"
RESPONSE_PARTS = ("think", "model")
"""The reference response's text besides its code (``problem.yaml`` keys)."""
FOLDER_ONLY_KEYS = {"exercises", "think", "model"}
"""``problem.yaml`` keys that are not :class:`OptimProblem` fields (``exercises`` is one line
for docs/optim-problems.md)."""
LAYOUTS = (
    "reference",
    "no-think",
    "model-first",
    "untagged-model",
    "code-before-model",
    "truncated",
    "empty-python",
    "empty-fence",
)
"""How a response's sections are arranged: the reference's order, or a format/extraction
flaw (:func:`compose_response`)."""


def compose_response(think: str, model: str, code: str, layout: str = "reference") -> str:
    """A tagged response (``<think>``, ``<model>``, ``<python>`` with fenced ``code``) in the
    reference layout or one of the flawed ``LAYOUTS``."""
    think_part = f"<think>\n{think}\n</think>"
    model_part = f"<model>\n{model}\n</model>"
    python = f"<python>\n```python\n{code}```\n</python>"
    sections = {
        "reference": [think_part, model_part, python],
        "no-think": [model_part, python],
        "model-first": [model_part, think_part, python],
        "untagged-model": [think_part, model, python],
        "code-before-model": [think_part, python, model_part],
        "truncated": [think_part, model_part, "Next I write the solver code for this model."],
        "empty-python": [think_part, model_part, "<python>\n</python>"],
        "empty-fence": [think_part, model_part, "<python>\n```python\n```\n</python>"],
    }
    return "\n".join(sections[layout])


def read_optim_folders(root: Path, *, source: str) -> list[OptimProblem]:
    """Every ``<id>/problem.yaml`` folder under ``root``, in sorted order."""
    folders = sorted(p.parent for p in root.glob(f"*/{PROBLEM_FILE}"))
    if not folders:
        raise LoaderError(f"{root}: no problem folders (<id>/{PROBLEM_FILE}) in this folder")
    return [read_optim_folder(folder, source=source) for folder in folders]


def read_optim_folder(folder: Path, *, source: str = BUNDLED) -> OptimProblem:
    """One problem folder; a malformed one is a ProblemFormatError naming the file."""
    meta_path = folder / PROBLEM_FILE
    meta = read_yaml(meta_path)
    if not isinstance(meta, dict):
        raise ProblemFormatError(
            f"{meta_path}: expected a mapping of problem fields (id: ..., question: ...), "
            f"got {type(meta).__name__}"
        )
    if "reference" in meta:
        raise ProblemFormatError(
            f"{meta_path}: reference: the reference program lives in {REFERENCE_FILE}, and "
            "its think/model text under the keys think and model; remove the key"
        )
    if meta.get("id", folder.name) != folder.name:
        raise ProblemFormatError(
            f"{meta_path}: id {meta['id']!r} differs from the folder name {folder.name!r}; "
            "rename one of them"
        )
    parts = {}
    for key in RESPONSE_PARTS:
        if not isinstance(meta.get(key), str):
            raise ProblemFormatError(
                f"{meta_path}: {key}: expected the reference response's {key} text, "
                f"got {meta.get(key)!r:.60}"
            )
        parts[key] = meta[key]
    code = read_text(_code_path(folder, REFERENCE_FILE, meta_path))
    data = {k: v for k, v in meta.items() if k not in FOLDER_ONLY_KEYS}
    data["id"] = folder.name
    data["reference"] = compose_response(**parts, code=code)
    data["incorrect"] = [
        _incorrect(folder, entry, parts, code, f"{meta_path}: incorrect[{i}]")
        for i, entry in enumerate(_entries(meta.get("incorrect"), meta_path))
    ]
    try:
        return OptimProblem.model_validate({"source": source, **data})
    except ValidationError as exc:
        raise ProblemFormatError(f"{meta_path}: {describe_validation_error(exc)}") from exc


def _entries(value: Any, meta_path: Path) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ProblemFormatError(
            f"{meta_path}: incorrect: expected a list of entries such as "
            f"'- {{error: wrong_answer, code: incorrect/1.py}}', got {value!r:.60}"
        )
    return value


def _incorrect(
    folder: Path, entry: Any, parts: dict[str, str], code: str, where: str
) -> dict[str, Any]:
    """One incorrect response: the reference with its code replaced (``code``) or its sections
    re-arranged (``layout``)."""
    if not isinstance(entry, dict) or "error" not in entry:
        raise ProblemFormatError(f"{where}: expected {{error: ..., code: ... or layout: ...}}")
    unknown = entry.keys() - {"error", "code", "layout", "why"}
    if unknown:
        raise ProblemFormatError(
            f"{where}: unknown key {sorted(unknown)[0]!r}; use error, code, layout and why"
        )
    layout = entry.get("layout", "reference")
    if layout not in LAYOUTS:
        raise ProblemFormatError(
            f"{where}: layout {layout!r} is unknown; use one of: {', '.join(LAYOUTS)}"
        )
    if "code" in entry:
        code = read_text(_code_path(folder, entry["code"], folder / PROBLEM_FILE))
    return {
        "response": compose_response(**parts, code=code, layout=layout),
        "error": entry["error"],
    }


def _code_path(folder: Path, name: Any, meta_path: Path) -> Path:
    path = folder / str(name)
    if not isinstance(name, str) or not name.endswith(".py") or not path.is_file():
        raise ProblemFormatError(
            f"{meta_path}: {name!r}: no such program in {folder} (expected a .py file there)"
        )
    return path


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
