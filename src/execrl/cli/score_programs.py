"""``execrl score --programs``: score the given programs under an environment and a reward
(:func:`execrl.rewards.streaming.iter_scored`), one JSONL row per program written as each is
scored; the reference durations measured now (a timing-store campaign beside the results),
stored in the problems, or read from a saved campaign."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from rich.table import Table

from execrl.cli._common import EXIT_EXECRL_FAILED, EXIT_OK, console, require_counting, safe_text
from execrl.cli._executor import jobs, open_executor_from_args, sandbox_config
from execrl.envs.environment import Environment
from execrl.evaluate.programs import answered_problems, read_programs
from execrl.problems.models import Problem, ReferenceLabel
from execrl.results import ResultsFile
from execrl.rewards.compositions import RewardFn
from execrl.rewards.score_config import env_and_reward, with_timing
from execrl.rewards.score_rows import check_resumable, program_key, row_key, score_row
from execrl.rewards.streaming import group_indices, iter_scored
from execrl.sandbox.protocol import Executor
from execrl.timing.measured import (
    latest_measured,
    measure_campaign,
    measured_store,
    read_campaign,
    save_measured,
    with_campaign_durations,
)
from execrl.timing.store import Campaign

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
    problems = answered_problems(args.source, args.format, programs)
    references = args.references or ("measure" if env.config.needs_references else "stored")
    earlier = (
        latest_measured(measured_store(out)) if references == "measure" and args.resume else None
    )
    if earlier is not None:  # score the rest against the durations the rows already in it used
        problems = apply_campaign(problems, earlier, env, str(measured_store(out)))
    elif references not in ("measure", "stored"):
        problems = apply_campaign(problems, read_campaign(references), env, references)
    if references != "measure" or earlier is not None:
        check_reference_units(problems, env)
    table = scores_table(env, reward_fn)
    with ResultsFile(out, key=row_key, resume=args.resume) as results:  # fails now if unwritable
        check_resumable(results.rows, str(results.path), env, reward_fn, references)
        rewards = [row.get("reward") for row in results.rows]
        for row in results.rows:
            add_score_row(table, row)
        todo = [p for p in programs if not results.has(program_key(p.problem_id, p.code, p.name))]
        if todo:
            config = sandbox_config(args)
            with open_executor_from_args(args, workers=jobs(args), config=config) as executor:
                if references == "measure" and earlier is None:
                    problems = measure(problems, env, executor, out)
                elif references == "stored" and env.config.needs_references:
                    warn_unreferenced(problems, env)
                scored = iter_scored(
                    todo,
                    problems,
                    env=env,
                    reward_fn=reward_fn,
                    executor=executor,
                    group_of=group_indices(programs),
                )
                for _, one in scored:
                    row = score_row(one, reward_fn, references)
                    results.write(row)  # flushed: an interruption keeps every finished row
                    add_score_row(table, row)
                    rewards.append(one.reward)
    console.print(table)
    return summarise(rewards, out, resumed=results.resumed)


def apply_campaign(
    problems: dict[str, Problem], campaign: Campaign, env: Environment, where: str
) -> dict[str, Problem]:
    """The problems with the campaign's durations, read under the environment's timing, cap
    and count rate."""
    return with_campaign_durations(
        problems,
        campaign,
        timing=env.timing_for(),
        caps_s={pid: env.cap_for(p) for pid, p in problems.items()},
        per_second=env.config.count_rate,
        where=where,
    )


def measure(
    problems: dict[str, Problem], env: Environment, executor: Executor, out: Path
) -> dict[str, Problem]:
    """Fresh durations for every correct reference on the optimization tests, measured on the
    same machine and executor as the programs (spec §5: compare what ran together), saved as
    a timing-store campaign beside ``out`` so the scores can be reproduced against them."""
    campaign = measure_campaign(list(problems.values()), executor, timing=env.timing_for())
    saved = save_measured(campaign, measured_store(out))
    pairs = {(m.problem_id, m.reference) for m in campaign.measurements}
    console.print(
        f"measured {len(pairs)} reference solutions on the optimization tests of "
        f"{len(problems)} problem(s); durations saved to {saved}",
        highlight=False,
    )
    return apply_campaign(problems, campaign, env, str(saved))


def check_reference_units(problems: dict[str, Problem], env: Environment) -> None:
    """Stored or saved reference durations must be of the environment's timing (seconds for
    cpu and wall, counts for a counted one): a DataError now, before any sandbox starts."""
    if env.config.needs_references:
        for problem in problems.values():
            env.pool(problem)


def warn_unreferenced(problems: dict[str, Problem], env: Environment) -> None:
    for problem in problems.values():
        if not any(r.durations_s for r in problem.references_labelled(ReferenceLabel.CORRECT)):
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
