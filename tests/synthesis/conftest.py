"""Shared fixtures: one solver sandbox for the folder, the scripted world of the pipeline
tests (seven generated problems, one for each path through the funnel)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from execrl.problems.optim import load_optim_problems
from execrl.rewards.solver.execution import solver_executor
from execrl.synthesis import EndpointSettings, SynthesisConfig
from tests.synthesis.scripted import program, response

QUESTIONS = {
    "keep": "A bakery named Ovenworks bakes muffins and scones from flour and butter; how "
    "many of each maximise weekly profit? marker-keep",
    "reject": "Hovercraft smugglers move contraband across lunar canals at night; how many "
    "trips maximise loot? marker-reject",
    "repair": "A brewery ferments lager and stout in steel tanks with limited chilling "
    "hours; which volumes maximise margin? marker-repair",
    "regen": "A quarry crushes granite into gravel grades for highway contractors under "
    "crusher capacity; what output maximises revenue? marker-regen",
    "split": "An orchard harvests apples and pears with seasonal pickers and ladders; what "
    "harvest plan maximises income? marker-split",
    "bench": "A telecom operator lays fibre cables between exchanges to connect remote "
    "villages cheaply; which links minimise cost? marker-bench",
    "easy": "A toy maker assembles kites and yo-yos from plastic, string and paint; which "
    "mix maximises contribution? marker-easy",
}
ROLES = ("Role alpha.", "Role beta.", "Role gamma.")


def marker(text: str) -> str:
    return next(name for name in QUESTIONS if f"marker-{name}" in text)


def world_script(body: dict[str, Any]) -> str:
    """Every reply of the scripted world, from the prompt alone."""
    messages = body["messages"]
    last = messages[-1]["content"]
    if body["model"] == "baseline":
        return response(program(100.0 if marker(last) == "easy" else 1.0))
    if last.startswith("Here is an optimisation word problem"):
        return f"<problem>{QUESTIONS[marker(last)]}</problem>"
    if last.startswith("Extend this optimisation problem"):
        question = last.split("\n\n")[1]
        return f"<problem>{question} Each crate holds whole units only.</problem>"
    if last.startswith("You review optimisation word problems"):
        if marker(last) == "reject":
            return '{"relevance": 1, "consistency": 2, "reason": "lunar canals are no business"}'
        return 'Scores: {"relevance": 5, "consistency": 4, "reason": "realistic"}'
    return response(solver_reply(messages))


def solver_reply(messages: list[dict[str, str]]) -> str:
    role = next(i for i, r in enumerate(ROLES) if r in messages[0]["content"])
    kind = marker(messages[1]["content"])
    followup = messages[-1]["content"] if len(messages) > 2 else ""
    if kind == "repair" and role == 0 and not followup:
        return program(crash=True)
    if kind == "regen" and role == 0 and not followup:
        return program(status="infeasible")
    if kind == "split":
        return [
            program(10.0),
            program(20.0, direction="min", n_binary=1),
            program(30.0, n_binary=2, n_integer=1),
        ][role]
    return program(100.0)


@pytest.fixture(scope="session")
def executor():
    with solver_executor(workers=2) as ex:
        yield ex


def write_world_files(root: Path) -> dict[str, Path]:
    """The world's scenarios (one per row kind), roles, and a benchmark file."""
    scenarios = root / "scenarios.txt"
    scenarios.write_text("".join(f"{n}: the marker-{n} setting\n" for n in QUESTIONS))
    roles = root / "roles.yaml"
    roles.write_text("".join(f"- id: r{i}\n  text: {text}\n" for i, text in enumerate(ROLES)))
    bench = root / "nl4opt.jsonl"
    rows = [
        {"en_question": QUESTIONS["bench"].replace("cheaply", "at least cost"), "en_answer": 5},
        {"en_question": "A farmer plants wheat and corn on 100 acres.", "en_answer": 7},
    ]
    bench.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {"scenarios": scenarios, "roles": roles, "bench": bench}


def world_config(url: str, files: dict[str, Path], **changes: Any) -> SynthesisConfig:
    fields: dict[str, Any] = {
        "endpoint": EndpointSettings(url=url, model="gen"),
        "n_generate": len(QUESTIONS),
        "augment": ("modelling",),
        "n_roles": 3,
        "repair_rounds": 1,
        "decontaminate": (str(files["bench"]),),
        "baseline": EndpointSettings(url=url, model="baseline"),
        "baseline_attempts": 3,
        "baseline_max_right": 2,
        "scenarios_file": str(files["scenarios"]),
        "roles_file": str(files["roles"]),
    }
    return SynthesisConfig(**{**fields, **changes})


@pytest.fixture(scope="session")
def seeds():
    return load_optim_problems()[:2]
