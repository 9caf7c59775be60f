"""Kattis / ICPC problem packages (the problemarchive.org problem package format).

A package is a folder::

    <short-name>/
      problem.yaml                    name, limits, validation, validator_flags
      .timelimit                      optional: the time limit in seconds (DOMjudge, problemtools)
      problem_statement/problem.en.tex | problem.en.md | problem.tex | problem.md
                                      (``statement/`` in the 2023-07 format)
      data/sample/*.in, *.ans         sample tests
      data/secret/**/*.in, *.ans      secret tests (test groups may nest folders)
      data/testdata.yaml              optional: output_validator_flags
      submissions/<verdict>/<file>    accepted, wrong_answer, time_limit_exceeded,
                                      run_time_error, memory_limit_exceeded, ...
                                      (.c .cpp .cc .java .py .rs .go .js ...)
      output_validators/<name>/*.py   a custom output validator (``output_validator/`` in 2023-07)

Field by field:

- folder name → id; ``name`` (a string, or a map language → string) → title; the English
  statement (or the only one) → statement.
- ``data/sample`` and ``data/secret`` → stdio tests in T0 (``original``): both are the
  problem's own tests, as CodeContests' public and private tests are. Ids are the paths under
  ``data/`` without the suffix, folders joined by ``-`` (``sample-1``,
  ``secret-group1-03-max``), in natural order.
- time limit: ``.timelimit``, else ``limits.time_limit`` (2023-07), else the limit
  ``execrl problems check`` derived from the accepted submissions' run times and stored in
  ``.execrl-time-limit.yaml`` (:data:`DERIVED_LIMIT_FILE`); otherwise the Problem default
  (10 s). ``source.extra`` keeps ``time_limit_from`` (which of the three gave it),
  ``time_multiplier`` and ``time_safety_margin`` (``limits``), and a derived limit's record
  (``derived_time_limit``). ``limits.memory`` (MiB) → memory.
- checker: ``validation: default`` (or no ``output_validators``) → the Kattis default
  validator: case-insensitive and space-insensitive unless ``case_sensitive`` /
  ``space_change_sensitive`` are in the flags; ``float_tolerance ε`` (both),
  ``float_absolute_tolerance ε`` and ``float_relative_tolerance ε`` make numeric tokens match
  within the tolerance. Flags come from ``validator_flags`` (legacy problem.yaml) and
  ``output_validator_flags`` (problem.yaml or data/testdata.yaml). ``validation: custom``
  (or an output validator folder) → ``Checker(kind="custom")`` with the validator's
  source; it runs as ``validator input judge_answer feedback_dir [flags] < team_output``, in
  its own sandboxed process (``execrl.sandbox.validators``). Python validators run as they
  are; C++ ones (``validate.cpp`` or the only ``.cpp``, local ``#include "…"`` headers
  inlined) are compiled with ``g++`` on the host and need it; other languages are a
  LoaderError that says so.
- ``submissions/accepted/<file>`` → correct references; every other verdict folder →
  incorrect references whose ``expected_verdict`` is that folder's verdict
  (``wrong_answer``, ``timeout``, ``runtime_error``, ``memory_limit``, ``output_limit``;
  folders with no single verdict, such as ``rejected``, promise only a failure). Every
  single-file submission in a language the table knows is loaded, its language from its
  extension as problemtools reads it (``.c`` C, ``.cpp``/``.cc``/``.cxx``/``.c++``/``.C``
  C++, ``.java``, ``.py``/``.py3`` Python 3, ``.py2`` or a ``python2`` shebang Python 2,
  ``.rs``, ``.go``, ``.js``; a ``.py`` file with no version in its shebang that is not
  Python 3 and has Python-2-only syntax, such as ``print x``, is Python 2); ``languages``
  keeps only some. Each reference's ``source_file`` is its path in the package. Reference names are
  ``<folder>-<file stem>``, or ``<folder>-<file stem>-<extension>`` for files that share a
  stem (``accepted-sol-cpp``, ``accepted-sol-py``). A submission that is a folder of several
  files, or in a language execrl does not know (``.kt``), is skipped, with one warning per
  package naming them. A Java submission keeps its file's class name (``Solution.java``
  holds ``public class Solution``): problemtools runs the class its file is named after.
"""

