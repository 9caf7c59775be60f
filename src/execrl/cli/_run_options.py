"""``execrl run``'s language options (--language, --profile, --compile-flag) and --tests: a
program in any language the table knows, on a problem's tests or on a JSONL file of tests.
Each mistake is one typed line naming the flag or file, found before a sandbox starts."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from execrl.cli._files import read_text_file
from execrl.cli._flags import also_flags
from execrl.errors import DataError, UsageError, describe_validation_error
from execrl.problems.models import Problem, TestCase
from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.languages import PROFILES, by_extension
from execrl.sandbox.languages import language as find_language

_TESTS = TypeAdapter(list[TestCase])
TESTS_NEED = 'each line is a test: {"input": ..., "output": ...} ("id" and "group" optional)'


def add_language_arguments(parser: argparse.ArgumentParser) -> None:
    """--language, --profile, --compile-flag (repeatable) and --tests FILE."""
    parser.add_argument(
        "--language",
        metavar="NAME",
        help="the program's language: any name `execrl languages` lists, such as cpp, c++, "
        "java, rust (default: from the file's extension, else python)",
    )
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default="judge",
        help="compiler flags: judge (what Codeforces/ICPC judges use, e.g. g++ -O2 "
        "-std=gnu++17) or sandboxfusion (its exact commands) (default: %(default)s)",
    )
    parser.add_argument(
        "--compile-flag",
        action="append",
        default=[],
        dest="compile_flags",
        metavar="FLAG",
        help="one more compiler flag after the profile's, such as -DLOCAL (repeatable; write "
        "--compile-flag=-DLOCAL for a flag that starts with a dash)",
    )
    parser.add_argument(
        "--tests",
        type=Path,
        metavar="FILE",
        help="run on the tests of this JSONL file instead of a problem's (then give only "
        "PROGRAM); " + TESTS_NEED,
    )
    also_flags(parser, flags="--compile-flag")


def program_language(given: str | None, program: Path) -> str:
    """execrl's name of the program's language: ``given``, else its file's extension's, else
    python; an unknown ``given`` is a UsageError listing the known names."""
    if given is not None:
        return find_language(given).name
    found = by_extension(program.suffix) if program.suffix else None
    return found.name if found is not None else "python"


def build_options(args: argparse.Namespace) -> BuildOptions:
    """How a compiled program is built: --profile, then the --compile-flag values."""
    return BuildOptions(profile=args.profile, flags=tuple(args.compile_flags))


def program_and_problem(args: argparse.Namespace) -> tuple[Path, str | None]:
    """The program file and the problem id from the positionals: ``PROBLEM PROGRAM``, or
    ``PROGRAM`` alone with --tests (the problem is then the tests file's)."""
    if args.tests is not None:
        if args.program is not None:
            raise UsageError("with --tests give only PROGRAM, not a problem id as well")
        return Path(args.problem), None
    if args.program is None:
        raise UsageError("give PROBLEM and PROGRAM, or PROGRAM with --tests FILE")
    return args.program, args.problem


def tests_problem(path: Path) -> Problem:
    """A problem holding the tests of the JSONL file ``path`` (a test without an ``id`` is
    ``test-<line>``), named after the file, with the default limits; a malformed line is a
    DataError naming the file and line."""
    rows, numbers = [], []
    for number, line in enumerate(read_text_file(path, "tests file").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{number}: not valid JSON ({exc.msg}); {TESTS_NEED}") from None
        if not isinstance(row, dict):
            raise DataError(f"{path}:{number}: a test is a JSON object; {TESTS_NEED}")
        rows.append({"kind": "stdio", "id": f"test-{number}", **row})
        numbers.append(number)
    if not rows:
        raise DataError(f"{path}: no tests in this file; {TESTS_NEED}")
    try:
        tests = _TESTS.validate_python(rows)
    except ValidationError as exc:
        where = describe_validation_error(exc, locate=lambda loc: _line(numbers, loc))
        raise DataError(f"{path}: {where}; {TESTS_NEED}") from None
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", path.stem).lstrip("-._") or "tests"
    return Problem(id=name, tests=tests)


def _line(numbers: list[int], loc: tuple[str | int, ...]) -> str:
    """``line 3, input`` for pydantic's ``(2, 'stdio', 'input')``."""
    field = ".".join(str(part) for part in loc[2:])
    return f"line {numbers[int(loc[0])]}" + (f", {field}" if field else "")
