"""``execrl score``: the main job, and rewards for any programs under any environment.

Without ``--programs`` it scores the problem set's correct and incorrect references and
prints, per problem, whether the suite accepts every correct one, catches every incorrect one,
and how far apart the correct references' speeds are (the ``make demo`` job).

With ``--programs`` it scores the given programs (.py files, folders of them, or a JSONL of
model completions) under an environment and a reward (``execrl.rewards.score_batch``): one
row per program, with the reward and every signal of its Outcome, goes to a JSONL file as it
is scored. Exit codes: 0 scored, 2 bad input or an inconclusive execution (the sandbox failed,
not the program).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml
from rich.markup import escape
from rich.table import Table

from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_EXECRL_FAILED,
    EXIT_OK,
    add_count_rate_argument,
    add_executor_argument,
    add_jobs_argument,
    add_sandbox_arguments,
    add_source_arguments,
    add_timing_argument,
    console,
    executor_spec,
    fmt_ms,
    jobs,
    open_executor_from_args,
    read_text_file,
    require_counting,
    safe_text,
    sandbox_config,
)
from execrl.datagen.verify import ProblemReport, ReferenceReport, verify_problem
from execrl.envs.environment import Environment
from execrl.envs.presets import PRESETS, describe_presets, environment, load_yaml
from execrl.errors import ConfigError, ExecrlError, LoaderError, OutputError, UsageError
from execrl.problems.io import BUNDLED, load_problem, load_problems, select_problems
from execrl.problems.models import Problem, ReferenceLabel
from execrl.results import ResultsFile
from execrl.rewards import REWARDS, Scored, extract_code, reward
from execrl.rewards.compositions import RewardFn
from execrl.sandbox.limits import is_counted
from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import ExecutionRecord, program_sha256
from execrl.timing import measure_reference_durations

DEFAULT_ENV = "mc"
DEFAULT_REWARD = "collapsed"
CODE_FIELDS = ("completion", "program", "code")
"""JSONL fields that hold a program, in order of preference; only ``completion`` goes through
``extract_code`` (the others are programs already)."""


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "score",
        help="score programs under an environment (default: every reference solution)",
        description="Without --programs: run every correct and incorrect reference of the "
        "problem set on every test and summarise (the main job). With --programs: score those "
        "programs under --env and --reward and write one row per program to a JSONL file.",
    )
    add_source_arguments(p)
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids (repeatable)")
    p.add_argument(
        "--programs",
        action="append",
        type=Path,
        metavar="PATH",
        help="a .py file, a folder of .py files (both need exactly one --id), or a .jsonl[.gz] "
        "of rows with problem_id and completion (or program/code); repeatable",
    )
    p.add_argument(
        "--env",
        metavar="SPEC",
        help=f"environment: a preset such as 'qp(p=0.3)' or a YAML file (default: {DEFAULT_ENV})",
    )
    p.add_argument(
        "--reward",
        metavar="SPEC",
        help="reward composition, such as 'collapsed(graded, map=linear)' "
        f"(default: {DEFAULT_REWARD})",
    )
    p.add_argument(
        "--config", type=Path, metavar="FILE", help="a YAML file with env: and/or reward: keys"
    )
    p.add_argument(
        "--references",
        metavar="measure|stored|FILE",
        help="reference durations: measure them now on the optimization tests (saved next to "
        "the output as <out>.references.json), use those stored in the problems, or reuse a "
        "saved .references.json to score against exactly the same durations (default: "
        "measure when the environment ranks, filters or limits by them)",
    )
    add_timing_argument(
        p,
        default=None,
        help="the duration the environment ranks and limits by (default: the environment's "
        "own, else cpu); instructions and cycles_estimate count under Valgrind",
    )
    add_count_rate_argument(p)
    p.add_argument(
        "--list-presets", action="store_true", help="list the environments and rewards, then exit"
    )
    add_jobs_argument(p)
    add_executor_argument(p)
    p.add_argument(
        "--out",
        type=Path,
        help="results file, one JSON row per program (or reference) written as each finishes "
        "(default: runs/score-<time>.jsonl)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows already in --out and score only what they lack (after an "
        "interrupted run); needs the same --env, --reward and --references",
    )
    add_sandbox_arguments(p)
    p.set_defaults(handler=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    if args.list_presets:
        return list_presets()
    jobs(args)  # (checked before anything is read or started)
    executor_spec(args)
    if args.resume and args.out is None:
        raise UsageError("--resume continues the results file given with --out; pass --out")
    if args.programs:
        return score_programs(args)
    for flag in ("env", "reward", "config", "references", "timing", "count_rate"):
        if getattr(args, flag) is not None:
            raise UsageError(
                f"--{flag.replace('_', '-')} applies to programs given with --programs; "
                "without them `execrl score` checks the problem set's own references"
            )
    return verify_references(args)


def default_out(out: Path | None) -> Path:
    return out or Path("runs") / f"score-{datetime.now(UTC):%Y%m%d-%H%M%S}.jsonl"


# --------------------------------------------------------------------------------------------
# --list-presets


def list_presets() -> int:
    for title, registry in (("environments (--env)", PRESETS), ("rewards (--reward)", REWARDS)):
        table = Table(title=title, title_justify="left")
        for col in ("name", "parameters", "what it is"):
            table.add_column(col)
        for name, params, doc in describe_presets(registry):
            table.add_row(name, escape(params), escape(plain(doc)))
        console.print(table)
    console.print(
        "Call one with parameters, e.g. --env 'qp(p=0.5)' --reward 'collapsed(graded, "
        "map=linear)'; see docs/environments.md",
        highlight=False,
    )
    return EXIT_OK


def plain(doc: str) -> str:
    """A docstring's reST markup as plain text: ````limit```` → ``limit``."""
    return re.sub(r"``(.+?)``", r"\1", doc)


