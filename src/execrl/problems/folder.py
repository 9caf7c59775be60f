"""The native, human-editable format: one folder per problem.

::

    <problem-id>/
      problem.yaml            metadata, limits, checker, reference labels, generator plan
      statement.md            the statement shown to a model
      generator.py            optional input generator (python generator.py MODE SEED)
      references/<name>.<ext> one program per reference solution, in any language: the
                              entry's ``language`` in problem.yaml, else the extension says
                              (``.py`` Python 3, ``.cpp`` C++, ``.java``, ``.c``, ``.rs``, ...)
      tests/<group>/<name>.in   stdin of a stdio test   (``.in.gz`` for large inputs)
      tests/<group>/<name>.out  expected stdout         (``.out.gz``)
      tests/<group>/<name>.json a call-based or assert-style test
      tests/<group>/<mode>-<seed>.in.sha256  a large generated input, kept as its hash only:
                                it is regenerated from generator.py (see execrl.problems.generated)

``<group>`` is ``original`` (T0), ``extra`` (T+) or ``optimization`` (T_O). Tests are ordered
by natural sort of their names (``small-2`` before ``small-10``).
"""

from __future__ import annotations

import gzip
import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from execrl.errors import OutputError, ProblemFormatError
from execrl.problems._files import read_json, read_text, read_yaml
from execrl.problems._validation import parse_problem
from execrl.problems.generated import regenerate_input, remember_input
from execrl.problems.language_names import by_extension, find_language, source_suffix
from execrl.problems.models import Problem, StdioTest, TestGroup

PROBLEM_FILE = "problem.yaml"
STATEMENT_FILE = "statement.md"
GZIP_ABOVE_BYTES = 64 * 1024
"""Test files larger than this are written gzip-compressed."""


def is_problem_folder(path: Path) -> bool:
    return (path / PROBLEM_FILE).is_file()


def read_problem_folder(folder: str | Path) -> Problem:
    """Read one problem folder; errors name the file and field at fault."""
    folder = Path(folder)
    meta_path = folder / PROBLEM_FILE
    if not meta_path.is_file():
        raise ProblemFormatError(f"{folder}: no {PROBLEM_FILE}; is this a problem folder?")
    if (folder / "data").is_dir() and not (folder / "tests").is_dir():
        raise ProblemFormatError(
            f"{folder}: this looks like a Kattis/ICPC problem package (data/, no tests/); "
            "read it with `format` kattis (execrl.problems.kattis.load_kattis)"
        )
    meta = _read_yaml(meta_path)
    if "tests" in meta:
        raise ProblemFormatError(
            f"{meta_path}: tests: a problem folder keeps its tests as files in tests/<group>/ "
            "(NAME.in + NAME.out, or NAME.json), not in problem.yaml; move them there"
        )
    data: dict[str, Any] = dict(meta)
    data.setdefault("id", folder.name)
    statement_path = folder / STATEMENT_FILE
    if statement_path.is_file():
        data["statement"] = read_text(statement_path)
    references = meta.get("references")
    if references is not None and not isinstance(references, list):
        raise ProblemFormatError(
            f"{meta_path}: references: expected a list of entries such as "
            f"'- {{name: fast, label: correct}}', got {references!r:.60}"
        )
    data["references"] = [_read_reference(folder, r, meta_path) for r in references or []]
    if "generator" in meta:
        data["generator"] = _read_generator(folder, meta["generator"], meta_path)
    generator_code = data["generator"]["code"] if "generator" in data else None
    data["tests"] = _read_tests(folder / "tests", generator_code)
    return parse_problem(data, where=str(meta_path))


def write_problem_folder(problem: Problem, folder: str | Path) -> Path:
    """Write ``problem`` as a folder (created or overwritten file by file); returns the folder.
    A destination that cannot be written is an OutputError naming it."""
    folder = Path(folder)
    try:
        return _write_problem_folder(problem, folder)
    except OSError as exc:
        where = exc.filename or folder
        raise OutputError(
            f"{where}: cannot write problem {problem.id!r} ({exc.strerror or exc}); "
            "choose a destination folder you can write to"
        ) from None


