"""``execrl run`` and ``execrl doctor``: one program on one problem; what the sandbox protects."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table
from rich.text import Text

from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_EXECRL_FAILED,
    EXIT_OK,
    TIMING_HELP,
    add_timing_argument,
    check_range,
    console,
    print_table,
    require_counting,
    safe_markup,
)
from execrl.cli._executor import (
    add_executor_argument,
    add_sandbox_arguments,
    executor_spec,
    open_executor_from_args,
    sandbox_config,
)
from execrl.cli._files import read_text_file
from execrl.cli._run_options import (
    add_language_arguments,
    build_options,
    program_and_problem,
    program_language,
    tests_problem,
)
from execrl.errors import LoaderError, UsageError
from execrl.problems.io import BUNDLED, FORMATS, load_problem
from execrl.problems.models import StdioTest, TestGroup
from execrl.sandbox.counting import valgrind_status
from execrl.sandbox.isolation import PROTECTIONS, SandboxConfig, probe
from execrl.sandbox.limits import MAX_REPEATS, ExecutionOptions
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.problem_runs import problem_request, problem_tests, record_table


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "run",
        help="run a program on a problem's tests in the sandbox",
        description="Run PROGRAM on the tests of PROBLEM (or of a JSONL file given with "
        "--tests) in the sandbox and print per-test verdicts and times. PROGRAM may be in any "
        "language `execrl languages` lists: built once in the sandbox, then run on each test.",
    )
    p.add_argument("problem", metavar="PROBLEM", help="problem id (with --tests: PROGRAM)")
    p.add_argument(
        "program",
        type=Path,
        nargs="?",
        metavar="PROGRAM",
        help="the program to run: main.py, main.cpp, Main.java... (the extension gives the "
        "language unless --language says)",
    )
    add_language_arguments(p)
    p.add_argument("--source", default=BUNDLED, help="problem set (default: bundled)")
    p.add_argument("--format", choices=FORMATS, help="the source's format")
    p.add_argument(
        "--group",
        action="append",
        choices=[g.value for g in TestGroup],
        help="only tests of this group (repeatable)",
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=1,
        help=f"runs per test, 1 to {MAX_REPEATS}; the median time is reported and every run "
        "is judged (default: %(default)s)",
    )
    add_timing_argument(p, help="the duration that counts (what rewards use): " + TIMING_HELP)
    p.add_argument(
        "--stop-at-first-failure",
        action="store_true",
        help="skip the remaining tests once one fails (tests run original, extra, then "
        "optimization); the skipped ones are not listed",
    )
    p.add_argument(
        "--unsafe-degraded",
        action="store_true",
        help="run even if this machine cannot isolate the network (see `execrl doctor`)",
    )
    add_sandbox_arguments(p)
    add_executor_argument(p)
    p.set_defaults(handler=cmd_run)

    d = commands.add_parser(
        "doctor",
        help="report which sandbox protections work on this machine",
        description="Report which protections the sandbox has on this machine "
        "and check that a program runs.",
    )
    d.set_defaults(handler=cmd_doctor)


def cmd_run(args: argparse.Namespace) -> int:
    # Everything a user can get wrong is checked before the sandbox starts.
    check_range("--repeats", args.repeats, 1, MAX_REPEATS, "runs per test")
    require_counting(args.timing)
    if args.unsafe_degraded and executor_spec(args).kind == "remote":
        raise UsageError("--unsafe-degraded applies to a sandbox on this machine, not a server's")
    path, problem_id = program_and_problem(args)
    language, build = program_language(args.language, path), build_options(args)
    if problem_id is None:
        problem = tests_problem(args.tests)
    else:
        problem = load_problem(args.source, problem_id, format=args.format)
    if not path.is_file():
        raise LoaderError(f"{path}: no such program file")
    program = read_text_file(path, "program")
    tests = problem_tests(problem, args.group or ())
    options = ExecutionOptions(
        repeats=args.repeats, timing=args.timing, stop_at_first_failure=args.stop_at_first_failure
    )
    request = problem_request(
        problem, program, tests, options, path.name, language=language, build=build
    )
    config = sandbox_config(args, strict=not args.unsafe_degraded)
    with open_executor_from_args(args, default_workers=1, config=config) as executor:
        record = executor.execute(request)
    limits = record.limits or request.limits.resolved()
    console.print(
        f"limits: CPU {limits.cpu_time_s:g} s, wall-clock {limits.wall_time_s:g} s, "
        f"memory {limits.memory_mb} MB",
        highlight=False,
    )
    if record.build is not None and record.build.command:
        cached = " (from the build cache)" if record.build.cached else ""
        line = f"build: {record.build.status}{cached}: {' '.join(record.build.command)}"
        console.print(line, highlight=False, markup=False)
    header, rows = record_table(record, problem, request.options.timing)
    for row, result in zip(rows, record.results, strict=True):
        row[2] = Text(row[2], style="green" if result.passed else "red")
    title = f"{safe_markup(path.name)} ({record.language}) on {safe_markup(problem.id)}"
    print_table(header, rows, title=title, align="lllrrl" if len(header) == 6 else "lllrrrl")
    passed = sum(r.passed for r in record.results)
    console.print(
        f"{passed}/{len(record.results)} passed · isolation: {', '.join(record.isolation)}",
        highlight=False,
    )
    return EXIT_OK if record.all_passed else EXIT_CHECK_FAILED


def counting_line() -> bool:
    """Print whether Valgrind can count instructions here (``--timing instructions`` and
    ``cycles_estimate``), with the install command when it cannot. Counting is optional:
    its absence does not make the sandbox degraded."""
    ok, line = valgrind_status()
    colour = "green" if ok else "yellow"
    console.print(f"[{colour}]instruction counting:[/] {safe_markup(line)}", highlight=False)
    return ok


def cmd_doctor(args: argparse.Namespace) -> int:
    found = probe()
    config = SandboxConfig(strict=False)
    active = set(found.available(config))
    table = Table(title="sandbox protections on this machine", title_justify="left")
    table.add_column("protection")
    table.add_column("active")
    table.add_column("what it means")
    for name, meaning in PROTECTIONS.items():
        table.add_row(name, "[green]yes[/]" if name in active else "[red]no[/]", meaning)
    console.print(table)
    for note in found.notes:
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    counting_line()
    try:
        with LocalExecutor(workers=1, config=config) as executor:
            record = executor.run(
                "print(int(input()) + 1)", [StdioTest(id="smoke", input="41", output="42")]
            )
    except Exception as exc:  # doctor reports every failure instead of raising
        console.print(
            f"[red]smoke test failed:[/] {type(exc).__name__}: {safe_markup(exc)}", highlight=False
        )
        return EXIT_EXECRL_FAILED
    (result,) = record.results
    console.print(
        f"smoke test: {result.status.value} in {result.wall_s * 1000:.1f} ms wall, "
        f"{result.cpu_s * 1000:.1f} ms CPU",
        highlight=False,
    )
    complete = active >= set(PROTECTIONS) - {"pids-cgroup"}
    if not complete:
        console.print("[yellow]the sandbox is degraded here: see the protections marked 'no'[/]")
    return EXIT_OK if result.passed and complete else EXIT_CHECK_FAILED