# --------------------------------------------------------------------------------------------
# Scoring programs


@dataclass(frozen=True)
class Program:
    """A program to score, the problem it answers, and the name it is reported under."""

    problem_id: str
    name: str
    code: str


def score_programs(args: argparse.Namespace) -> int:
    # Everything a user can get wrong is checked before a sandbox starts.
    env, reward_fn = resolve_env_and_reward(args.env, args.reward, args.config)
    env = with_timing(env, args.timing, args.count_rate)
    require_counting(env.config.timing)
    programs = read_programs(args.programs, args.ids)
    problems = load_needed(args.source, args.format, programs)
    references = args.references or ("measure" if env.config.needs_references else "stored")
    out = default_out(args.out)
    measured = references_path(out)
    reuse_measured = references == "measure" and args.resume and measured.is_file()
    if reuse_measured:  # score the rest against the durations the rows already in it used
        problems = apply_saved_durations(problems, measured, env)
    elif references not in ("measure", "stored"):
        problems = apply_saved_durations(problems, Path(references), env)
    if references != "measure" or reuse_measured:
        check_reference_units(problems, env)
    table = scores_table(env, reward_fn)
    with ResultsFile(out, key=row_key, resume=args.resume) as results:  # fails now if unwritable
        check_resumable(results, env, reward_fn, references)
        rewards = [row.get("reward") for row in results.rows]
        for row in results.rows:
            add_score_row(table, row)
        todo = [p for p in programs if not results.has(program_key(p))]
        if todo:
            with open_executor_from_args(
                args, workers=jobs(args), config=sandbox_config(args)
            ) as executor:
                if references == "measure" and not reuse_measured:
                    problems = measure_references(problems, env, executor, out)
                elif references == "stored" and env.config.needs_references:
                    warn_unreferenced(problems, env)
                group_of = group_indices(programs)
                for scored in iter_scored(todo, problems, env, reward_fn, executor, group_of):
                    row = score_row(scored, reward_fn, references)
                    results.write(row)  # flushed: an interruption keeps every finished row
                    add_score_row(table, row)
                    rewards.append(scored.reward)
    console.print(table)
    return summarise(rewards, out, resumed=results.resumed)


