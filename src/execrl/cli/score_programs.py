"""``execrl score --programs``: score the given programs under an environment and a reward,
one JSONL row per program written as each is scored; the reference durations measured now (a
timing-store campaign beside the results), stored in the problems, or read from a saved
campaign. The work: :func:`execrl.rewards.program_scores.score_programs`."""

from __future__ import annotations

import argparse
import statistics
from dataclasses import replace
from pathlib import Path

from rich.table import Table

from execrl.cli._common import EXIT_EXECRL_FAILED, EXIT_OK, console, require_counting, safe_text
from execrl.cli._executor import jobs, open_executor_from_args, sandbox_config
from execrl.envs.environment import Environment
from execrl.evaluate.programs import answered_problems, read_programs
from execrl.problems.models import Problem
from execrl.rewards import program_scores
from execrl.rewards.compositions import RewardFn
from execrl.rewards.program_scores import MeasuredReferences
from execrl.rewards.score_config import env_and_reward, with_timing
from execrl.sandbox.languages import language as find_language

SCORE_LEGEND = (
    "c_cor: all correctness tests pass · c̃: c_cor, no optimization test failed · g: the "
    "optimization gate (1 = open) · q: graded quality in [0, 1], 0 best (the ranked percentile "
    "under qp/qar, else the share of timeouts) · timeouts: optimization tests over their limit "
    "· ranked: optimization tests with usable references"
)
"""The caption under the scores table: what each column means."""


def score_programs(args: argparse.Namespace, out: Path) -> int:
    # Everything a user can get wrong is checked before a sandbox starts.
    env, reward_fn = env_and_reward(args.env, args.reward, args.config)
    env = with_timing(env, args.timing, args.count_rate)
    require_counting(env.config.timing)
    programs = read_programs(args.programs, args.ids)
    if args.language is not None:
        name = find_language(args.language).name  # (an unknown name: a UsageError, now)
        programs = [replace(p, language=name) for p in programs]
    problems = answered_problems(args.source, args.format, programs)
    scores = program_scores.score_programs(
        programs,
        problems,
        out,
        env=env,
        reward_fn=reward_fn,
        executor=lambda: open_executor_from_args(
            args, workers=jobs(args), config=sandbox_config(args)
        ),
        references=args.references,
        resume=args.resume,
        on_measured=say_measured,
        on_unreferenced=lambda problem: warn_unreferenced(problem, env),
    )
    table = scores_table(env, reward_fn)
    for row in scores.rows:
        add_score_row(table, row)
    console.print(table)
    return summarise(scores.rewards, out, resumed=scores.resumed)


def say_measured(measured: MeasuredReferences) -> None:
    console.print(
        f"measured {measured.references} reference solutions on the optimization tests of "
        f"{measured.problems} problem(s); durations saved to {measured.campaign_file}",
        highlight=False,
    )


def warn_unreferenced(problem: Problem, env: Environment) -> None:
    console.print(
        f"[yellow]note:[/] {problem.id} has no stored reference durations, so "
        f"{env.name} has nothing to rank or limit against there "
        "(use --references measure)",
        highlight=False,
    )


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
