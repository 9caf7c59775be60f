"""The starter problem set: 32 easy function-completion problems (see docs/problems.md).

Small models (SmolLM2-135M) solve some of them, so a short RL run has signal to learn from.
Each problem is tagged ``train`` or ``heldout`` (22 and 10), and ``level-1`` to ``level-3``.
The file is written by tests/fixtures/make_starter.py.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from execrl.errors import LoaderError
from execrl.problems.jsonl import read_problems_jsonl
from execrl.problems.models import Problem

STARTER_SPLITS = ("train", "heldout")
"""The tags that split the starter set: problems to train on and problems held out."""


def starter_path() -> Path:
    """The JSONL file holding the starter problems."""
    return Path(str(resources.files("execrl") / "data" / "starter" / "problems.jsonl"))


def load_starter(split: str | None = None) -> list[Problem]:
    """The starter problems, all of them or those of one split (``train`` or ``heldout``)."""
    if split is not None and split not in STARTER_SPLITS:
        raise LoaderError(
            f"unknown starter split {split!r}; use one of: {', '.join(STARTER_SPLITS)}"
        )
    problems = read_problems_jsonl(starter_path())
    return [p for p in problems if split is None or split in p.tags]