SCORE_LEGEND = (
    "c_cor: all correctness tests pass · c̃: c_cor, no optimization test failed · g: the "
    "optimization gate (1 = open) · q: graded quality in [0, 1], 0 best (the ranked percentile "
    "under qp/qar, else the share of timeouts) · timeouts: optimization tests over their limit "
    "· ranked: optimization tests with usable references"
)
"""The caption under the scores table: what each column means."""


def row_key(row: dict) -> tuple:
    """What makes a scored row unique: problem, program text and the name it came under."""
    return (row.get("problem_id"), row.get("program_sha256"), row.get("program_name"))


def program_key(program: Program) -> tuple:
    return (program.problem_id, program_sha256(program.code), program.name)


def with_timing(env: Environment, timing: str | None, count_rate: float | None) -> Environment:
    """The environment with --timing and --count-rate, where given, over its own settings."""
    update = {k: v for k, v in (("timing", timing), ("count_rate", count_rate)) if v is not None}
    return Environment(env.config.model_copy(update=update)) if update else env


def check_reference_units(problems: dict[str, Problem], env: Environment) -> None:
    """Stored or saved reference durations must be of the environment's timing (seconds for
    cpu and wall, counts for a counted one): a DataError now, before any sandbox starts."""
    if env.config.needs_references:
        for problem in problems.values():
            env.pool(problem)


def check_resumable(
    results: ResultsFile, env: Environment, reward_fn: RewardFn, references: str
) -> None:
    """Rows kept by --resume must have been scored the way the rest will be."""
    if not results.rows:
        return
    first = results.rows[0]
    before = (first.get("environment"), first.get("reward_name"), first.get("references"))
    now = (env.name, reward_fn.name, references)
    timing = env.timing_for()
    if first.get("timing", "cpu") != timing:
        raise UsageError(
            f"{results.path}: its {results.resumed} rows were timed by "
            f"{first.get('timing', 'cpu')}, not {timing}; resume with the same --timing, or "
            "choose another --out"
        )
    if before != now:
        raise UsageError(
            f"{results.path}: its {results.resumed} rows were scored under environment "
            f"{before[0]}, reward {before[1]}, references {before[2]}, not {now[0]}, {now[1]}, "
            f"{now[2]}; resume with the same --env/--reward/--references, or choose another --out"
        )


def group_indices(programs: list[Program]) -> dict[str, int]:
    """Each problem's group index (the order of first appearance, as a rollout batch has
    them; the multitask composition alternates on it), the same when a run is resumed."""
    return {pid: i for i, pid in enumerate(dict.fromkeys(p.problem_id for p in programs))}


def iter_scored(
    programs: list[Program],
    problems: dict[str, Problem],
    env: Environment,
    reward_fn: RewardFn,
    executor: Executor,
    group_of: dict[str, int],
) -> Iterator[Scored]:
    """``score_batch`` one program at a time: every program runs on the pool at once, and
    each Scored is yielded as soon as its record is back (in order, grouped by problem)."""
    programs = sorted(programs, key=lambda p: group_of[p.problem_id])  # (stable)
    plans = {pid: env.plan(problems[pid]) for pid in dict.fromkeys(p.problem_id for p in programs)}
    requests = [
        env.request(problems[p.problem_id], p.code, plan=plans[p.problem_id], program_name=p.name)
        for p in programs
    ]
    records = executor.run_batch(requests, progress=True, description="scoring")
    for program, record in zip(programs, records, strict=True):
        problem = problems[program.problem_id]
        outcome = env.outcome(problem, record, plan=plans[problem.id])
        value = reward_fn(outcome, group_index=group_of[problem.id])
        yield Scored(value, outcome, record, program.code)


def resolve_env_and_reward(
    env_spec: str | None, reward_spec: str | None, config: Path | None
) -> tuple[Environment, RewardFn]:
    """--env / --reward, falling back on the --config file's env: / reward: keys, then on the
    defaults."""
    data = load_yaml(config) if config is not None else {}
    where = f"{config}: " if config is not None else ""
    if config is not None and not {"env", "reward"} & data.keys():
        raise ConfigError(f"{where}no 'env:' or 'reward:' key (found: {', '.join(data)})")
    env_value = env_spec if env_spec is not None else data.get("env", DEFAULT_ENV)
    reward_value = reward_spec if reward_spec is not None else data.get("reward", DEFAULT_REWARD)
    if not isinstance(reward_value, str | dict):
        raise ConfigError(f"{where}reward: expected a name or a mapping, got {reward_value!r}")
    env = _build("environment", environment, env_value, "" if env_spec else where)
    return env, _build("reward", reward, reward_value, "" if reward_spec else where)