from __future__ import annotations

import re
import shutil
import warnings
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from execrl.errors import ExecrlError, LoaderError
from execrl.problems._files import read_text, read_yaml
from execrl.problems._validation import parse_problem
from execrl.problems.folder import natural_key
from execrl.problems.language_names import by_extension, canonical_languages, keeps
from execrl.problems.models import Problem

VERDICT_FOLDERS: dict[str, str | None] = {
    "accepted": None,
    "wrong_answer": "wrong_answer",
    "time_limit_exceeded": "timeout",
    "run_time_error": "runtime_error",
    "memory_limit_exceeded": "memory_limit",
    "output_limit_exceeded": "output_limit",
    "compile_error": "compile_error",
}
"""Submission folder → the sandbox verdict its submissions must get on at least one test."""
STATEMENT_NAMES = ("problem.en.md", "problem.en.tex", "problem.md", "problem.tex")
VALIDATOR_FOLDERS = ("output_validators", "output_validator")
PYTHON_SUFFIXES = (".py", ".py3")
DERIVED_LIMIT_FILE = ".execrl-time-limit.yaml"
"""Where ``execrl problems check`` stores the time limit it derived for a package that gives
none, so that later runs use it (read here after ``.timelimit`` and ``limits.time_limit``)."""
CPP_SUFFIXES = (".cpp", ".cc", ".cxx")


class SkippedSubmissionsWarning(UserWarning):
    """Some submissions of a Kattis package cannot be run (a folder of several files, or a
    language execrl does not know) and were not loaded."""


def is_kattis_package(path: Path) -> bool:
    """A Kattis package: a ``data/`` folder with sample or secret tests, and not execrl's own
    ``tests/`` layout (both formats name their metadata ``problem.yaml``)."""
    data = path / "data"
    return (
        path.is_dir()
        and data.is_dir()
        and not (path / "tests").is_dir()
        and ((data / "sample").is_dir() or (data / "secret").is_dir())
    )


def holds_kattis_packages(path: Path) -> bool:
    """``path`` is a Kattis package or a folder with at least one package in it."""
    if is_kattis_package(path):
        return True
    return path.is_dir() and any(is_kattis_package(p) for p in path.iterdir())


def load_kattis(path: str | Path, *, languages: Iterable[str] | str | None = None) -> list[Problem]:
    """Load one Kattis package, or every package in a folder of them (in name order).
    ``languages`` (names the language table knows, e.g. ``["cpp", "java"]``; None: all) keeps
    only the submissions in those languages."""
    path = Path(path)
    wanted = canonical_languages(languages)
    if is_kattis_package(path):
        return [_read_package(path, wanted)]
    if not path.is_dir():
        raise LoaderError(f"{path}: a Kattis package is a folder (with problem.yaml and data/)")
    packages = sorted((p for p in path.iterdir() if is_kattis_package(p)), key=lambda p: p.name)
    if not packages:
        raise LoaderError(
            f"{path}: no Kattis problem packages found (a package holds data/sample or "
            "data/secret with .in/.ans files)"
        )
    return [_read_package(p, wanted) for p in packages]


def _read_package(folder: Path, languages: frozenset[str] | None) -> Problem:
    try:
        return read_kattis_package(folder, languages=languages)
    except ExecrlError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError) as exc:  # an odd problem.yaml
        raise LoaderError(
            f"{folder}: not a Kattis package as expected ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:120]}); check its problem.yaml"
        ) from exc


