"""The bundled problem set that ships inside the package (see docs/problems.md)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from execrl.problems.folder import is_problem_folder, read_problem_folder
from execrl.problems.models import Problem


def bundled_dir() -> Path:
    """The folder holding one sub-folder per bundled problem."""
    return Path(str(resources.files("execrl") / "data" / "problems"))


def bundled_problem_ids() -> list[str]:
    root = bundled_dir()
    return sorted(p.name for p in root.iterdir() if is_problem_folder(p))


def load_bundled(ids: list[str] | None = None) -> list[Problem]:
    """Read the bundled problems (all, or those named in ``ids``, in that order)."""
    root = bundled_dir()
    return [read_problem_folder(root / pid) for pid in (ids or bundled_problem_ids())]
