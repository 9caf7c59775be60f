"""Stages d-f: every role answers, the programs run in the sandbox, failures are repaired, and
the answer is chosen by instance-enhanced self-consistency.

- **solve**: role k's system prompt is its role text followed by the solver prompt
  (:data:`execrl.rewards.solver.SOLVER_SYSTEM_PROMPT`: tags, open-source solvers, ``model.lp``,
  the ``objective:`` line); every program runs in the solver sandbox, giving its status,
  answer and the features of the ``model.lp`` it wrote.
- **repair**: up to ``repair_rounds`` rounds per role. A program that did not run to an answer
  (syntax or runtime error, timeout, no code, no answer line) gets its error back with the
  reflection prompt; a model reported infeasible or unbounded is regenerated with its own
  prompt. The conversation grows by one turn a round; every attempt is kept in the row.
  Runs the sandbox could not judge (inconclusive, solver unavailable) are not retried.
- **label**: each role's last attempt is a sample; ``S(r)`` (spec eq. 2-3, weights
  ``weights``) picks the label, and its consensus score is ``S / (Σw · √n_roles)`` in [0, 1]
  (1: every role agrees on every feature). Below ``min_consensus``: dropped, ``no_consensus``;
  no role answered: dropped, ``no_answer``.
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

from execrl.rewards.solver.consistency import (
    FEATURES,
    instance_enhanced_vote,
    majority_vote,
)
from execrl.rewards.solver.execution import (
    DEFAULT_SOLVER_LIMITS,
    RunStatus,
    SolveFeatures,
    SolverRun,
    run_solver_codes,
)
from execrl.rewards.solver.parsing import parse_response
from execrl.rewards.solver.prompts import SOLVER_SYSTEM_PROMPT
from execrl.synthesis.client import Meter
from execrl.synthesis.context import RunContext, derived, dropped, run_stage
from execrl.synthesis.rows import Row, kept

REPAIRABLE = {
    RunStatus.NO_CODE,
    RunStatus.SYNTAX_ERROR,
    RunStatus.RUNTIME_ERROR,
    RunStatus.TIMEOUT,
    RunStatus.MEMORY_LIMIT,
    RunStatus.OUTPUT_LIMIT,
}
DETAIL_CHARS = 300


def execute(ctx: RunContext, responses: list[str], meter: Meter) -> list[dict[str, Any]]:
    """Run the programs of ``responses`` in the solver sandbox: one attempt record each."""
    codes = [parse_response(text).code for text in responses]
    n = sum(code is not None for code in codes)
    ctx.spending.take_executions(n)
    limits = DEFAULT_SOLVER_LIMITS.model_copy(update={"cpu_time_s": ctx.config.program_timeout_s})
    runs = run_solver_codes(codes, executor=ctx.executor, limits=limits, progress=False)
    meter.executions += n
    meter.sandbox_s += sum(run.wall_s for run in runs)
    return [attempt_record(text, run) for text, run in zip(responses, runs, strict=True)]


def attempt_record(response: str, run: SolverRun) -> dict[str, Any]:
    """What a row keeps of one attempt (no timings: rows are the same on every run)."""
    features = run.features()
    detail = run.detail.strip().splitlines()[-1] if run.detail.strip() else ""
    if run.completed and run.answer is None:
        detail = "the program printed no 'objective: <value>' or 'status: ...' line"
    return {
        "response": response,
        "status": run.status.value,
        "answer": run.answer if run.completed else None,
        "detail": detail[:DETAIL_CHARS],
        "features": {
            "direction": features.direction,
            "n_binary": features.n_binary,
            "n_integer": features.n_integer,
            "n_constraints": features.n_constraints,
            "solver_status": features.status,
        },
    }


def role_messages(system: str, question: str, attempts: list[dict]) -> list[dict[str, str]]:
    """Role k's conversation so far: its first prompt, then each answer and follow-up."""
    messages = [
        {"role": "system", "content": f"{system}\n\n{SOLVER_SYSTEM_PROMPT}"},
        {"role": "user", "content": question},
    ]
    for before, after in pairwise(attempts):
        messages.append({"role": "assistant", "content": before["response"]})
        messages.append({"role": "user", "content": after["followup"]})
    return messages


def run_solve(ctx: RunContext, rows: list[Row]) -> list[Row]:
    roles = ctx.prompts.roles

    def process(row: Row, meter: Meter) -> list[Row]:
        responses = [
            ctx.solver.chat(role_messages(role.text, row["question"], []), meter) for role in roles
        ]
        records = execute(ctx, responses, meter)
        solutions = [
            {"role": role.id, "attempts": [{"followup": None, "kind": "solve", **record}]}
            for role, record in zip(roles, records, strict=True)
        ]
        provenance = dict(row["provenance"])
        provenance["templates"] = {**provenance["templates"], "roles": [r.id for r in roles]}
        provenance["solver_model"] = ctx.solver.settings.model
        return [derived(row, solutions=solutions, provenance=provenance)]

    return kept(run_stage(ctx, "solve", rows, process).rows)