def read_kattis_package(
    folder: str | Path, *, languages: Iterable[str] | str | None = None
) -> Problem:
    """Read one package (its submissions in ``languages``; None: all); errors name the file
    at fault."""
    folder = Path(folder)
    wanted = canonical_languages(languages)
    meta_path = folder / "problem.yaml"
    meta = _read_yaml(meta_path) if meta_path.is_file() else {}
    limits = meta.get("limits") or {}
    if not isinstance(limits, dict):
        raise LoaderError(f"{meta_path}: 'limits' should be a mapping, got {limits!r}")
    data: dict[str, Any] = {
        "id": _slug(folder.name),
        "title": _title(meta.get("name"), folder.name),
        "statement": _statement(folder),
        "tests": _tests(folder / "data"),
        "checker": _checker(folder, meta, meta_path),
        "references": _submissions(folder, wanted),
        "source": {
            "dataset": "kattis",
            "id": folder.name,
            "url": meta.get("source_url") or None,
            "extra": {
                k: v
                for k, v in {
                    "source": meta.get("source"),
                    "author": meta.get("author"),
                    "license": meta.get("license"),
                    "time_multiplier": limits.get("time_multiplier"),
                    "time_safety_margin": limits.get("time_safety_margin"),
                    "problem_format_version": meta.get("problem_format_version"),
                }.items()
                if v not in (None, "")
            },
        },
    }
    seconds, origin = _time_limit(folder, limits)
    if seconds is not None:
        data["time_limit_s"] = seconds
        data["source"]["extra"]["time_limit_from"] = origin
    if origin == DERIVED_LIMIT_FILE:
        data["source"]["extra"]["derived_time_limit"] = _derived_record(folder)
    if limits.get("memory"):
        try:
            data["memory_limit_mb"] = int(limits["memory"])
        except (TypeError, ValueError):
            raise LoaderError(
                f"{meta_path}: limits.memory: expected a number of MiB, got {limits['memory']!r}"
            ) from None
    return parse_problem(data, where=str(meta_path if meta_path.is_file() else folder))


# -- metadata -----------------------------------------------------------------------------------


def _read_yaml(path: Path) -> dict[str, Any]:
    data = read_yaml(path, error=LoaderError)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise LoaderError(f"{path}: expected a mapping at the top level")
    return data


def _slug(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.\-]+", "-", name).strip("-.")
    return slug or "problem"


def _title(name: Any, fallback: str) -> str:
    if isinstance(name, dict):
        return str(name.get("en") or next(iter(name.values()), fallback))
    return str(name) if name else fallback


def _statement(folder: Path) -> str:
    for sub in ("problem_statement", "statement"):
        for name in STATEMENT_NAMES:
            path = folder / sub / name
            if path.is_file():
                return _read_source(path)
        others = sorted((folder / sub).glob("problem.*")) if (folder / sub).is_dir() else []
        if others:
            return _read_source(others[0])
    return ""


def _time_limit(folder: Path, limits: dict[str, Any]) -> tuple[float | None, str | None]:
    """(seconds, where they came from): ``.timelimit``, ``problem.yaml`` or
    :data:`DERIVED_LIMIT_FILE`; (None, None) when the package gives none."""
    timelimit = folder / ".timelimit"
    if timelimit.is_file():
        text = _read_text(timelimit).strip()
        try:
            return float(text), ".timelimit"
        except ValueError:
            raise LoaderError(f"{timelimit}: expected a number of seconds, got {text!r}") from None
    if limits.get("time_limit") is not None:
        try:
            return float(limits["time_limit"]), "problem.yaml"
        except (TypeError, ValueError):
            raise LoaderError(
                f"{folder / 'problem.yaml'}: limits.time_limit: expected a number of seconds, "
                f"got {limits['time_limit']!r}"
            ) from None
    if (folder / DERIVED_LIMIT_FILE).is_file():
        return float(_derived_record(folder)["time_limit_s"]), DERIVED_LIMIT_FILE
    return None, None