def _build(what: str, build, spec, where: str = ""):
    """``build(spec)``, its errors prefixed with the config file the spec came from. The preset
    language raises ConfigError for what it checks; a malformed value can still escape it as
    another error."""
    try:
        return build(spec)
    except ExecrlError as exc:
        if not where:
            raise
        raise ConfigError(f"{where}{exc}") from None
    except (ValueError, TypeError, yaml.YAMLError) as exc:
        detail = " ".join(str(exc).split())
        raise ConfigError(f"{where}cannot build {what} {spec!r}: {detail}") from None


def read_programs(paths: list[Path], ids: list[str] | None) -> list[Program]:
    programs: list[Program] = []
    for path in paths:
        if not path.exists():
            raise LoaderError(f"{path}: no such file or folder")
        if path.is_dir():
            files = sorted(path.glob("*.py"))
            if not files:
                raise LoaderError(f"{path}: no .py files in this folder")
            pid = _single_id(ids, path)
            programs += [Program(pid, f"{path.name}/{f.name}", _read_text(f)) for f in files]
        elif path.name.endswith((".jsonl", ".jsonl.gz")):
            programs += [p for p in read_completions(path) if not ids or p.problem_id in ids]
        elif path.suffix == ".py":
            programs.append(Program(_single_id(ids, path), path.name, _read_text(path)))
        else:
            raise LoaderError(f"{path}: expected a .py file, a folder of them, or a .jsonl file")
    if not programs:
        only = f" for --id {', '.join(ids)}" if ids else ""
        raise LoaderError(f"no programs to score in {', '.join(map(str, paths))}{only}")
    return programs


def _single_id(ids: list[str] | None, path: Path) -> str:
    if not ids or len(ids) != 1:
        raise LoaderError(
            f"{path}: a .py program does not say which problem it solves; pass exactly one "
            f"--id (got {len(ids or [])})"
        )
    return ids[0]


def _read_text(path: Path) -> str:
    return read_text_file(path, "program")


def read_completions(path: Path) -> list[Program]:
    """Rows ``{"problem_id": ..., "completion" | "program" | "code": ..., "name"?: ...}``."""
    try:
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            lines = f.readlines()
    except FileNotFoundError:
        raise LoaderError(f"{path}: no such file or folder") from None
    except UnicodeDecodeError as exc:
        raise LoaderError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (OSError, EOFError) as exc:  # (EOFError: a .gz cut short)
        raise LoaderError(f"{path}: cannot read it ({exc})") from None
    programs = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            programs.append(_completion_row(line, f"{path.name}:{number}"))
    return programs


def _completion_row(line: str, where: str) -> Program:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LoaderError(f"{where}: not valid JSON ({exc.msg})") from None
    need = "each row needs a 'problem_id' and a 'completion' (or 'program' / 'code') string"
    if not isinstance(row, dict) or not isinstance(row.get("problem_id"), str):
        raise LoaderError(f"{where}: no 'problem_id'; {need}")
    field = next((k for k in CODE_FIELDS if isinstance(row.get(k), str)), None)
    if field is None:
        raise LoaderError(f"{where}: no 'completion'; {need}")
    code = extract_code(row[field]) if field == "completion" else row[field]
    name = str(row.get("name") or row.get("program_name") or where)
    return Program(row["problem_id"], name, code)


