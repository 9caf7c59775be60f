"""LeetCodeDataset rows (``newfacade/LeetCodeDataset``).

Field by field:

- ``task_id`` (``"two-sum"``) → id and title; ``question_id`` → ``source.id``;
  ``problem_description`` → statement; ``difficulty`` (``Easy`` / ``Medium`` / ``Hard``) →
  difficulty; ``tags`` → tags; ``estimated_date`` → ``source.extra``.
- ``starter_code`` (the ``class Solution`` stub) → ``starter_code``.
- ``prompt`` (the harness's imports and helpers: ``ListNode``, ``TreeNode``, ``list_node``,
  ``tree_node``, ``is_same_list``, ``is_same_tree``) → ``prelude``, trusted code run before the
  program in both the candidate's process and the checker's.
- ``test`` (``def check(candidate): assert candidate(nums = [2,7,11,15], target = 9) == ...``,
  keyword arguments as in the dataset) → one assert test ``check`` in T0, unchanged;
  ``entry_point`` (``"Solution().twoSum"``) → ``entry_point`` of the problem and the test,
  unchanged.
- ``completion`` (the reference solution) → the correct reference ``completion``.
- ``input_output`` (``[{"input": "nums = [3,3], target = 6", "output": "[0, 1]"}]``, the same
  cases as ``test`` in text form) → ``source.extra["input_output"]``; ``query`` / ``response``
  (a chat-formatted prompt and answer) are not kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from execrl.errors import LoaderError
from execrl.problems._rows import convert_rows, decode_literal_list, slugify
from execrl.problems._validation import parse_problem
from execrl.problems.models import Problem

REQUIRED = ("task_id", "test", "entry_point")


def load_leetcode(path: str | Path) -> list[Problem]:
    """Load LeetCodeDataset rows from .jsonl[.gz], .json or .parquet."""
    return convert_rows(
        path,
        lambda _, where, row: parse_problem(leetcode_row_to_dict(row, where), where=where),
        dataset="LeetCodeDataset",
    )


def leetcode_row_to_dict(row: dict[str, Any], where: str) -> dict[str, Any]:
    missing = [f for f in REQUIRED if not row.get(f)]
    if missing:
        raise LoaderError(f"{where}: LeetCodeDataset row lacks {', '.join(missing)}")
    entry_point = str(row["entry_point"]).strip()
    raw_difficulty = row.get("difficulty")
    difficulty = str(raw_difficulty or "").lower()
    references = []
    if row.get("completion"):
        references.append({"name": "completion", "code": row["completion"], "label": "correct"})
    extra = {k: row[k] for k in ("estimated_date", "input_output") if row.get(k)}
    return {
        "id": slugify(str(row["task_id"])),
        "title": str(row["task_id"]),
        "statement": row.get("problem_description") or "",
        "difficulty": difficulty if difficulty in ("easy", "medium", "hard") else "unknown",
        "entry_point": entry_point,
        "starter_code": row.get("starter_code") or None,
        "prelude": row.get("prompt") or None,
        "tests": [
            {"kind": "assert", "id": "check", "code": row["test"], "entry_point": entry_point}
        ],
        "references": references,
        "tags": decode_literal_list(row.get("tags"), where=where, field="tags"),
        "source": {
            "dataset": "leetcodedataset",
            "id": str(row.get("question_id") or row["task_id"]),
            "url": f"https://leetcode.com/problems/{row['task_id']}/",
            "difficulty": raw_difficulty,
            "extra": extra,
        },
    }