def _derived_record(folder: Path) -> dict[str, Any]:
    path = folder / DERIVED_LIMIT_FILE
    record = _read_yaml(path)
    seconds = record.get("time_limit_s")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
        raise LoaderError(
            f"{path}: time_limit_s: expected a number of seconds, got {seconds!r}; delete the "
            "file and run `execrl problems check` again to derive it"
        )
    return record


# -- tests --------------------------------------------------------------------------------------


def _tests(data_dir: Path) -> list[dict[str, Any]]:
    tests = []
    for part in ("sample", "secret"):
        root = data_dir / part
        if not root.is_dir():
            continue
        inputs = sorted(root.rglob("*.in"), key=lambda p: natural_key(str(p.relative_to(root))))
        for inp in inputs:
            ans = inp.with_suffix(".ans")
            if not ans.is_file():
                raise LoaderError(f"{inp}: has no {ans.name} (each .in needs its .ans)")
            test_id = str(inp.relative_to(data_dir).with_suffix("")).replace("\\", "/")
            tests.append(
                {
                    "kind": "stdio",
                    "id": _test_id(test_id),
                    "input": _read_text(inp),
                    "output": _read_text(ans),
                }
            )
    if not tests:
        raise LoaderError(f"{data_dir}: no tests (data/sample and data/secret hold .in/.ans)")
    return tests


def _test_id(raw: str) -> str:
    # "-" joins the folders, not "/": the folder format stores a test as one file per group.
    return "-".join(re.sub(r"[^A-Za-z0-9_.\-]+", "-", part) or "x" for part in raw.split("/"))


def _read_text(path: Path) -> str:
    """A test file, its bytes' line endings kept."""
    return read_text(path, error=LoaderError)


def _read_source(path: Path) -> str:
    """A statement or program, with universal newlines (as ``Path.read_text`` reads)."""
    return _read_text(path).replace("\r\n", "\n").replace("\r", "\n")


# -- output validation --------------------------------------------------------------------------


def _checker(folder: Path, meta: dict[str, Any], meta_path: Path) -> dict[str, Any]:
    flags = _flags(folder, meta)
    validation = str(meta.get("validation") or "default")
    validator_dir = next(
        (
            folder / d
            for d in VALIDATOR_FOLDERS
            if (folder / d).is_dir() and any((folder / d).iterdir())
        ),
        None,
    )
    if "interactive" in validation.split():
        raise LoaderError(f"{meta_path}: interactive problems are not supported")
    if "custom" in validation.split() or (validator_dir is not None and validation != "default"):
        if validator_dir is None:
            raise LoaderError(
                f"{meta_path}: validation is {validation!r} but there is no "
                f"{folder / VALIDATOR_FOLDERS[0]}/ folder"
            )
        language, source = _validator(validator_dir)
        return {
            "kind": "custom",
            "validator": source,
            "validator_language": language,
            "validator_args": flags,
        }
    return default_validator_checker(flags, where=str(meta_path))


def default_validator_checker(
    flags: list[str], *, where: str = "validator_flags"
) -> dict[str, Any]:
    """The Checker fields of the Kattis default output validator with ``flags``."""
    checker: dict[str, Any] = {"kind": "tokens", "case_sensitive": False}
    abs_tol = rel_tol = None
    i = 0
    while i < len(flags):
        flag = flags[i]
        if flag == "case_sensitive":
            checker["case_sensitive"] = True
        elif flag == "space_change_sensitive":
            checker["space_change_sensitive"] = True
        elif flag in ("float_tolerance", "float_absolute_tolerance", "float_relative_tolerance"):
            if i + 1 >= len(flags):
                raise LoaderError(f"{where}: {flag} needs a number after it")
            try:
                value = float(flags[i + 1])
            except ValueError:
                raise LoaderError(
                    f"{where}: {flag} needs a number after it, got {flags[i + 1]!r}"
                ) from None
            if flag != "float_relative_tolerance":
                abs_tol = value
            if flag != "float_absolute_tolerance":
                rel_tol = value
            i += 1
        else:
            raise LoaderError(
                f"{where}: unknown default-validator flag {flag!r}; known: case_sensitive, "
                "space_change_sensitive, float_tolerance, float_absolute_tolerance, "
                "float_relative_tolerance"
            )
        i += 1
    if abs_tol is not None or rel_tol is not None:
        checker.update(kind="float", abs_tol=abs_tol or 0.0, rel_tol=rel_tol or 0.0)
    return checker