def load_needed(source: str, fmt: str | None, programs: list[Program]) -> dict[str, Problem]:
    """The problems the programs answer; for folder sources only their folders are read."""
    first_use = {}
    for program in programs:
        first_use.setdefault(program.problem_id, program.name)
    if fmt is None and (source == BUNDLED or Path(source).is_dir()):
        problems = {}
        for pid, where in first_use.items():
            try:
                problems[pid] = load_problem(source, pid)
            except LoaderError as exc:
                raise LoaderError(f"{where}: {exc}") from None
        return problems
    everything = load_problems(source, format=fmt)
    known = {p.id for p in everything}
    for pid, where in first_use.items():
        if pid not in known:
            raise LoaderError(
                f"{where}: no problem with id {pid!r} in {source}; "
                f"`execrl problems list {source}{f' --format {fmt}' if fmt else ''}` shows the ids"
            )
    return {p.id: p for p in select_problems(everything, list(first_use))}


def measure_references(
    problems: dict[str, Problem], env: Environment, executor: Executor, out: Path
) -> dict[str, Problem]:
    """Fresh durations for every correct reference on the optimization tests, measured on the
    same machine and executor as the programs (spec §5: compare what ran together), saved
    next to ``out`` so the scores can be reproduced against the same durations."""
    cfg = env.config
    timing = env.timing_for()
    measured, records = measure_reference_durations(
        list(problems.values()),
        executor,
        cap_s=cfg.cap_s,
        timing=timing,
        progress=True,
        per_second=cfg.count_rate,  # a timeout stored at the cap the environment charges
    )
    saved = references_path(out)
    write_text(
        saved,
        json.dumps(
            {
                "format": DURATIONS_FORMAT,
                "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "machine": MachineFingerprint.current().model_dump(),
                "timing": timing,
                "count_rate": cfg.count_rate,
                "isolation": executor.isolation,
                "durations_s": {
                    p.id: {
                        r.name: r.durations_s for r in p.references_labelled(ReferenceLabel.CORRECT)
                    }
                    for p in measured
                },
            },
            indent=1,
        )
        + "\n",
    )
    console.print(
        f"measured {len(records)} reference solutions on the optimization tests of "
        f"{len(measured)} problem(s); durations saved to {saved}",
        highlight=False,
    )
    return {p.id: p for p in measured}


DURATIONS_FORMAT = "execrl-reference-durations/1"