def _write_problem_folder(problem: Problem, folder: Path) -> Path:
    (folder / "references").mkdir(parents=True, exist_ok=True)
    meta = problem.model_dump(
        mode="json",
        exclude={"statement", "tests", "references", "generator"},
        exclude_defaults=True,
    )
    meta["id"] = problem.id
    meta["references"] = []
    for ref in problem.references:
        for stale in _reference_files(folder / "references", ref.name):
            stale.unlink()  # a reference rewritten in another language leaves no old file
        (folder / "references" / f"{ref.name}{source_suffix(ref.language)}").write_text(
            ref.code, encoding="utf-8", newline=""
        )
        entry = ref.model_dump(mode="json", exclude={"code", "durations_s"}, exclude_defaults=True)
        entry["label"] = ref.label.value
        meta["references"].append(entry)
        if ref.durations_s:
            durations = folder / "references" / f"{ref.name}.durations.json"
            durations.write_text(json.dumps(ref.durations_s, indent=1), encoding="utf-8")
    if problem.generator is not None:
        (folder / "generator.py").write_text(problem.generator.code, encoding="utf-8", newline="")
        plan = {
            g.value: {m.value: n for m, n in modes.items()}
            for g, modes in problem.generator.plan.items()
        }
        meta["generator"] = {"file": "generator.py", "plan": plan}
    (folder / PROBLEM_FILE).write_text(
        yaml.safe_dump(meta, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    if problem.statement:
        (folder / STATEMENT_FILE).write_text(problem.statement, encoding="utf-8", newline="")
    for test in problem.tests:
        write_test(folder / "tests", test)
    return folder


def write_test(tests_dir: Path, test: Any, *, regenerable: bool = False) -> None:
    """Write one test into ``tests_dir/<group>/``; large stdio files are gzip-compressed.

    With ``regenerable=True`` (a generated ``<mode>-<seed>`` test), a large input is stored as
    its hash only and cached; loading regenerates it from the problem's generator.
    """
    group_dir = tests_dir / test.group.value
    group_dir.mkdir(parents=True, exist_ok=True)
    if isinstance(test, StdioTest):
        if regenerable and len(test.input) > GZIP_ABOVE_BYTES:
            for stale in (f"{test.id}.in", f"{test.id}.in.gz"):
                (group_dir / stale).unlink(missing_ok=True)
            digest = remember_input(test.input)
            (group_dir / f"{test.id}.in.sha256").write_text(digest + "\n", encoding="utf-8")
        else:
            (group_dir / f"{test.id}.in.sha256").unlink(missing_ok=True)
            _write_text(group_dir / f"{test.id}.in", test.input)
        _write_text(group_dir / f"{test.id}.out", test.output)
    else:
        body = test.model_dump(mode="json", exclude={"id", "group"})
        (group_dir / f"{test.id}.json").write_text(json.dumps(body, indent=1), encoding="utf-8")


def natural_key(name: str) -> list[Any]:
    """Sort key that orders embedded numbers numerically: small-2 < small-10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _read_yaml(path: Path) -> dict[str, Any]:
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ProblemFormatError(
            f"{path}: expected a mapping of problem fields (id: ..., title: ...) at the top "
            f"level, got {type(data).__name__}"
        )
    return data


def _read_reference(folder: Path, entry: Any, meta_path: Path) -> dict[str, Any]:
    if not isinstance(entry, dict) or "name" not in entry:
        raise ProblemFormatError(
            f"{meta_path}: references: each entry needs a 'name', got {entry!r}"
        )
    name = entry["name"]
    if not isinstance(name, str) or not name:
        raise ProblemFormatError(
            f"{meta_path}: references: name {name!r} should be the stem of a file in "
            "references/ (e.g. 'fast' for references/fast.py)"
        )
    code_path = _reference_file(folder / "references", name, entry.get("language"), meta_path)
    ref = dict(entry)
    ref["code"] = read_text(code_path)
    if "language" not in entry:
        ref["language"] = by_extension(code_path.suffix)
    durations_path = folder / "references" / f"{name}.durations.json"
    if durations_path.is_file():
        durations = read_json(durations_path)
        if not isinstance(durations, dict):
            raise ProblemFormatError(
                f"{durations_path}: expected an object of test id -> seconds, "
                f"got {type(durations).__name__}"
            )
        ref["durations_s"] = durations
    return ref


def _reference_files(references: Path, name: str) -> list[Path]:
    """The files ``references/<name>.<ext>`` (a source in any language; not the
    ``<name>.durations.json`` beside it)."""
    if not references.is_dir():
        return []
    return sorted(
        p
        for p in references.iterdir()
        if p.is_file() and p.stem == name and p.name != f"{name}.durations.json"
    )


def _reference_file(references: Path, name: str, language: Any, meta_path: Path) -> Path:
    """The one source file of reference ``name``: ``<name>.<ext>`` with an extension of its
    ``language`` when the entry names one, else the only ``<name>.<ext>`` whose extension
    names a language."""
    files = _reference_files(references, name)
    canonical = find_language(language) if language is not None else None
    if canonical is not None:
        files = [p for p in files if by_extension(p.suffix) == canonical] or [
            p for p in files if p.suffix == source_suffix(canonical)
        ]
    else:
        files = [p for p in files if by_extension(p.suffix) is not None]
    if len(files) == 1:
        return files[0]
    if not files:
        suffix = source_suffix(canonical or "python")
        raise ProblemFormatError(
            f"{meta_path}: references: {name!r} has no file {references / name}{suffix}"
            + (
                ""
                if canonical
                else f" (or {name}.cpp, {name}.java, ...: the extension names its language)"
            )
        )
    raise ProblemFormatError(
        f"{meta_path}: references: {name!r} has {len(files)} files "
        f"({', '.join(p.name for p in files)}); keep one, or name the entry's language"
    )


def _read_generator(folder: Path, entry: Any, meta_path: Path) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ProblemFormatError(
            f"{meta_path}: generator: expected a mapping with 'file' and 'plan'"
        )
    file = entry.get("file", "generator.py")
    if not isinstance(file, str) or not file:
        raise ProblemFormatError(
            f"{meta_path}: generator.file: expected a file name such as generator.py, got {file!r}"
        )
    code_path = folder / file
    if not code_path.is_file():
        raise ProblemFormatError(f"{meta_path}: generator.file: {code_path} does not exist")
    return {"code": read_text(code_path), "plan": entry.get("plan", {})}


def _read_tests(tests_dir: Path, generator_code: str | None) -> list[dict[str, Any]]:
    tests: list[dict[str, Any]] = []
    if tests_dir.exists() and not tests_dir.is_dir():
        raise ProblemFormatError(
            f"{tests_dir}: should be a folder of test groups (original/, extra/, optimization/)"
        )
    if not tests_dir.is_dir():
        return tests
    for group_dir in sorted(tests_dir.iterdir()):
        if not group_dir.is_dir():
            continue
        if group_dir.name not in {g.value for g in TestGroup}:
            groups = ", ".join(g.value for g in TestGroup)
            raise ProblemFormatError(
                f"{group_dir}: unknown test group folder; use one of: {groups}"
            )
        tests.extend(_read_group(group_dir, generator_code))
    return tests


def _read_group(group_dir: Path, generator_code: str | None) -> list[dict[str, Any]]:
    by_name: dict[str, dict[str, Path]] = {}
    for path in group_dir.iterdir():
        stem, suffix = _split_test_name(path.name)
        if suffix is None:
            raise ProblemFormatError(
                f"{path}: unexpected file; tests are NAME.in/.out[.gz], NAME.in.sha256 or NAME.json"
            )
        by_name.setdefault(stem, {})[suffix] = path
    tests: list[dict[str, Any]] = []
    regenerate: list[tuple[dict[str, Any], str, str]] = []
    for name in sorted(by_name, key=natural_key):
        parts = by_name[name]
        if "json" in parts:
            body = read_json(parts["json"])
            if not isinstance(body, dict):
                raise ProblemFormatError(
                    f"{parts['json']}: expected a JSON object describing one test "
                    '({"kind": "call", "fn_name": ..., "args": [...], "expected": ...} or '
                    f'{{"kind": "assert", ...}}), got {type(body).__name__}'
                )
            tests.append({**body, "id": name, "group": group_dir.name})
            continue
        if not parts.keys() & {"in", "sha"} or "out" not in parts:
            missing = "in" if "out" in parts else "out"
            raise ProblemFormatError(
                f"{group_dir / name}: has no .{missing} file (stdio tests need both)"
            )
        entry = {
            "kind": "stdio",
            "id": name,
            "group": group_dir.name,
            "output": read_text(parts["out"]),
        }
        if "in" in parts:
            entry["input"] = read_text(parts["in"])
        else:
            digest = read_text(parts["sha"]).strip()
            if not re.fullmatch(r"[0-9a-f]{64}", digest):
                raise ProblemFormatError(
                    f"{parts['sha']}: expected the input's SHA-256 (64 hex digits), got "
                    f"{digest[:80]!r}; store the input itself as {name}.in"
                )
            regenerate.append((entry, name, digest))
        tests.append(entry)
    if regenerate:  # generator runs are separate processes: run them side by side

        def rebuild(item: tuple[dict[str, Any], str, str]) -> str:
            _, name, digest = item
            return regenerate_input(generator_code, name, digest, where=str(group_dir / name))

        with ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
            for (entry, _, _), text in zip(regenerate, pool.map(rebuild, regenerate), strict=True):
                entry["input"] = text
    return tests


def _split_test_name(filename: str) -> tuple[str, str | None]:
    if filename.endswith(".in.sha256"):
        return filename[: -len(".in.sha256")], "sha"
    for suffix in (".in.gz", ".out.gz", ".in", ".out", ".json"):
        if filename.endswith(suffix):
            return filename[: -len(suffix)], suffix.strip(".").removesuffix(".gz")
    return filename, None


def _write_text(path: Path, text: str) -> None:
    plain, packed = path, path.with_name(path.name + ".gz")
    if len(text) > GZIP_ABOVE_BYTES:
        plain.unlink(missing_ok=True)
        # mtime=0 keeps the bytes reproducible, so rebuilding tests does not churn git.
        with open(packed, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write(text.encode("utf-8"))
    else:
        packed.unlink(missing_ok=True)
        plain.write_text(text, encoding="utf-8", newline="")
