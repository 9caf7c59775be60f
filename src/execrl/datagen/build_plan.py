"""Which folders ``execrl problems build`` builds: a problem folder in place, or a bundled
problem named by its id copied out first (the installed package is never written)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from execrl.errors import LoaderError, OutputError, UsageError
from execrl.problems.bundled import bundled_dir
from execrl.problems.folder import is_problem_folder


@dataclass(frozen=True)
class BuildPlan:
    """One folder to build, and the bundled folder to copy there first (None: build in place)."""

    folder: Path
    bundled: Path | None = None


def installed_package_dir() -> Path | None:
    """The bundled problems' folder when it is inside an installed package (site-packages),
    where nothing may be written; None in a source checkout (an editable install)."""
    root = bundled_dir().resolve()
    return root if {"site-packages", "dist-packages"} & set(root.parts) else None


def plan_build(name: Path, out: Path) -> BuildPlan:
    """The plan for ``name``: a problem folder (refused inside the installed package), or a
    bundled problem id, to be copied to ``out/<id>`` (refused when that exists)."""
    installed = installed_package_dir()
    if is_problem_folder(name):
        if installed is not None and name.resolve().is_relative_to(installed):
            raise UsageError(
                f"{name}: is inside the installed execrl package, which is never written; "
                f"build a copy: `execrl problems build {name.resolve().name} --out DIR`"
            )
        return BuildPlan(name)
    bundled = bundled_dir() / str(name)
    if len(name.parts) != 1 or not is_problem_folder(bundled):
        raise LoaderError(f"{name}: not a problem folder and not a bundled problem id")
    dest = out / name.name
    if dest.exists():
        raise UsageError(
            f"{dest}: already exists, so bundled problem {name.name!r} is not copied over it; "
            f"build that folder (execrl problems build {dest}) or choose another `out`"
        )
    return BuildPlan(dest, bundled)


def copy_bundled(plan: BuildPlan) -> None:
    """Copy the plan's bundled problem to its folder (nothing to do for one built in place)."""
    if plan.bundled is None:
        return
    try:
        shutil.copytree(plan.bundled, plan.folder)
    except OSError as exc:
        raise OutputError(
            f"{plan.folder}: cannot copy bundled problem {plan.bundled.name!r} there "
            f"({exc.strerror or exc}); choose a folder you can write to with `out`"
        ) from None