def _flags(folder: Path, meta: dict[str, Any]) -> list[str]:
    flags: list[str] = []
    sources: list[Any] = [meta.get("validator_flags"), meta.get("output_validator_flags")]
    for testdata in (
        folder / "data" / "testdata.yaml",
        folder / "data" / "secret" / "testdata.yaml",
    ):
        if testdata.is_file():
            sources.append(_read_yaml(testdata).get("output_validator_flags"))
    for value in sources:
        if isinstance(value, str):
            flags += value.split()
        elif isinstance(value, list):
            flags += [str(v) for v in value]
    seen: list[str] = []
    for flag in flags:  # the same flag from two places counts once (numbers may repeat)
        if flag not in seen or _is_number(flag):
            seen.append(flag)
    return seen


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _validator(validator_dir: Path) -> tuple[str, str]:
    """(language, source) of the package's output validator: one Python file (or
    ``validate.py``), or C++ sources (``validate.cpp`` or the only one, with the folder's own
    ``#include "…"`` headers inlined). C++ needs ``g++`` on this machine."""
    folders = [validator_dir, *sorted(p for p in validator_dir.iterdir() if p.is_dir())]
    for sub in folders:
        files = sorted(p for p in sub.iterdir() if p.is_file())
        for suffixes, language in ((PYTHON_SUFFIXES, "python3"), (CPP_SUFFIXES, "cpp")):
            sources = [p for p in files if p.suffix in suffixes]
            if not sources:
                continue
            named = [p for p in sources if p.stem in ("validate", "validator", "output_validator")]
            chosen = named or sources
            if len(chosen) != 1:
                found = ", ".join(p.name for p in chosen)
                raise LoaderError(
                    f"{sub}: expected one validator source (or validate{suffixes[0]}), found "
                    f"{found}"
                )
            if language == "python3":
                return language, _read_source(chosen[0])
            if shutil.which("g++") is None:
                raise LoaderError(
                    f"{chosen[0]}: a C++ output validator needs g++ on this machine, and none "
                    "was found; only Python validators are supported without it"
                )
            return language, _inline_local_includes(chosen[0], set())
        others = [p for p in files if p.suffix in (".c", ".java", ".kt", ".rs", ".sh")]
        if others:
            raise LoaderError(
                f"{others[0]}: only Python and C++ output validators are supported here; run "
                "this package's validator with its own judge, or port it"
            )
    raise LoaderError(f"{validator_dir}: no Python or C++ output validator found")


_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"\s*$', re.MULTILINE)


def _inline_local_includes(path: Path, seen: set[Path]) -> str:
    """``path``'s text with each ``#include "x.h"`` found beside it replaced by that file."""
    seen.add(path.resolve())

    def replace(match: re.Match[str]) -> str:
        header = path.parent / match.group(1)
        if not header.is_file():
            return match.group(0)  # a system or generated header: leave it to the compiler
        if header.resolve() in seen:
            return ""
        return _inline_local_includes(header, seen)

    return _LOCAL_INCLUDE.sub(replace, _read_source(path))


# -- submissions ---------------------------------------------------------------------------------


