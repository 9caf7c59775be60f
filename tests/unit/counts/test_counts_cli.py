"""The CLI on counts: every --timing offers the four metrics; `execrl doctor` says whether
Valgrind can count here; a counted timing where programs run needs Valgrind (one line with
the install command, before any work), where stored records are read it does not; and
`execrl score --timing instructions` end to end through the real sandbox."""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime

import pytest

import execrl
from execrl.cli.main import main
from execrl.problems import StdioTest, load_bundled
from execrl.problems.models import ReferenceLabel
from execrl.sandbox import ExecutionRecord, Status, TestResult, save_records
from execrl.sandbox.counting import valgrind_status
from execrl.sandbox.machine import MachineFingerprint
from execrl.timing.store import Campaign, CampaignInfo, DurationStore, ExecutorSettings, Measurement

PROBLEM, CORRECT = "edit-distance", "dp-row-zip"
"""A bundled problem with small inputs and its fastest correct reference (as the score CLI
tests use)."""
ALL_TIMINGS = "{cpu,wall,instructions,cycles_estimate}"


@pytest.fixture
def no_valgrind(monkeypatch, tmp_path):
    """A PATH without Valgrind (the real lookup, on an empty folder), for this test only."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    valgrind_status.cache_clear()
    yield
    valgrind_status.cache_clear()


@functools.cache
def executor_counts() -> bool:
    """Whether the real executor returns counts here (not before the counted fork server)."""
    if not valgrind_status()[0]:
        return False
    test = StdioTest(id="t", input="", output="3\n")
    record = execrl.run("print(1 + 2)", [test], timing="instructions")
    return record.results[0].instructions is not None


@pytest.mark.parametrize(
    "command",
    [
        ["run"],
        ["score"],
        ["simulate", "run"],
        ["eval", "run"],
        ["eval", "replay"],
        ["eval", "metrics"],
        ["metrics", "screen"],
    ],
)
def test_every_timing_option_offers_the_four_metrics(command, capsys):
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    assert f"--timing {ALL_TIMINGS}" in " ".join(capsys.readouterr().out.split())


def test_doctor_says_whether_valgrind_counts_here(capsys):
    main(["doctor"])
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("instruction counting:")]
    ok, detail = valgrind_status()
    assert detail in " ".join(out.split())
    if ok:  # this machine has Valgrind 3.19
        assert "valgrind-3" in line and "'instructions' and 'cycles_estimate' work" in line


def test_doctor_without_valgrind_gives_the_install_command(no_valgrind):
    ok, line = valgrind_status()
    assert not ok
    assert line.startswith("not installed: install Valgrind (Debian/Ubuntu: apt-get install")


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_run_by_count_without_valgrind_is_one_line_before_any_work(no_valgrind, tmp_path, capsys):
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    assert main(["run", PROBLEM, str(program), "--timing", "instructions"]) == 2
    assert "apt-get install valgrind" in one_line_error(capsys)


def test_score_by_count_without_valgrind_writes_nothing(no_valgrind, tmp_path, capsys):
    program, out = tmp_path / "p.py", tmp_path / "scores.jsonl"
    program.write_text("print(1)\n")
    argv = ["score", "--id", PROBLEM, "--programs", str(program), "--out", str(out)]
    assert main([*argv, "--timing", "cycles_estimate"]) == 2
    assert "needs a working Valgrind" in one_line_error(capsys)
    assert not out.exists()


def counted_reference_records() -> list[ExecutionRecord]:
    """Hand-built counted records of the problem's correct references on all its tests: the
    j-th reference executes (j + 1) × 10⁸ instructions on each (10⁶ on a correctness test)."""
    (problem,) = load_bundled([PROBLEM])
    refs = problem.references_labelled(ReferenceLabel.CORRECT)
    return [
        ExecutionRecord(
            problem_id=PROBLEM,
            program_sha256="0" * 64,
            program_name=ref.name,
            timing="instructions",
            results=[
                TestResult(
                    test_id=t.id,
                    status=Status.SUCCESS,
                    cpu_s=0.1,
                    instructions=(j + 1) * (10**8 if t.group == "optimization" else 10**6),
                )
                for t in problem.tests
            ],
        )
        for j, ref in enumerate(refs)
    ]


def test_reading_counted_records_needs_no_valgrind(no_valgrind, tmp_path, capsys):
    records = tmp_path / "records.jsonl"
    save_records(counted_reference_records(), records)
    assert main(["metrics", "screen", str(records), "--timing", "instructions"]) == 0
    assert "instructions" in capsys.readouterr().out


def test_simulating_counted_records_needs_no_valgrind(no_valgrind, tmp_path, capsys):
    records = tmp_path / "records.jsonl"
    save_records(counted_reference_records(), records)
    argv = ["simulate", "run", "--records", str(records), "--id", PROBLEM]
    argv += ["--timing", "instructions", "--count-rate", "2e9", "--env", "qp(p=0.5)"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "qp(p=0.5)" in out and "rewards nothing" not in out


def test_score_by_count_against_a_campaign_without_counts_is_one_line(tmp_path, capsys):
    # durations measured by cpu (an earlier `--references measure` run: a timing campaign)
    # hold no instruction counts; a count rate needs no check: a campaign keeps its timeouts
    # as timeouts and they are converted at the scorer's own rate when read
    if not valgrind_status()[0]:
        pytest.skip(f"Valgrind cannot count here: {valgrind_status()[1]}")
    (problem,) = load_bundled([PROBLEM])
    info = CampaignInfo(
        id="20260101-000000-earlier",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        machine=MachineFingerprint.current(),
        settings=ExecutorSettings(timing="cpu"),
        problems=[PROBLEM],
    )
    measurements = [
        Measurement(
            problem_id=PROBLEM,
            test_id=t.id,
            reference=r.name,
            statuses=[Status.SUCCESS],
            cpu_s=[0.1],
            wall_s=[0.1],
        )
        for r in problem.references_labelled(ReferenceLabel.CORRECT)
        for t in problem.optimization_tests
    ]
    saved = DurationStore(tmp_path / "earlier").save(Campaign(info=info, measurements=measurements))
    program, out = tmp_path / "p.py", tmp_path / "scores.jsonl"
    program.write_text("print(1)\n")
    argv = ["score", "--id", PROBLEM, "--programs", str(program), "--out", str(out)]
    argv += ["--env", "qp(p=0.5)", "--references", str(saved), "--timing", "instructions"]
    assert main(argv) == 2
    message = "measured by cpu, but the environment is timed by instructions"
    assert message in one_line_error(capsys)
    assert not out.exists()  # refused before the results file and the sandbox


def test_score_by_instructions_end_to_end(tmp_path):
    if not valgrind_status()[0]:
        pytest.skip(f"Valgrind cannot count here: {valgrind_status()[1]}")
    if not executor_counts():
        pytest.skip("the executor does not count yet: TestResult.instructions comes back None")
    (problem,) = load_bundled([PROBLEM])
    program, out = tmp_path / "good.py", tmp_path / "scores.jsonl"
    program.write_text(next(r.code for r in problem.references if r.name == CORRECT))
    code = main(
        [
            *("score", "--id", PROBLEM, "--programs", str(program)),
            *("--env", "mc", "--timing", "instructions", "--out", str(out)),
        ]
    )
    assert code == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["reward"] == 1.0 and row["timing"] == "instructions"
    record = ExecutionRecord.model_validate(row["record"])
    assert record.timing == "instructions"
    passing = [r for r in record.results if r.passed]
    assert passing and all(r.instructions and r.instructions > 0 for r in passing)
