"""``execrl score --programs``: any programs, any environment and reward, through the real CLI
entry point and the real sandbox, on a bundled problem with small inputs."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from execrl.cli.main import main
from execrl.problems import load_bundled
from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.records import Status
from execrl.timing.store import Campaign, CampaignInfo, DurationStore, ExecutorSettings, Measurement

PROBLEM = "edit-distance"
"""Small optimization inputs: its references' durations are measured in ~15 s on 2 cores."""
CORRECT, INCORRECT = "dp-row-zip", "hamming-shortcut"
"""The fastest correct reference, and an incorrect one a correctness test catches."""
SIGNALS = ("c_cor", "c_strict", "g", "q", "timeout_fraction", "q_dur", "ranked_tests")


@pytest.fixture(scope="module")
def references() -> dict[str, str]:
    (problem,) = load_bundled([PROBLEM])
    return {ref.name: ref.code for ref in problem.references}


def score(*args: str) -> int:
    return main(["score", *args])


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_py_programs_under_mc(references, tmp_path: Path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(references[CORRECT])
    bad.write_text(references[INCORRECT])
    out = tmp_path / "scores.jsonl"
    code = score(
        *("--id", PROBLEM, "--programs", str(good), "--programs", str(bad)),
        *("--env", "mc", "--reward", "collapsed", "--out", str(out)),
    )
    assert code == 0
    rewards = {r["program_name"]: r["reward"] for r in rows(out)}
    assert rewards == {"good.py": 1.0, "bad.py": -1.0}
    assert all(r["record"]["problem_id"] == PROBLEM for r in rows(out))  # replayable


def test_config_file_picks_env_and_reward(references, tmp_path: Path):
    folder = tmp_path / "programs"
    folder.mkdir()
    (folder / "a.py").write_text(references[CORRECT])
    (folder / "b.py").write_text(references[INCORRECT])
    config = tmp_path / "run.yaml"
    config.write_text("env: mc\nreward: two_gate\n")
    out = tmp_path / "scores.jsonl"
    code = score(
        *("--id", PROBLEM, "--programs", str(folder), "--config", str(config)),
        *("--out", str(out)),
    )
    assert code == 0
    got = {r["program_name"]: (r["environment"], r["reward_name"], r["reward"]) for r in rows(out)}
    assert got == {
        "programs/a.py": ("mc", "two_gate(binary)", 1.0),
        "programs/b.py": ("mc", "two_gate(binary)", -1.0),
    }


def test_jsonl_completions_under_qp_with_measured_references(references, tmp_path: Path):
    completions = tmp_path / "rollouts.jsonl"
    with completions.open("w") as f:
        for name in (CORRECT, "dp-2d-table"):
            text = f"Here is a solution.\n```python\n{references[name]}```\nIt is O(nm)."
            f.write(json.dumps({"problem_id": PROBLEM, "completion": text}) + "\n")
    out = tmp_path / "scores.jsonl"
    code = score(
        *("--programs", str(completions), "--env", "qp(p=0.5)"),
        *("--references", "measure", "--out", str(out)),
    )
    assert code == 0
    scored = rows(out)
    assert [r["program_name"] for r in scored] == ["rollouts.jsonl:1", "rollouts.jsonl:2"]
    for row in scored:
        assert -1.0 <= row["reward"] <= 1.0
        assert all(key in row for key in SIGNALS)
        assert row["c_cor"] == 1  # the fences were stripped: both programs are correct
        assert row["ranked_tests"] == 20 and row["q_dur"] is not None  # measured references
        assert row["environment"] == "qp(p=0.5)" and row["references"] == "measure"
    # the measured durations are saved next to the scores as a timing-store campaign
    campaign = DurationStore(tmp_path / "scores.references").load()
    (problem,) = load_bundled([PROBLEM])
    correct = {r.name for r in problem.references if r.label == "correct"}
    assert campaign.timing == "cpu" and campaign.info.problems == [PROBLEM]
    assert campaign.info.settings.reruns == 1
    durations = campaign.durations("cpu", cap_s=problem.time_limit_s)[PROBLEM]
    assert set(durations) == correct
    fastest = durations[CORRECT]
    assert len(fastest) == 20 and all(0 < s < problem.time_limit_s for s in fastest.values())


def saved_campaign(folder: Path, seconds: float) -> Path:
    """A campaign file in which every correct reference took ``seconds`` on every test."""
    (problem,) = load_bundled([PROBLEM])
    info = CampaignInfo(
        id=f"20260101-000000-{folder.name}",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        machine=MachineFingerprint.current(),
        settings=ExecutorSettings(),
        problems=[PROBLEM],
    )
    measurements = [
        Measurement(
            problem_id=PROBLEM,
            test_id=t.id,
            reference=ref.name,
            statuses=[Status.SUCCESS],
            cpu_s=[seconds],
            wall_s=[seconds],
        )
        for ref in problem.references
        if ref.label == "correct"
        for t in problem.optimization_tests
    ]
    return DurationStore(folder).save(Campaign(info=info, measurements=measurements))


def test_saved_reference_durations_are_reused_exactly(references, tmp_path: Path):
    """--references FILE scores against the saved durations, not new ones: with every
    reference saved as impossibly fast, a correct program is last on every test (q_dur = 1)
    and fails the QP gate; with them impossibly slow it is first (q_dur = 0)."""
    program = tmp_path / "p.py"
    program.write_text(references[CORRECT])
    got = {}
    # (slow: above the cap, yet seconds: above 600 s, the largest limit, a duration is a count)
    for label, seconds in (("fast", 1e-9), ("slow", 5e2)):
        saved = saved_campaign(tmp_path / label, seconds)
        out = tmp_path / f"{label}.jsonl"
        args = ["--id", PROBLEM, "--programs", str(program), "--env", "qar", "--out", str(out)]
        assert score(*args, "--references", str(saved)) == 0
        (row,) = rows(out)
        assert row["references"] == str(saved) and row["ranked_tests"] == 20
        got[label] = row["q_dur"]
    assert got == {"fast": 1.0, "slow": 0.0}
    # a timing store folder stands for its latest campaign
    out = tmp_path / "folder.jsonl"
    args = ["--id", PROBLEM, "--programs", str(program), "--env", "qar", "--out", str(out)]
    assert score(*args, "--references", str(tmp_path / "fast")) == 0
    assert [row["q_dur"] for row in rows(out)] == [1.0]


def test_old_reference_durations_file_says_how_to_measure_again(tmp_path, capsys):
    saved = tmp_path / "old.references.json"
    saved.write_text(json.dumps({"format": "execrl-reference-durations/1", "durations_s": {}}))
    program = tmp_path / "p.py"
    program.write_text("print(0)\n")
    args = ["--id", PROBLEM, "--programs", str(program), "--env", "qar"]
    code = score(*args, "--references", str(saved), "--out", str(tmp_path / "out.jsonl"))
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"LoaderError: {saved}: reference durations in the old" in err
    assert "--references measure" in err and "execrl timing campaign" in err
    assert not (tmp_path / "out.jsonl").exists()


def test_list_presets(capsys):
    assert score("--list-presets") == 0
    shown = capsys.readouterr().out
    assert "ranked_timeout" in shown and "two_gate" in shown and "naive" in shown


@pytest.mark.parametrize(
    ("extra", "row", "message"),
    [
        (["--env", "nope"], None, "unknown environment 'nope'"),
        (["--env", "qp(p=2)"], None, "environment qp(p=2): p must be in [0, 1]"),
        (
            ["--reward", "collapsed(signal=x)"],
            None,
            "reward collapsed(signal=x): signal must be 'binary' or 'graded'",
        ),
        (["--programs", "/no/such/program.py"], None, "no such file or folder"),
        (["--config", "/no/such/run.yaml"], None, "/no/such/run.yaml"),
        ([], {"completion": "print(1)"}, "rows.jsonl:1: no 'problem_id'"),
        ([], {"problem_id": PROBLEM, "text": "x"}, "rows.jsonl:1: no 'completion'"),
        ([], {"problem_id": "no-such", "code": "x"}, "no problem with id 'no-such'"),
        (["--id", PROBLEM, "--id", "other"], None, "pass exactly one --id (got 2)"),
        (["--references", "/no/such.json"], None, "expected 'measure', 'stored' or a saved"),
    ],
)
def test_user_mistakes_are_one_line_and_exit_2(tmp_path, capsys, extra, row, message):
    program = tmp_path / "p.py"
    program.write_text("print(0)\n")
    if row is None:
        args = ["--programs", str(program)] if "--programs" not in extra else []
        args += extra if "--id" in extra else ["--id", PROBLEM, *extra]
    else:
        (tmp_path / "rows.jsonl").write_text(json.dumps(row) + "\n")
        args = ["--programs", str(tmp_path / "rows.jsonl"), *extra]
    code = score(*args, "--out", str(tmp_path / "out.jsonl"))
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_without_programs_env_options_are_refused(capsys):
    assert score("--env", "qp") == 2
    assert "--env applies to programs given with --programs" in capsys.readouterr().err