def write_text(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({exc.strerror or exc})") from None


def references_path(out: Path) -> Path:
    """``runs/score-x.jsonl`` → ``runs/score-x.references.json``."""
    name = out.name.removesuffix(".gz").removesuffix(".jsonl")
    return out.with_name(f"{name}.references.json")


def _is_nested_durations(value) -> bool:
    def is_map(x) -> bool:
        return isinstance(x, dict) and all(isinstance(k, str) for k in x)

    def is_seconds(x) -> bool:
        return isinstance(x, int | float) and not isinstance(x, bool)

    return is_map(value) and all(
        is_map(refs)
        and all(is_map(tests) and all(map(is_seconds, tests.values())) for tests in refs.values())
        for refs in value.values()
    )


def apply_saved_durations(
    problems: dict[str, Problem], path: Path, env: Environment | None = None
) -> dict[str, Problem]:
    """The problems with their correct references' durations replaced by those saved by an
    earlier ``--references measure`` run (measured by ``env``'s timing, when one is given)."""
    if not path.is_file():
        raise LoaderError(
            f"--references {path}: expected 'measure', 'stored' or a saved "
            ".references.json file (no such file)"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LoaderError(f"{path}: not a saved reference-durations file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != DURATIONS_FORMAT:
        raise LoaderError(
            f"{path}: not a saved reference-durations file (format != {DURATIONS_FORMAT})"
        )
    saved_timing = data.get("timing", "cpu")
    if env is not None and saved_timing != env.timing_for():
        raise LoaderError(
            f"{path}: these durations were measured by {saved_timing}, but the environment "
            f"is timed by {env.timing_for()}; score with --timing {saved_timing}, or measure "
            "the references again (--references measure)"
        )
    if env is not None and is_counted(saved_timing):
        check_saved_rate(path, data.get("count_rate"), env.config.count_rate)
    saved = data.get("durations_s")
    if not _is_nested_durations(saved):
        raise LoaderError(f"{path}: durations_s must map problem → reference → test → seconds")
    missing = sorted(set(problems) - set(saved))
    if missing:
        raise LoaderError(f"{path}: no saved durations for {', '.join(missing)}")
    updated = {}
    for pid, problem in problems.items():
        refs = [
            ref.model_copy(update={"durations_s": saved[pid][ref.name]})
            if ref.name in saved[pid]
            else ref
            for ref in problem.references
        ]
        updated[pid] = problem.model_copy(update={"references": refs})
    return updated


def check_saved_rate(path: Path, saved: float | None, rate: float | None) -> None:
    """Counted durations saved with their timeouts at the cap converted at one count rate
    are only comparable under the same rate."""
    if saved != rate:
        shown = {None: "the default"}
        raise LoaderError(
            f"{path}: these counts stored timeouts at the cap converted at "
            f"{shown.get(saved, saved)} counts per second, not {shown.get(rate, rate)}; score "
            "with the same --count-rate, or measure the references again"
        )


def warn_unreferenced(problems: dict[str, Problem], env: Environment) -> None:
    for problem in problems.values():
        if not any(r.durations_s for r in problem.references_labelled(ReferenceLabel.CORRECT)):
            console.print(
                f"[yellow]note:[/] {problem.id} has no stored reference durations, so "
                f"{env.name} has nothing to rank or limit against there "
                "(use --references measure)",
                highlight=False,
            )


def score_row(scored: Scored, reward_fn: RewardFn, references: str) -> dict:
    """The JSONL row: reward and signals, plus the record so the row can be rescored later."""
    return {
        **scored.to_dict(),
        "reward_name": reward_fn.name,
        "references": references,
        "record": scored.record.model_dump(mode="json"),
    }


def scores_table(env: Environment, reward_fn: RewardFn) -> Table:
    timing = env.timing_for()
    timed = f", timed by {timing}" if timing != "cpu" else ""
    table = Table(
        title=f"environment {env.name}, reward {reward_fn.name}{timed}",
        title_justify="left",
        caption=SCORE_LEGEND,
        caption_justify="left",
    )
    for col in ("problem", "program", "reward", "c_cor", "c̃", "g", "q", "timeouts", "ranked"):
        table.add_column(col, justify="left" if col in ("problem", "program") else "right")
    return table


def add_score_row(table: Table, row: dict) -> None:
    reward_value = row.get("reward")
    if reward_value is None:
        value = "[yellow]inconclusive[/]"
    else:
        colour = "green" if reward_value > 0 else "red"
        value = f"[{colour}]{reward_value:+.2f}[/]"
    table.add_row(
        safe_text(row.get("problem_id")),
        safe_text(row.get("program_name")),
        value,
        str(row.get("c_cor")),
        str(row.get("c_strict")),
        str(row.get("g")),
        f"{row.get('q', 0.0):.2f}",
        f"{row.get('timeout_fraction', 0.0):.0%}",
        str(row.get("ranked_tests")),
    )


def summarise(rewards: list[float | None], out: Path, *, resumed: int = 0) -> int:
    values = [r for r in rewards if r is not None]
    mean = f"{statistics.fmean(values):+.3f}" if values else "—"
    positive = sum(r > 0 for r in values)
    earlier = f" ({resumed} scored by an earlier run)" if resumed else ""
    console.print(
        f"{len(rewards)} programs{earlier} · mean reward {mean} · reward > 0: "
        f"{positive}/{len(rewards)} ({positive / max(1, len(rewards)):.0%}) · rows in {out}",
        highlight=False,
    )
    inconclusive = len(rewards) - len(values)
    if inconclusive:
        console.print(
            f"[yellow]{inconclusive} inconclusive execution(s)[/]: the sandbox failed, not the "
            "program; no reward was derived (reward null in the file). Rerun them.",
        )
        return EXIT_EXECRL_FAILED
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# The default job: the problem set's own references


def verify_references(args: argparse.Namespace) -> int:
    problems = select_problems(load_problems(args.source, format=args.format), args.ids)
    out = default_out(args.out)
    table = summary_table()
    reports = []
    with (
        ResultsFile(
            out, key=reference_key, resume=args.resume
        ) as results,  # fails now if unwritable
        open_executor_from_args(args, workers=jobs(args), config=sandbox_config(args)) as executor,
    ):
        if any(set(REFERENCE_ROW) - row.keys() for row in results.rows):
            raise UsageError(
                f"{out}: its rows are not reference checks (written by `execrl score` without "
                "--programs); resume with the command that wrote it, or choose another --out"
            )
        for i, problem in enumerate(problems, start=1):
            report = verify_resumable(problem, results, executor)
            reports.append(report)
            add_summary_row(table, report)
            console.print(
                f"[{i}/{len(problems)}] {problem.id}: {'ok' if report.ok else 'FAILED'}",
                highlight=False,
            )
    console.print(table)
    failed = [r.problem.id for r in reports if not r.ok]
    earlier = f" ({results.resumed} rows from an earlier run)" if results.resumed else ""
    console.print(
        f"{len(reports) - len(failed)}/{len(reports)} problems as expected; records in "
        f"{out}{earlier}"
    )
    if failed:
        console.print(
            f"[red]not as expected:[/] {', '.join(failed)} "
            "(see `execrl problems check --id ID` for details)"
        )
    return EXIT_CHECK_FAILED if failed else EXIT_OK


REFERENCE_ROW = ("problem_id", "reference", "label", "as_expected", "record")
"""The fields of a row of the reference check."""


def reference_key(row: dict) -> tuple:
    return (row.get("problem_id"), row.get("reference"))


def verify_resumable(problem: Problem, results: ResultsFile, executor: Executor) -> ProblemReport:
    """The problem's report: references already in ``results`` (an earlier run) are read
    back, the others run now and are written as each finishes."""
    groups = {t.id: t.group for t in problem.tests}
    kept = {row["reference"]: row for row in results.rows if row["problem_id"] == problem.id}
    done = {
        name: ReferenceReport(ref, ExecutionRecord.model_validate(kept[name]["record"]), groups)
        for ref in problem.references
        if (name := ref.name) in kept
    }
    for ref in problem.references:
        if ref.name not in done:  # one reference at a time: each row is written as it finishes
            (report,) = verify_problem(
                problem, executor=executor, show_progress=True, references=[ref]
            ).references
            results.write(reference_row(problem.id, report))
            done[ref.name] = report
    return ProblemReport(problem, [done[r.name] for r in problem.references])


def summary_table() -> Table:
    table = Table(title="reference solutions on their problems", title_justify="left")
    for col, justify in (
        ("problem", "left"),
        ("difficulty", "left"),
        ("T_C", "right"),
        ("T_O", "right"),
        ("correct pass", "right"),
        ("incorrect caught", "right"),
        ("fastest ms", "right"),
        ("slowest ms", "right"),
        ("spread", "right"),
    ):
        table.add_column(col, justify=justify)
    return table


def add_summary_row(table: Table, report: ProblemReport) -> None:
    problem = report.problem
    correct = report.labelled(ReferenceLabel.CORRECT)
    incorrect = report.labelled(ReferenceLabel.INCORRECT)
    speeds = [s for r in correct if (s := r.mean_cpu_s()) is not None]
    fastest, slowest = (min(speeds), max(speeds)) if speeds else (None, None)

    def ratio(good: int, total: int) -> str:
        colour = "green" if good == total else "red"
        return f"[{colour}]{good}/{total}[/]"

    table.add_row(
        safe_text(problem.id),
        problem.difficulty,
        str(len(problem.correctness_tests)),
        str(len(problem.optimization_tests)),
        ratio(sum(r.as_expected for r in correct), len(correct)),
        ratio(sum(r.as_expected for r in incorrect), len(incorrect)),
        fmt_ms(fastest),
        fmt_ms(slowest),
        f"{slowest / fastest:.1f}×" if fastest and slowest else "—",
    )


def reference_row(problem_id: str, report: ReferenceReport) -> dict:
    return {
        "problem_id": problem_id,
        "reference": report.reference.name,
        "label": report.label.value,
        "as_expected": report.as_expected,
        "record": report.record.model_dump(mode="json"),
    }