def _submissions(folder: Path, languages: frozenset[str] | None) -> list[dict[str, Any]]:
    root = folder / "submissions"
    if not root.is_dir():
        return []
    references: list[dict[str, Any]] = []
    skipped: list[str] = []
    for verdict_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        expected = VERDICT_FOLDERS.get(verdict_dir.name)
        label = "correct" if verdict_dir.name == "accepted" else "incorrect"
        entries = sorted(
            (p for p in verdict_dir.iterdir() if not p.name.startswith(".")),  # .gitkeep
            key=lambda p: natural_key(p.name),
        )
        found = {p: submission_language(p) for p in entries if p.is_file()}
        stems = Counter(p.stem for p, language in found.items() if language is not None)
        for path in entries:
            if not path.is_file():
                skipped.append(f"{path.name}/ (a submission of several files)")
                continue
            language = found[path]
            if language is None:
                skipped.append(f"{path.name} (no language for {path.suffix or 'no extension'})")
                continue
            if not keeps(languages, language):
                continue
            code = _read_source(path)
            name = f"{verdict_dir.name}-{path.stem}"
            if stems[path.stem] > 1:  # average.cpp and average.py: both keep their extension
                name += "-" + path.suffix.lstrip(".").replace("+", "p")
            references.append(
                {
                    "name": _unique(_slug(name), references),
                    "code": code,
                    "label": label,
                    "language": language,
                    "expected_verdict": expected,
                    "source_file": path.relative_to(folder).as_posix(),
                }
            )
    if skipped:
        shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more" if skipped[5:] else "")
        warnings.warn(
            f"{root}: skipped {len(skipped)} submission(s) execrl cannot run: {shown}; "
            "a submission is one source file in a language `execrl languages` lists",
            SkippedSubmissionsWarning,
            stacklevel=3,
        )
    return references


def _unique(name: str, references: list[dict[str, Any]]) -> str:
    """``name``, numbered from 2 if a reference already has it (``sol.cpp`` and ``sol.c++``
    are both ``-cpp``)."""
    taken = {r["name"] for r in references}
    candidates = (name if n == 1 else f"{name}{n}" for n in range(1, len(taken) + 2))
    return next(c for c in candidates if c not in taken)


def submission_language(path: Path) -> str | None:
    """The language of one submission file, as problemtools decides it: by its extension
    (case matters: ``.C`` is C++, ``.c`` is C), except that ``.py2`` files, and ``.py`` files
    whose first line is a ``python2`` shebang, are Python 2 (as is a ``.py`` file with no
    version in its shebang whose text is Python 2 only: :func:`looks_like_python2`). None: no
    language execrl knows (only a ``.py`` file is read)."""
    if path.suffix == ".py2" or (path.suffix == ".py" and _is_python2(path)):
        return "python2"
    return by_extension(path.suffix) if path.suffix else None


def _is_python2(path: Path) -> bool:
    source = _read_source(path)
    first = source.split("\n", 1)[0]
    if first.startswith("#!") and re.search(r"python[23]\b", first):
        return re.search(r"python2\b", first) is not None
    return looks_like_python2(source)


_PYTHON2_ONLY = re.compile(
    r"^[ \t]*(print[ \t]*$|print[ \t]+[^\s(=.]|exec[ \t]+[\"'\w]"
    r"|except[ \t]+[\w.]+[ \t]*,[ \t]*\w+[ \t]*:)",
    re.MULTILINE,
)
"""A line only Python 2 reads: a ``print`` or ``exec`` statement, ``except E, e:``."""
_PRINT_CHEVRON = re.compile(r"^[ \t]*print[ \t]*>>", re.MULTILINE)
"""``print >>f, x``: Python 3 compiles it as an expression that raises at run time."""


def looks_like_python2(source: str) -> bool:
    """``source`` has a ``print >>f, x`` line, or is not Python 3 (it does not compile) and
    has a line that only Python 2 reads (``print x``, ``exec code``, ``except E, e:``): a
    Python 3 program with a syntax error stays Python 3. The text is compiled, never run."""
    if _PRINT_CHEVRON.search(source):  # (Python 3 compiles it, and fails on it: TypeError)
        return True
    if not _PYTHON2_ONLY.search(source):
        return False
    try:
        compile(source, "<submission>", "exec", dont_inherit=True)
    except SyntaxError:
        return True
    except (ValueError, RecursionError, MemoryError):  # (a NUL byte, absurd nesting)
        return False
    return False
