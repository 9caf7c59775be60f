"""Bad inputs to ``execrl eval``, ``execrl train`` and ``execrl timing``: one line, exit 2,
nothing already written lost; and the campaigns of ``eval run`` and ``timing campaign``
written as they finish, kept when interrupted and continued with ``--resume``.

Nothing here starts a sandbox or loads a model: campaigns run on a fake executor that gives
every test a success and a made-up duration (what the commands store is what is checked).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import ClassVar

import pytest

from execrl.cli.main import main
from execrl.evaluate import EvalFolder, ModelInfo, run_eval_campaign, samples_from_programs
from execrl.evaluate.folder import MANIFEST_FILE, RECORDS_FILE
from execrl.problems.bundled import bundled_dir
from execrl.problems.io import BUNDLED, load_problem
from execrl.results import read_rows
from execrl.sandbox.records import ExecutionRecord, Status, TestResult, program_sha256
from execrl.timing.store import DurationStore

PROBLEM = "anagram-groups"


def cli(argv: list[object]) -> int:
    """``execrl ARGV`` in-process, as the console script runs it."""
    return main([str(a) for a in argv])


class FakeExecutor:
    """Every test succeeds with a duration drawn from the program and test; raises
    KeyboardInterrupt after ``stop_after`` records (a Ctrl-C mid-campaign)."""

    instances: ClassVar[list[FakeExecutor]] = []
    stop_after: ClassVar[int | None] = None

    def __init__(self, workers: int = 1, **_: object) -> None:
        self.workers = workers
        self.isolation: list[str] = []
        self.executed = 0
        FakeExecutor.instances.append(self)

    def __enter__(self) -> FakeExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def run_batch(self, requests, *, progress: bool = True, description: str = ""):
        for request in list(requests):
            if self.stop_after is not None and self.executed >= self.stop_after:
                raise KeyboardInterrupt
            self.executed += 1
            yield ExecutionRecord(
                problem_id=request.problem_id,
                program_sha256=program_sha256(request.program),
                program_name=request.program_name,
                results=[
                    TestResult(
                        test_id=t.id,
                        status=Status.SUCCESS,
                        cpu_s=0.001 * (1 + (hash((request.program, t.id)) % 7)),
                        wall_s=0.002,
                    )
                    for t in request.tests
                ],
            )


@pytest.fixture
def fake_executor(monkeypatch):
    FakeExecutor.instances = []
    FakeExecutor.stop_after = None
    # (every command opens its executor through execrl.service.open, which looks it up here)
    monkeypatch.setattr("execrl.sandbox.pool.LocalExecutor", FakeExecutor)
    return FakeExecutor


def sampled_folder(path: Path, n: int = 2, models: tuple[str, ...] = ("a",)) -> Path:
    folder = EvalFolder(path)
    problems = [load_problem(BUNDLED, PROBLEM)]
    for label in models:
        programs = [f"print({i})  # {label}\n" for i in range(n)]
        samples = samples_from_programs(label, {PROBLEM: programs})
        info = ModelInfo(label=label, kind="programs", n=n)
        folder.add_samples(info, samples, problems, source=BUNDLED)
    return path


@pytest.fixture
def executed(tmp_path: Path, fake_executor) -> Path:
    """An evaluation folder with 2 samples of one model per problem, executed."""
    path = sampled_folder(tmp_path / "ev")
    run_eval_campaign(EvalFolder(path), FakeExecutor(), progress=False)
    return path


# ------------------------------------------------------------------------------ train config


def test_train_config_not_utf8_names_the_file(bad_input, tmp_path: Path):
    config = tmp_path / "c.yaml"
    config.write_bytes(b"steps: 3\nnote: caf\xe9\n")
    line = bad_input(["train", "--config", config, "--show-config"])
    assert str(config) in line and "UTF-8" in line


def test_train_config_bad_yaml_is_one_line_with_the_file(bad_input, tmp_path: Path):
    config = tmp_path / "c.yaml"
    config.write_text("steps: [1,\noptim:\n  lr: 1\n")
    line = bad_input(["train", "--config", config, "--show-config"])
    assert str(config) in line and "line" in line and line.startswith("ConfigError")


def test_train_override_that_is_not_yaml_names_the_override(bad_input):
    line = bad_input(["train", "--set", "steps=[", "--show-config"])
    assert "steps=[" in line


def test_train_bad_env_spec_fails_at_config_load(bad_input, monkeypatch):
    # Before: --show-config passed and the run failed at the first scoring, after the model
    # loaded. Now nothing past the config may run.
    import execrl.rl.train as trainer

    def no_model(*args, **kwargs):
        raise AssertionError("a model was loaded for a bad config")

    monkeypatch.setattr(trainer, "run_training", no_model)
    line = bad_input(["train", "--set", "reward.env=qp(p=", "--show-config"])
    assert "reward.env" in line and "qp(p=" in line
    line = bad_input(["train", "--set", "reward.env=qp(p=", "--quiet"])
    assert "reward.env" in line


def test_train_bad_reward_spec_names_the_setting(bad_input):
    line = bad_input(["train", "--set", "reward.reward=collapsed(map=nope)", "--show-config"])
    assert "reward.reward" in line and "map" in line


def test_train_bad_value_names_field_and_value(bad_input):
    line = bad_input(["train", "--set", "steps=0", "--show-config"])
    assert "steps" in line and "0" in line


def test_train_resume_without_a_checkpoint_fails_before_the_model(bad_input, tmp_path, monkeypatch):
    import execrl.rl.train as trainer

    def no_model(*args, **kwargs):
        raise AssertionError("a model was loaded for a run that cannot resume")

    monkeypatch.setattr(trainer, "run_training", no_model)
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("steps: 2\n")
    line = bad_input(["train", "--resume", run])
    assert str(run) in line and "checkpoint" in line


def test_train_out_unwritable_fails_before_the_model(bad_input, tmp_path, monkeypatch):
    no_work(monkeypatch, "execrl.rl.train.run_training")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    line = bad_input(["train", "--out", blocker / "run", "--quiet"])
    assert "--out" in line and str(blocker / "run") in line


# ------------------------------------------------------------------------------ metrics screen


def test_metrics_screen_with_no_reference_records_is_not_an_empty_table(bad_input, tmp_path):
    records = tmp_path / "r.jsonl"
    mine = ExecutionRecord(problem_id=PROBLEM, program_sha256="0" * 64, program_name="mine")
    records.write_text(mine.model_dump_json() + "\n")
    line = bad_input(["metrics", "screen", records, "--source", bundled_dir() / PROBLEM])
    assert str(records) in line and "no records of correct reference" in line


# ------------------------------------------------------------------------------ eval metrics


def test_metrics_k_above_the_samples_is_refused_with_n(bad_input, executed: Path):
    line = bad_input(["eval", "metrics", executed, "--k", "100", "--resamples", "5"])
    assert "100" in line and "at most 2" in line
    assert not (executed / "report" / "metrics.json").exists()


def test_metrics_k_must_be_a_whole_number(bad_input, executed: Path):
    line = bad_input(["eval", "metrics", executed, "--k", "1.5"])
    assert "'1.5'" in line and "whole number" in line
    line = bad_input(["eval", "metrics", executed, "--k", "0"])
    assert "k >= 1" in line
    line = bad_input(["eval", "metrics", executed, "--k", "1,x"])
    assert "'x'" in line


def test_metrics_default_k_dropped_is_said(executed: Path, capsys):
    # 2 samples per problem: the default pass@10 cannot be computed; it is said, not dropped
    # silently, and pass@1 is still computed.
    capsys.readouterr()
    assert cli(["eval", "metrics", executed, "--resamples", "5"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pass@10" in err and "at most 2" in err
    saved = json.loads((executed / "report" / "metrics.json").read_text())
    assert {row["k"] for row in saved["all"]["pass_at_k"]} == {1}


def test_python_api_refuses_a_k_that_is_not_whole(executed: Path):
    from execrl.errors import UsageError
    from execrl.evaluate import evaluate, load_eval, replay

    with pytest.raises(UsageError, match=r"1\.5"):
        evaluate(replay(load_eval(executed)), ks=(1.5,), resamples=5)


def test_metrics_report_unwritable_fails_before_the_work(bad_input, executed: Path, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    line = bad_input(["eval", "metrics", executed, "--report", blocker / "report"])
    assert str(blocker / "report") in line and line.startswith("OutputError")
    line = bad_input(["eval", "replay", executed, "--sweep", "tau=10,50", "--report", blocker])
    assert str(blocker) in line


def test_metrics_bad_tau_level_baseline_and_specs(bad_input, executed: Path):
    assert "τ" in bad_input(["eval", "metrics", executed, "--tau", "150"])
    assert "--tau" in bad_input(["eval", "metrics", executed, "--tau", "nan"])
    assert "--level" in bad_input(["eval", "metrics", executed, "--level", "95"])
    assert "nobody" in bad_input(["eval", "metrics", executed, "--baseline", "nobody"])
    assert "--env" in bad_input(["eval", "metrics", executed, "--env", "qp(p="])
    assert "--reward" in bad_input(["eval", "metrics", executed, "--reward", "nope"])


def test_replay_settings_name_the_option_and_value(bad_input, executed: Path):
    line = bad_input(["eval", "metrics", executed, "--limit-s", "0"])
    assert "--limit-s 0" in line and "seconds:" not in line  # (not the internal field)
    assert "--beta inf" in bad_input(["eval", "metrics", executed, "--beta", "inf"])
    assert "--cap-s nan" in bad_input(["eval", "metrics", executed, "--cap-s", "nan"])
    assert "--seed -1" in bad_input(["eval", "metrics", executed, "--seed", "-1"])


def test_replay_sweep_values_are_bounded_and_checked(bad_input, executed: Path):
    replay = ["eval", "replay", executed, "--resamples", "2"]
    assert "N must lie" in bad_input([*replay, "--sweep", "alpha=0.5:2:201"])
    line = bad_input([*replay, "--sweep", "limit_s=0:1:3"])
    assert "limit_s=0" in line and "seconds:" not in line
    line = bad_input([*replay, "--sweep", "cap_s=-1,1"])
    assert "cap_s=-1" in line and "pydantic" not in line


def test_metrics_on_a_corrupt_campaign_names_the_file(bad_input, executed: Path):
    records = executed / RECORDS_FILE
    records.write_bytes(records.read_bytes() + b"\xff\xfe not json\n{}\n")
    line = bad_input(["eval", "metrics", executed])
    assert str(records) in line


def test_metrics_on_a_corrupt_eval_json(bad_input, executed: Path):
    (executed / "eval.json").write_bytes(b"\xff{")
    line = bad_input(["eval", "metrics", executed])
    assert "eval.json" in line
    (executed / "eval.json").write_text('{"version": 1}')
    line = bad_input(["eval", "metrics", executed])
    assert "eval.json" in line and "problems" in line


def test_metrics_on_corrupt_samples_names_the_file(bad_input, tmp_path: Path):
    path = sampled_folder(tmp_path / "ev")
    samples = path / "samples" / "a.jsonl"
    samples.write_text('{"model": "a"}\n')
    line = bad_input(["eval", "run", path])
    assert str(samples) in line


# ------------------------------------------------------------------------------ eval sample


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (b"[1, 2]\n", "JSON object"),
        (b'{"problem_id": "x", "completion": "ok"}\n\xff\xfe\n', "UTF-8"),
    ],
)
def test_sample_from_a_malformed_completions_file(bad_input, tmp_path: Path, content, named):
    completions = tmp_path / "m.jsonl"
    completions.write_bytes(content)
    line = bad_input(["eval", "sample", "--model", completions, "--out", tmp_path / "ev"])
    assert str(completions) in line and named in line


@pytest.mark.parametrize(
    ("option", "value"),
    [("--top-p", "1.5"), ("--temperature", "-1"), ("--batch-size", "0")],
)
def test_sample_settings_are_checked_before_a_model_loads(bad_input, tmp_path, option, value):
    # 'local' would load SmolLM2: refused before it.
    line = bad_input(["eval", "sample", "--model", "local", "--out", tmp_path, option, value])
    assert option in line


def test_sample_refuses_a_bad_or_taken_label_before_a_model_loads(bad_input, tmp_path, monkeypatch):
    path = sampled_folder(tmp_path / "ev")
    import execrl.evaluate.samplers as eval_cmd

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded although its samples would be refused")

    monkeypatch.setattr(eval_cmd, "local_policy", no_model)
    line = bad_input(["eval", "sample", "--model", "local", "--label", "bad label", "--out", path])
    assert "bad label" in line
    line = bad_input(["eval", "sample", "--model", "local", "--label", "a", "--out", path])
    assert "'a'" in line and "--replace" in line


def test_sample_unknown_problem_fails_before_a_model_loads(bad_input, tmp_path, monkeypatch):
    import execrl.evaluate.samplers as eval_cmd

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded for problems that do not exist")

    monkeypatch.setattr(eval_cmd, "local_policy", no_model)
    argv = ["eval", "sample", bundled_dir() / PROBLEM, "--id", "nope", "--model", "local"]
    line = bad_input([*argv, "--out", tmp_path / "ev"])
    assert "nope" in line


def test_sample_completions_with_a_byte_order_mark(tmp_path: Path):
    completions = tmp_path / "m.jsonl"
    row = {"problem_id": PROBLEM, "program": "print(1)\n"}
    completions.write_bytes(b"\xef\xbb\xbf" + json.dumps(row).encode() + b"\n")
    out = tmp_path / "ev"
    argv = ["eval", "sample", bundled_dir() / PROBLEM, "--model", completions, "--out", out]
    assert cli(argv) == 0
    assert len(read_rows(out / "samples" / "m.jsonl")) == 1


# ------------------------------------------------------------------------------ eval run


def test_run_limits_are_checked_before_the_sandbox(bad_input, tmp_path: Path, fake_executor):
    path = sampled_folder(tmp_path / "ev")
    assert "--repeats" in bad_input(["eval", "run", path, "--repeats", "0"])
    assert "--repeats" in bad_input(["eval", "run", path, "--repeats", str(10**12)])
    assert "--jobs" in bad_input(["eval", "run", path, "--jobs", "-1"])
    assert "--jobs" in bad_input(["eval", "run", path, "--jobs", "0"])
    assert "--cap-s" in bad_input(["eval", "run", path, "--cap-s", "900"])
    assert "no interrupted campaign" in bad_input(["eval", "run", path, "--resume"])
    assert fake_executor.instances == []


def test_run_interrupted_keeps_every_finished_run_and_resumes(tmp_path: Path, fake_executor):
    path = sampled_folder(tmp_path / "ev", n=3, models=("a", "b"))
    fake_executor.stop_after = 4
    assert cli(["eval", "run", path]) == 130
    entries = read_rows(path / MANIFEST_FILE)
    records = read_rows(path / RECORDS_FILE)
    assert len(entries) == len(records) == 4  # every finished run, valid JSONL
    assert [e["program_sha256"] for e in entries] == [r["program_sha256"] for r in records]
    fake_executor.stop_after = None
    assert cli(["eval", "metrics", path]) == 2  # not complete: says so (below)
    assert cli(["eval", "run", path]) == 2  # neither --resume nor --restart: refused
    assert cli(["eval", "run", path, "--resume", "--seed", "5"]) == 2  # other settings
    assert cli(["eval", "run", path, "--resume"]) == 0
    resumed = read_rows(path / MANIFEST_FILE)
    assert fake_executor.instances[-1].executed == len(resumed) - 4  # only what was missing
    assert resumed[:4] == entries  # kept, in place
    fresh = tmp_path / "fresh"
    sampled_folder(fresh, n=3, models=("a", "b"))
    assert cli(["eval", "run", fresh]) == 0
    assert read_rows(fresh / MANIFEST_FILE) == resumed  # the same shuffled order
    assert cli(["eval", "metrics", path, "--resamples", "5", "--k", "1"]) == 0


def test_metrics_on_an_interrupted_campaign_says_resume(bad_input, tmp_path, fake_executor):
    path = sampled_folder(tmp_path / "ev")
    fake_executor.stop_after = 1
    assert cli(["eval", "run", path]) == 130
    line = bad_input(["eval", "metrics", path])
    assert "--resume" in line and "1 runs finished" in line


def test_run_torn_last_row_is_dropped_on_resume(tmp_path: Path, fake_executor):
    path = sampled_folder(tmp_path / "ev")
    fake_executor.stop_after = 2
    assert cli(["eval", "run", path]) == 130
    with (path / RECORDS_FILE).open("a") as f:
        f.write('{"problem_id": "anag')  # a record cut short by a crash
    fake_executor.stop_after = None
    assert cli(["eval", "run", path, "--resume"]) == 0
    entries, records = read_rows(path / MANIFEST_FILE), read_rows(path / RECORDS_FILE)
    assert len(entries) == len(records) == 2 + fake_executor.instances[-1].executed


# ------------------------------------------------------------------------------ timing


def test_timing_campaign_interrupted_keeps_runs_and_resumes(tmp_path: Path, fake_executor):
    store = tmp_path / "store"
    one = bundled_dir() / PROBLEM  # (one problem folder: only it is read)
    argv = ["timing", "campaign", one, "--reruns", "2", "--max-tests", "2"]
    argv += ["--store", str(store)]
    fake_executor.stop_after = 5
    assert cli(argv) == 130
    journal = DurationStore(store).journal_path
    rows = read_rows(journal)
    assert rows[0]["kind"] == "header" and sum(r["kind"] == "run" for r in rows) == 5
    assert DurationStore(store).ids() == []  # nothing half-saved in the store
    fake_executor.stop_after = None
    assert cli(argv) == 2  # neither --resume nor --restart: refused, journal untouched
    assert read_rows(journal) == rows
    assert cli([*argv, "--reruns", "3", "--resume"]) == 2  # other settings
    assert cli([*argv, "--resume"]) == 0
    assert not journal.exists()
    (campaign,) = [DurationStore(store).load()]
    references = {m.reference for m in campaign.measurements}
    assert fake_executor.instances[-1].executed == 2 * len(references) - 5
    assert len(campaign.measurements) == len(references) * 2  # × 2 tests
    assert all(len(m.statuses) == 2 for m in campaign.measurements)  # every rerun kept


def test_timing_campaign_restart_over_a_corrupt_journal(tmp_path: Path, fake_executor):
    store = DurationStore(tmp_path / "store")
    store.campaigns_dir.mkdir(parents=True)
    store.journal_path.write_text('not json\n{"kind": "run"}\n')
    argv = ["timing", "campaign", bundled_dir() / PROBLEM, "--max-tests", "1", "--reruns", "1"]
    argv += ["--store", store.root]
    assert cli(argv) == 2  # (the journal is named, and kept)
    assert cli([*argv, "--restart"]) == 0
    assert len(store.ids()) == 1 and not store.journal_path.exists()


def test_timing_campaign_options_checked_before_the_sandbox(bad_input, tmp_path, fake_executor):
    store = ["--store", tmp_path / "s", bundled_dir() / PROBLEM]
    assert "--jobs" in bad_input(["timing", "campaign", *store, "--jobs", "-1"])
    assert "--jobs" in bad_input(["timing", "campaign", *store, "--jobs", "100000"])
    assert "--reruns" in bad_input(["timing", "campaign", *store, "--reruns", "0"])
    assert "resume" in bad_input(["timing", "campaign", *store, "--resume"])
    assert fake_executor.instances == []


def test_timing_campaign_store_under_a_file(bad_input, tmp_path: Path, fake_executor):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    line = bad_input(["timing", "campaign", bundled_dir() / PROBLEM, "--store", blocker / "s"])
    assert str(blocker) in line
    assert fake_executor.instances == []


def test_timing_list_with_a_campaign_file_cut_short(bad_input, tmp_path: Path):
    content = gzip.compress(b'{"id": "x"}\n')[:-8]
    campaigns = tmp_path / "s" / "campaigns"
    campaigns.mkdir(parents=True)
    (campaigns / "20260101-000000-x.jsonl.gz").write_bytes(content)
    line = bad_input(["timing", "list", "--store", tmp_path / "s"])
    assert "20260101-000000-x.jsonl.gz" in line


def no_work(monkeypatch, *names: str) -> None:
    """Make the named functions fail the test if they run (the work a bad option must not
    reach)."""

    def refuse(*args, **kwargs):
        raise AssertionError("the work ran although its options were refused")

    for name in names:
        monkeypatch.setattr(name, refuse)


def test_timing_outputs_are_checked_before_the_work(bad_input, tmp_path: Path, monkeypatch):
    no_work(
        monkeypatch,
        "execrl.cli.timing_noise.measure_floor",
        "execrl.cli.timing_noise.contention_test",
        "execrl.cli.timing_noise_study.run_noise_study",
    )
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = blocker / "x.json"
    line = bad_input(["timing", "floor", "--seconds", "0.2", "--out", out])
    assert "--out" in line and str(out) in line
    line = bad_input(["timing", "contention", bundled_dir() / PROBLEM, "--out", out])
    assert "--out" in line and str(out) in line
    line = bad_input(["timing", "study", "--trials", "2", "--out", blocker / "study"])
    assert "--out" in line and str(blocker / "study") in line


def test_timing_numbers_that_are_not_finite(bad_input, tmp_path: Path, monkeypatch):
    no_work(monkeypatch, "execrl.cli.timing_noise.contention_test")
    line = bad_input(["timing", "contention", bundled_dir() / PROBLEM, "--loads", "0,inf"])
    assert "--loads" in line
    line = bad_input(["timing", "drift", "--calibration", "x", "--k", "nan", "--store", tmp_path])
    assert "--k nan" in line


# ------------------------------------------------------------------------------ help texts


def test_help_texts(capsys):
    with pytest.raises(SystemExit):
        cli(["timing", "floor", "--help"])
    out = capsys.readouterr().out
    assert "5%" in out and "5%%" not in out
    with pytest.raises(SystemExit):
        cli(["eval", "serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--seed SEED torch seed" in out and "--device DEVICE torch device" in out
