"""``execrl solver label`` on the 27 bundled word problems with scripted role answers (right,
wrong, failing), and ``execrl solver synthesize`` stopped by its budget then resumed, both
through the real command line, a real scripted endpoint and the real sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execrl.cli.main import main
from execrl.problems.optim import load_optim_problems
from execrl.synthesis.rows import read_rows
from tests.synthesis.conftest import world_script, write_world_files
from tests.synthesis.scripted import ScriptedEndpoint, program, response

PROBLEMS = load_optim_problems()
ROLES = ("Role alpha.", "Role beta.", "Role gamma.", "Role delta.")
MAJORITY_WRONG = {p.id for i, p in enumerate(PROBLEMS) if i % 4 == 0}


def label_script(body: dict[str, Any]) -> str:
    """alpha: the reference; beta: the reference, or a wrong answer where the majority is
    wrong; gamma: a wrong answer; delta: a program that fails, also after repair."""
    messages = body["messages"]
    role = next(i for i, r in enumerate(ROLES) if r in messages[0]["content"])
    index, problem = next(
        (i, p) for i, p in enumerate(PROBLEMS) if p.question.strip() == messages[1]["content"]
    )
    wrong = response(program(7.0 * (index + 1)))
    if role == 0 or (role == 1 and problem.id not in MAJORITY_WRONG):
        return problem.reference or ""
    return wrong if role in (1, 2) else response(program(crash=True))


def test_label_picks_the_known_answer_where_most_runnable_roles_agree(tmp_path: Path, capsys):
    roles = tmp_path / "roles.yaml"
    roles.write_text("".join(f"- id: r{i}\n  text: {t}\n" for i, t in enumerate(ROLES)))
    out = tmp_path / "labels"
    with ScriptedEndpoint(label_script) as endpoint:
        argv = ["solver", "label", "bundled", "--endpoint", endpoint.url, "--model", "m"]
        argv += ["--out", str(out), "--roles-file", str(roles), "--roles", "4"]
        argv += ["--repair-rounds", "1", "--workers", "2", "--concurrency", "2"]
        assert main(argv) == 0
    printed = capsys.readouterr().out
    right = len(PROBLEMS) - len(MAJORITY_WRONG)
    assert f"where most runnable roles gave it: {right} of {right}" in printed
    report = json.loads((out / "report.json").read_text())
    agreement = report["agreement"]
    assert agreement["rows_with_known_answer"] == 27
    assert agreement["rows_where_most_runnable_roles_agree_with_it"] == right
    assert agreement["label_agrees_there"] == right
    assert agreement["label_agrees"] == right  # the wrong majority wins elsewhere
    rows = {row["id"]: row for row in read_rows(out / "label.jsonl")}
    for problem in PROBLEMS:
        row = rows[problem.id]
        assert row["agrees"] == (problem.id not in MAJORITY_WRONG)
        delta = row["solutions"][3]["attempts"]
        assert [a["kind"] for a in delta] == ["solve", "repair"]
        assert all(a["status"] == "runtime_error" for a in delta)
    traps = [p for p in PROBLEMS if isinstance(p.answer, str)]
    assert traps and all(
        rows[p.id]["solutions"][0]["attempts"][-1]["kind"] == "regenerate" for p in traps
    )
    train = read_rows(out / "train.jsonl")
    assert {r["id"] for r in train} == {i for i, r in rows.items() if r["kept"]}


def test_synthesize_stops_on_its_budget_with_exit_1_and_resumes(tmp_path: Path, capsys):
    files = write_world_files(tmp_path)
    out = tmp_path / "run"
    with ScriptedEndpoint(world_script) as endpoint:
        argv = ["solver", "synthesize", "bundled", "--endpoint", endpoint.url, "--model", "gen"]
        argv += ["--out", str(out), "--n", "7", "--augment", "modelling"]
        argv += ["--scenarios", str(files["scenarios"]), "--roles-file", str(files["roles"])]
        argv += ["--roles", "3", "--repair-rounds", "1", "--decontaminate", str(files["bench"])]
        argv += ["--baseline-model", "baseline", "--baseline-attempts", "3"]
        argv += ["--baseline-max-right", "2", "--workers", "2"]
        assert main([*argv, "--max-calls", "30"]) == 1
        assert "run again with --resume" in capsys.readouterr().out
        assert main(argv) == 2  # the folder holds a run: resume it or choose another
        assert "already holds a run; continue it with --resume" in capsys.readouterr().err
        assert main([*argv, "--resume"]) == 0
    printed = capsys.readouterr().out
    assert "3 pairs in" in printed and "too_easy 1" in printed
    assert len(read_rows(out / "train.jsonl")) == 3