def followup(ctx: RunContext, attempt: dict) -> tuple[str, str] | None:
    """(kind, prompt) for the next attempt after ``attempt``, or None when it needs none."""
    status = RunStatus(attempt["status"])
    if status in REPAIRABLE or (status is RunStatus.COMPLETED and attempt["answer"] is None):
        error = attempt["detail"] or status.value
        return "repair", ctx.prompts.stage["repair"].fill(error=f"{status.value}: {error}")
    if attempt["answer"] in ("infeasible", "unbounded"):
        return "regenerate", ctx.prompts.stage["regenerate"].fill(status=attempt["answer"])
    return None


def run_repair(ctx: RunContext, rows: list[Row]) -> list[Row]:
    system = {role.id: role.text for role in ctx.prompts.roles}
    template_ids = {k: ctx.prompts.stage[k].id for k in ("repair", "regenerate")}

    def process(row: Row, meter: Meter) -> list[Row]:
        solutions = [{"role": s["role"], "attempts": list(s["attempts"])} for s in row["solutions"]]
        for round_ in range(1, ctx.config.repair_rounds + 1):
            todo = [(s, nxt) for s in solutions if (nxt := followup(ctx, s["attempts"][-1]))]
            if not todo:
                break
            responses = []
            for solution, (_, prompt) in todo:
                history = [*solution["attempts"], {"followup": prompt}]
                messages = role_messages(system[solution["role"]], row["question"], history)
                responses.append(ctx.solver.chat(messages, meter))
            for (solution, (kind, prompt)), record in zip(
                todo, execute(ctx, responses, meter), strict=True
            ):
                solution["attempts"].append(
                    {"followup": prompt, "kind": kind, "round": round_, **record}
                )
        provenance = dict(row["provenance"])
        provenance["templates"] = {**provenance["templates"], **template_ids}
        return [derived(row, solutions=solutions, provenance=provenance)]

    return kept(run_stage(ctx, "repair", rows, process).rows)


def final_samples(row: Row) -> list[SolveFeatures]:
    """Each role's last attempt as a self-consistency sample."""
    out = []
    for solution in row["solutions"]:
        last = solution["attempts"][-1]
        f = last["features"]
        out.append(
            SolveFeatures(
                objective=last["answer"],
                direction=f["direction"],
                n_binary=f["n_binary"],
                n_integer=f["n_integer"],
                n_constraints=f["n_constraints"],
                status=f["solver_status"],
            )
        )
    return out


def label_row(ctx: RunContext, row: Row) -> Row:
    """The label of one solved row (kept or dropped), with its scores and agreement."""
    cfg = ctx.config
    samples = final_samples(row)
    weights = dict(zip(FEATURES, cfg.weights, strict=True))
    vote = instance_enhanced_vote(samples, weights=weights, tolerance=cfg.tolerance)
    majority = majority_vote([s.objective for s in samples], tolerance=cfg.tolerance)
    scale = sum(cfg.weights) * math.sqrt(len(samples))
    best = vote.scores[vote.index] if vote.index is not None else None
    consensus = round(best / scale, 6) if best is not None and scale > 0 else None
    answered = [s.objective for s in samples if s.objective is not None]
    reference = row.get("reference_answer")
    info: dict[str, Any] = {
        "label": vote.answer,
        "consensus": consensus,
        "score": best,
        "chosen_role": row["solutions"][vote.index]["role"] if vote.index is not None else None,
        "majority_answer": majority.answer,
        "n_answered": len(answered),
        "n_roles": len(samples),
    }
    if reference is not None:
        agree = sum(cfg.tolerance.matches(a, reference) for a in answered)
        info["reference_votes"] = agree
        info["reference_majority"] = agree * 2 > len(answered)
        info["agrees"] = vote.answer is not None and cfg.tolerance.matches(vote.answer, reference)
    if vote.index is None:
        return dropped(row, "no_answer", "no role's program reported an answer", **info)
    chosen = row["solutions"][vote.index]["attempts"][-1]
    info["response"] = chosen["response"]
    info["features"] = {k: v for k, v in chosen["features"].items() if k != "solver_status"}
    if consensus is None or consensus < cfg.min_consensus:
        detail = f"consensus {consensus} < {cfg.min_consensus:g} (S = {best:.3f})"
        return dropped(row, "no_consensus", detail, **info)
    votes = sum(cfg.tolerance.matches(a, vote.answer) for a in answered)
    info["answer_votes"] = votes
    if votes < 2 or votes * 2 <= len(answered):
        detail = (
            f"the chosen objective is given by {votes} of {len(answered)} roles that answered "
            "(a label needs a strict majority of them, at least two)"
        )
        return dropped(row, "no_consensus", detail, **info)
    return derived(row, **info)


def run_label(ctx: RunContext, rows: list[Row]) -> list[Row]:
    return kept(run_stage(ctx, "label", rows, lambda row, meter: [label_row(ctx, row)]).rows)
