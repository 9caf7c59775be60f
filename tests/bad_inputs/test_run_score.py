"""Bad inputs to ``execrl run``, ``execrl score``, environment specs, records files and the
Python API: one line and exit 2 (never a traceback), checked before a sandbox starts, and
nothing already written is lost. Also: ``execrl score`` keeps every finished row when it is
interrupted, and ``--resume`` finishes the job."""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

import execrl
from execrl.cli.main import main
from execrl.envs.presets import environment
from execrl.envs.screening import read_records
from execrl.errors import ConfigError, DataError, OutputError, UsageError
from execrl.problems.models import StdioTest
from execrl.sandbox.records import ExecutionRecord, load_records, save_records

NOT_UTF8 = b"print(1)\n# caf\xe9 \xff\n"
"""Latin-1 bytes: not UTF-8."""
SUM = "input()\nprint(sum(map(int, input().split())))\n"
"""A correct program for the sum-list problem (tests/conftest.py)."""
BUNDLED = "balanced-brackets"
CREATED = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "sum.py"
    path.write_text(SUM)
    return path


def score_args(problem_dir: Path, program: Path, out: Path, *extra: object) -> list[str]:
    argv = ["score", problem_dir.parent, "--id", "sum-list", "--programs", program, "--out", out]
    return [str(a) for a in (*argv, *extra)]


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- execrl run ---------------------------------------------------------------------------------


def test_run_program_not_utf8_names_the_file(bad_input, tmp_path):
    program = tmp_path / "latin1.py"
    program.write_bytes(NOT_UTF8)
    line = bad_input(["run", BUNDLED, program])
    assert line.startswith("DataError:") and "latin1.py" in line and "UTF-8" in line


@pytest.mark.parametrize("repeats", ["0", "-1", str(10**12)])
def test_run_repeats_out_of_range_states_the_range(bad_input, program, repeats):
    line = bad_input(["run", BUNDLED, program, "--repeats", repeats])
    assert line == f"UsageError: --repeats {repeats}: expected 1 to 100 runs per test"


def test_run_a_group_without_tests_is_refused(bad_input, sum_problem_dir, program):
    """The unbuilt sum-list problem has original tests only: '0/0 passed' was exit 1."""
    source = sum_problem_dir.parent
    line = bad_input(["run", "sum-list", program, "--source", source, "--group", "optimization"])
    assert "sum-list has no optimization tests" in line and "original 1" in line


