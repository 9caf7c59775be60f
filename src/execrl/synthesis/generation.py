"""Stages a-c: generate new problems from seeds and scenarios, augment them, judge them.

- **generate**: problem i combines a seed and a scenario, each drawn without replacement
  from a shuffled list (reshuffled when used up, so every scenario is used once before any is
  used twice; ``random.Random(seed)``, so the plan is the same on every run) and asks for a
  structurally similar new problem; the reply's ``<problem>…</problem>`` (or the whole reply
  without tags) is the question. Empty: dropped, ``no_problem``.
- **augment**: each generated problem, and one variant per augmentation template.
- **judge**: the judge's JSON scores; a row is kept when relevance and consistency are both
  at least ``judge_threshold`` (``judge_rejected`` with the judge's reason otherwise;
  ``judge_unreadable`` when the reply holds no such JSON).
"""

from __future__ import annotations

import json
import random
import re

from execrl.problems.optim import OptimProblem
from execrl.synthesis.client import Meter
from execrl.synthesis.context import RunContext, derived, dropped, run_stage
from execrl.synthesis.rows import Row, kept

PROBLEM = re.compile(r"<problem>(.*?)(?:</problem>|$)", re.S | re.I)
JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.S)


def generation_plan(ctx: RunContext) -> list[Row]:
    """The generate stage's inputs: the seeds (when included) and the planned problems."""
    rng = random.Random(ctx.config.seed)
    rows: list[Row] = []
    if ctx.config.include_seeds:
        rows += [_seed_row(seed) for seed in ctx.seeds]
    seeds = _cycle(rng, [s.id for s in ctx.seeds], ctx.config.n_generate)
    scenarios = _cycle(rng, [s.id for s in ctx.prompts.scenarios], ctx.config.n_generate)
    for i, (seed, scenario) in enumerate(zip(seeds, scenarios, strict=True)):
        rows.append({"id": f"g{i:04d}", "seed_id": seed, "scenario": scenario})
    return rows


def _cycle(rng: random.Random, ids: list[str], n: int) -> list[str]:
    """``n`` ids drawn without replacement, reshuffled whenever all have been drawn."""
    out: list[str] = []
    while len(out) < n:
        batch = list(ids)
        rng.shuffle(batch)
        out += batch
    return out[:n]


def _seed_row(seed: OptimProblem) -> Row:
    return {
        "id": f"seed-{seed.id}",
        "seed_id": seed.id,
        "scenario": None,
        "question": seed.question,
        "reference_answer": seed.answer,
    }


def run_generate(ctx: RunContext) -> list[Row]:
    seeds = {s.id: s for s in ctx.seeds}
    scenarios = {s.id: s for s in ctx.prompts.scenarios}
    template = ctx.prompts.stage["generate"]
    model = ctx.config.endpoint.model

    def process(plan: Row, meter: Meter) -> list[Row]:
        provenance = {
            "seed_id": plan["seed_id"],
            "scenario": plan["scenario"],
            "templates": {},
            "model": None,
            "parent": plan["seed_id"],
        }
        if "question" in plan:  # a seed itself
            row = derived(plan, provenance={**provenance, "templates": {"generate": "seed"}})
            return [row]
        seed, scenario = seeds[plan["seed_id"]], scenarios[plan["scenario"]]
        prompt = template.fill(
            seed=seed.question.strip(), scenario=scenario.text, kind=seed.kind or "the same kind"
        )
        reply = ctx.client.chat([{"role": "user", "content": prompt}], meter)
        provenance.update(templates={"generate": template.id}, model=model)
        row = derived(plan, question=problem_text(reply), reference_answer=None)
        row["provenance"] = provenance
        if not row["question"]:
            return [dropped(row, "no_problem", "the generator's reply holds no problem text")]
        return [row]

    return kept(run_stage(ctx, "generate", generation_plan(ctx), process).rows)


def run_augment(ctx: RunContext, generated: list[Row]) -> list[Row]:
    model = ctx.config.endpoint.model

    def process(row: Row, meter: Meter) -> list[Row]:
        out = []
        if ctx.config.keep_original or row["id"].startswith("seed-"):
            out.append(derived(row))
        if row["id"].startswith("seed-"):
            return out  # seeds measure the labels; they are not varied
        for name in ctx.config.augment:
            template = ctx.prompts.augment[name]
            prompt = template.fill(question=row["question"])
            reply = ctx.client.chat([{"role": "user", "content": prompt}], meter)
            provenance = dict(row["provenance"])
            provenance.update(
                templates={**provenance["templates"], "augment": template.id},
                model=model,
                parent=row["id"],
            )
            variant = derived(
                row, id=f"{row['id']}-{name}", question=problem_text(reply), provenance=provenance
            )
            if not variant["question"]:
                variant = dropped(variant, "no_problem", "the augmenter's reply holds no problem")
            out.append(variant)
        return out

    return kept(run_stage(ctx, "augment", generated, process).rows)


def run_judge(ctx: RunContext, rows: list[Row]) -> list[Row]:
    template = ctx.prompts.stage["judge"]
    threshold = ctx.config.judge_threshold

    def process(row: Row, meter: Meter) -> list[Row]:
        reply = ctx.judge.chat(
            [{"role": "user", "content": template.fill(question=row["question"])}], meter
        )
        provenance = dict(row["provenance"])
        provenance["templates"] = {**provenance["templates"], "judge": template.id}
        provenance["judge_model"] = ctx.judge.settings.model
        verdict = judge_verdict(reply)
        base = derived(row, provenance=provenance, judge=verdict)
        if verdict is None:
            return [dropped(base, "judge_unreadable", f"the judge's reply: {reply[:120]!r}")]
        low = [k for k in ("relevance", "consistency") if verdict[k] < threshold]
        if low:
            scores = ", ".join(f"{k} {verdict[k]:g}" for k in low)
            detail = f"{scores} < {threshold:g}: {verdict['reason']}"
            return [dropped(base, "judge_rejected", detail)]
        return [base]

    return kept(run_stage(ctx, "judge", rows, process).rows)


def problem_text(reply: str) -> str:
    """The problem in a generator's reply: between ``<problem>`` tags, else the reply."""
    match = PROBLEM.search(reply)
    return (match.group(1) if match else reply).strip()


def judge_verdict(reply: str) -> dict | None:
    """``{"relevance", "consistency", "reason"}`` from the judge's reply (None when absent)."""
    for match in JSON_OBJECT.finditer(reply):
        try:
            data = json.loads(match.group(0))
        except ValueError:
            continue
        try:
            scores = {k: float(data[k]) for k in ("relevance", "consistency")}
        except (KeyError, TypeError, ValueError):
            continue
        return {**scores, "reason": str(data.get("reason", ""))}
    return None