def test_run_lists_original_tests_first(capsys, tmp_path):
    """show and the docs order tests original → extra → optimization; so does run, so
    --stop-at-first-failure stops on an original test (the bundled problems list extra first)."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text("print('no')\n")
    code = main(["run", BUNDLED, str(wrong), "--stop-at-first-failure"])
    out = capsys.readouterr().out
    assert code == 1
    verdict_rows = [line for line in out.splitlines() if "wrong_answer" in line]
    assert len(verdict_rows) == 1 and "original" in verdict_rows[0]


def test_run_help_explains_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "skip the remaining tests once one fails" in shown  # --stop-at-first-failure
    assert "1 to 100" in shown and "(default: 1)" in shown  # --repeats


# -- execrl score: options and outputs ----------------------------------------------------------


@pytest.mark.parametrize("jobs", ["0", "-1", "100000"])
def test_score_jobs_out_of_range_is_refused(bad_input, sum_problem_dir, program, tmp_path, jobs):
    """--jobs 0 silently meant one per core; -1 was a traceback."""
    out = tmp_path / "out.jsonl"
    line = bad_input(score_args(sum_problem_dir, program, out, "--jobs", jobs))
    assert line.startswith(f"UsageError: --jobs {jobs}: expected 1 to 1024 workers")
    assert not out.exists()


def test_score_out_under_a_file_fails_before_scoring(bad_input, sum_problem_dir, program, tmp_path):
    blocker = tmp_path / "plain-file"
    blocker.write_text("keep me\n")
    line = bad_input(score_args(sum_problem_dir, program, blocker / "scores.jsonl"))
    assert line.startswith("OutputError:") and "plain-file/scores.jsonl" in line
    assert blocker.read_text() == "keep me\n"


def test_score_out_in_proc_fails_before_scoring(bad_input, sum_problem_dir, program):
    line = bad_input(score_args(sum_problem_dir, program, Path("/proc/execrl-scores.jsonl")))
    assert line.startswith("OutputError: /proc/execrl-scores.jsonl: cannot write results")


def test_score_program_not_utf8_names_the_file(bad_input, sum_problem_dir, tmp_path):
    program = tmp_path / "latin1.py"
    program.write_bytes(NOT_UTF8)
    line = bad_input(score_args(sum_problem_dir, program, tmp_path / "out.jsonl"))
    assert line.startswith("DataError:") and "latin1.py: the program is not UTF-8" in line


def test_score_completions_cut_short_or_not_utf8(bad_input, sum_problem_dir, tmp_path):
    row = json.dumps({"problem_id": "sum-list", "program": SUM}) + "\n"
    cut = tmp_path / "rollouts.jsonl.gz"
    cut.write_bytes(gzip.compress(row.encode() * 50)[:-20])  # an interrupted download
    source, out = sum_problem_dir.parent, tmp_path / "out.jsonl"
    line = bad_input(["score", source, "--programs", cut, "--out", out])
    assert line.startswith(f"LoaderError: {cut}: cannot read it")
    latin1 = tmp_path / "rollouts.jsonl"
    latin1.write_bytes(row.encode() + b'{"problem_id": "caf\xe9"}\n')
    line = bad_input(["score", source, "--programs", latin1, "--out", out])
    at = len(row) + len('{"problem_id": "caf')
    assert line == f"LoaderError: {latin1}: not UTF-8 text (invalid continuation byte at byte {at})"


def test_site_path_not_a_folder_is_a_usage_error(bad_input, program, tmp_path):
    line = bad_input(["run", BUNDLED, program, "--site-path", tmp_path / "missing"])
    assert line.startswith("UsageError: --site-path:") and "is not a directory" in line


def test_score_resume_needs_out(bad_input, sum_problem_dir, program):
    line = bad_input(["score", sum_problem_dir.parent, "--id", "sum-list", "--programs", program,
                      "--resume"])  # fmt: skip
    assert line == "UsageError: --resume continues the results file given with --out; pass --out"


def test_score_resume_under_another_env_keeps_the_file(
    bad_input, sum_problem_dir, program, tmp_path
):
    out = tmp_path / "scores.jsonl"
    assert main(score_args(sum_problem_dir, program, out, "--env", "rlvr")) == 0
    before = out.read_bytes()
    line = bad_input(score_args(sum_problem_dir, program, out, "--env", "mc", "--resume"))
    assert "scored under environment rlvr" in line and "--env" in line
    assert out.read_bytes() == before


def test_score_resume_of_a_corrupt_file_names_the_line_and_keeps_it(
    bad_input, sum_problem_dir, program, tmp_path
):
    out = tmp_path / "scores.jsonl"
    out.write_text('{"problem_id": "sum-list"}\nnot json\n{"problem_id": "sum-list"}\n')
    before = out.read_bytes()
    line = bad_input(score_args(sum_problem_dir, program, out, "--resume"))
    assert line.startswith("DataError:") and "scores.jsonl, line 2: not JSON" in line
    assert out.read_bytes() == before


def test_score_references_resume_of_a_programs_file_is_refused(
    bad_input, sum_problem_dir, program, tmp_path
):
    out = tmp_path / "scores.jsonl"
    assert main(score_args(sum_problem_dir, program, out)) == 0
    before = out.read_bytes()
    line = bad_input(["score", sum_problem_dir.parent, "--out", out, "--resume"])
    assert "not reference checks" in line
    assert out.read_bytes() == before


def test_score_list_presets_is_plain_text(capsys):
    assert main(["score", "--list-presets"]) == 0
    assert "``" not in capsys.readouterr().out


def test_score_table_has_a_legend(capsys, sum_problem_dir, program, tmp_path):
    assert main(score_args(sum_problem_dir, program, tmp_path / "out.jsonl")) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "q: graded quality in [0, 1], 0 best" in shown


# -- environments and spec strings --------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "name"),
    [("qp(p=3e-1)", "qp(p=0.3)"), ("abs_timeout(limit=6e2)", "abs_timeout(limit=600, rho=0.1)")],
)
def test_spec_numbers_read_as_python_reads_them(sum_problem_dir, program, tmp_path, spec, name):
    """YAML 1.1 read 3e-1 as a string: 'Unknown format code 'g' for object of type 'str''."""
    out = tmp_path / "out.jsonl"
    args = score_args(sum_problem_dir, program, out, "--env", spec, "--references", "stored")
    assert main(args) == 0
    assert [r["environment"] for r in rows(out)] == [name]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("qp(p=2)", "environment qp(p=2): p must be in [0, 1]"),  # said "gate:"
        # said "seconds:"; the one range of a time limit (tests/bad_inputs/test_time_limits.py)
        ("abs_timeout(limit=0)", "environment abs_timeout(limit=0): limit must be more than 0"),
        ("len_filter(L=-1)", "L must be at least 1"),  # said "max_chars:"
        ("abs_filter(rho=2)", "rho must be in [0, 1]"),  # said "tolerance:"
        ("ranked_timeout(agg=min)", "agg must be 'max' or 'median'"),  # said "aggregate:"
        ("qp(p=nan)", "p must be a number, got 'nan'"),
        ("len_filter(L=1e400)", "L must be a finite number"),
        ("qp(p=true)", "p must be a number, got True"),
        ("qp(p=1, p=0.5)", "p is given twice"),  # the last one silently won
        ("qp(p=0x10)", "cannot read the value '0x10'"),  # YAML 1.1: 16
    ],
)
def test_spec_errors_name_the_users_parameter(bad_input, program, sum_problem_dir, spec, message):
    line = bad_input(score_args(sum_problem_dir, program, program.with_suffix(".jsonl"),
                                "--env", spec))  # fmt: skip
    assert line.startswith("ConfigError:") and message in line
    line = line.replace("600 seconds (", "")  # (a time limit's range, not the field `seconds`)
    for internal in ("gate", "seconds", "max_chars", "tolerance", "aggregate"):
        assert f"{internal}:" not in line and f"{internal} " not in line


def test_env_yaml_without_env_key_is_refused(bad_input, sum_problem_dir, program, tmp_path):
    """It was silently scored under mc."""
    config = tmp_path / "env.yaml"
    config.write_text("reward: collapsed\n")
    out = tmp_path / "out.jsonl"
    line = bad_input(score_args(sum_problem_dir, program, out, "--env", config))
    assert line.startswith(f"ConfigError: {config}: no 'env:' key (found: reward)")
    assert not out.exists()


def test_env_yaml_not_utf8_names_the_file(bad_input, sum_problem_dir, program, tmp_path):
    config = tmp_path / "env.yaml"
    config.write_bytes(b"env: qp\n# caf\xe9\n")
    line = bad_input(score_args(sum_problem_dir, program, tmp_path / "o.jsonl", "--env", config))
    assert line.startswith(f"ConfigError: {config}: not UTF-8 text")


def test_config_file_errors_name_the_file(bad_input, sum_problem_dir, program, tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text("env: qp(p=2)\n")
    out = tmp_path / "out.jsonl"
    line = bad_input(score_args(sum_problem_dir, program, out, "--config", config))
    assert line.startswith(f"ConfigError: {config}: environment qp(p=2): p must be in [0, 1]")


def test_validate_env_spec_checks_without_building_a_pool(tmp_path):
    from execrl.envs.presets import validate_env_spec  # (new: the edge's check)

    validate_env_spec("qp(p=3e-1)")
    validate_env_spec({"preset": "abs_filter", "a": 1.5})
    with pytest.raises(ConfigError, match=r"qp\(p=2\): p must be in \[0, 1\]"):
        validate_env_spec("qp(p=2)")
    with pytest.raises(ConfigError, match="cannot read"):
        validate_env_spec("qp(p=")
    loop = tmp_path / "loop.yaml"
    loop.write_text(f"env: {loop}\n")
    with pytest.raises(ConfigError, match="not another file"):
        environment(loop)


# -- records files ------------------------------------------------------------------------------


def record() -> ExecutionRecord:
    return ExecutionRecord(problem_id="p", program_sha256="0" * 64, created_at=CREATED)


def test_load_records_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"problem_id": "caf\xe9"}\n')
    with pytest.raises(DataError, match=r"records\.jsonl, line 1: not UTF-8"):
        load_records(path)
    with pytest.raises(DataError, match=r"records\.jsonl, line 1: not UTF-8"):
        read_records(path)  # (the screening reader)


def test_load_records_not_gzip_and_not_records(tmp_path):
    fake = tmp_path / "records.jsonl.gz"
    fake.write_text("plain text\n")
    with pytest.raises(DataError, match="not a gzip file"):
        load_records(fake)
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"problem_id": "p"}\n')
    with pytest.raises(DataError, match=r"wrong\.jsonl, row 1: not an execution record"):
        load_records(wrong)


def test_load_records_keeps_what_a_crash_left(tmp_path):
    path = save_records([record(), record()], tmp_path / "records.jsonl")
    with path.open("a") as f:
        f.write('{"problem_id": "p", "progr')  # a row cut short
    assert load_records(path) == [record(), record()]


def test_garbage_parquet_is_a_data_error(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "records.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(DataError, match=r"records\.parquet: not a Parquet file"):
        load_records(path)


def test_save_records_somewhere_unwritable(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="cannot write records"):
        save_records([record()], blocker / "records.jsonl")
    with gzip.open(tmp_path / "ok.jsonl.gz", "wt") as f:
        f.write(json.dumps(record().model_dump(mode="json")) + "\n")
    assert load_records(tmp_path / "ok.jsonl.gz") == [record()]


# -- the Python API -----------------------------------------------------------------------------


def test_execrl_run_without_tests_is_refused():
    with pytest.raises(UsageError, match="no tests"):
        execrl.run("print(1)", [])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"repeats": 0}, "repeats"), ({"colour": "red"}, "colour"), ({"timing": "gpu"}, "timing")],
)
def test_execrl_run_bad_options_before_a_sandbox_starts(kwargs, message):
    test = StdioTest(id="t", input="", output="1")
    with pytest.raises(UsageError, match=message):
        execrl.run("print(1)", [test], **kwargs)


# -- interrupted and resumed --------------------------------------------------------------------


def test_interrupted_score_keeps_every_finished_row_and_resumes(sum_problem_dir, tmp_path):
    """Ctrl-C on 300 programs of one problem kept 0 of 300 rows (flushed per problem)."""
    completions = tmp_path / "rollouts.jsonl"
    with completions.open("w") as f:
        for i in range(300):
            # 0.05 s each: the 300 take >= 7 s on 2 workers, so the interrupt comes mid-run
            # even when this test is starved beside the suite's other worker (once, at 0.02 s,
            # the run finished before the poll below saw 20 rows)
            code = f"import time\ntime.sleep(0.05)\n{SUM}# {i}\n"
            f.write(json.dumps({"problem_id": "sum-list", "program": code}) + "\n")
    out = tmp_path / "scores.jsonl"
    argv = [sys.executable, "-m", "execrl.cli.main", "score", str(sum_problem_dir.parent),
            "--programs", str(completions), "--out", str(out), "--jobs", "2"]  # fmt: skip
    # A Ctrl-C as a terminal sends it: SIGINT at its default disposition in the child, whatever
    # this test process inherited (an ignored SIGINT is inherited across exec, and Python then
    # installs no KeyboardInterrupt handler: under the fresh clone's suite the run ignored the
    # signal and exited 0).
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and out.read_bytes().count(b"\n") >= 20:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err, err
    kept = rows(out)  # every line is a complete JSON row
    assert 20 <= len(kept) < 300
    assert out.read_bytes().endswith(b"\n")

    assert main(["score", str(sum_problem_dir.parent), "--programs", str(completions),
                 "--out", str(out), "--jobs", "2", "--resume"]) == 0  # fmt: skip
    scored = rows(out)
    assert scored[: len(kept)] == kept  # nothing already written was lost or rewritten
    names = [r["program_name"] for r in scored]
    assert sorted(names) == sorted(f"rollouts.jsonl:{i}" for i in range(1, 301))
    assert all(r["reward"] == 1.0 for r in scored)
