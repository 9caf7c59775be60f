"""Evaluation end to end with the real sandbox, on the small 'sum-list' problem: samples of
two models and the references run in one shuffled campaign; replaying the stored records
reproduces a fresh scoring exactly; the ``execrl eval`` commands and their errors."""

from __future__ import annotations

import json
import random
import shutil
import socket
from pathlib import Path

import pytest

from execrl.cli.main import main
from execrl.errors import UsageError
from execrl.evaluate import (
    EvalFolder,
    MetricOptions,
    ModelInfo,
    ReplaySettings,
    campaign_requests,
    degenerate_ratios,
    evaluate,
    load_eval,
    replay,
    run_eval_campaign,
    samples_from_programs,
    write_report,
)
from execrl.evaluate.folder import ManifestEntry
from execrl.evaluate.replay import with_campaign_durations
from execrl.evaluate.summary import ModelTally, failing_reference_runs, model_tallies
from execrl.problems import load_problems
from execrl.rewards import Group, rescore, score_batch
from execrl.sandbox.records import program_sha256

BUILTIN = "input()\nprint(sum(map(int, input().split())))\n"
LOOP = "n = int(input())\ns = 0\nfor x in map(int, input().split()):\n    s += x\nprint(s)\n"
DROPS_LAST = (
    "input()\na = list(map(int, input().split()))\nprint(sum(a[:-1]) if len(a) > 3 else sum(a))\n"
)
SLOW = (
    "input()\ns = 0\nfor x in map(int, input().split()):\n"
    "    for _ in range(30):\n        s += 0\n    s += x\nprint(s)\n"
)
PROGRAMS = {
    "fast": [BUILTIN, LOOP, DROPS_LAST],  # correct, correct, fails only large inputs
    "slow": [SLOW, LOOP, "print(0)\n"],  # correct but slow, correct, wrong
}
SEED = 3


@pytest.fixture(scope="module")
def campaign_dir(built_sum_problem_dir: Path, executor, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "ev"
    folder = EvalFolder(out)
    problems = load_problems(built_sum_problem_dir)
    for label, programs in PROGRAMS.items():
        samples = samples_from_programs(label, {"sum-list": programs})
        info = ModelInfo(label=label, kind="programs", n=len(programs))
        folder.add_samples(info, samples, problems, source=str(built_sum_problem_dir))
    run_eval_campaign(folder, executor, seed=SEED, progress=False)
    return out


def test_one_shuffled_campaign_stores_every_verdict(campaign_dir: Path, built_sum_problem_dir):
    folder = EvalFolder(campaign_dir)
    info, entries, records = folder.campaign()
    (problem,) = load_problems(built_sum_problem_dir)
    expected = campaign_requests([problem], folder.samples())
    random.Random(SEED).shuffle(expected)
    # The stored order is the seeded shuffle of samples and references together.
    assert [(e.kind, e.model, e.index, e.reference) for e in entries] == [
        (e.kind, e.model, e.index, e.reference) for e, _ in expected
    ]
    kinds = [e.kind for e in entries]
    assert kinds != sorted(kinds, reverse=True)  # references are not all run last
    assert info.samples == 6 and info.references == 2  # two correct references
    n_tests, n_opt = len(problem.tests), len(problem.optimization_tests)
    for entry, record in zip(entries, records, strict=True):
        assert len(record.results) == (n_tests if entry.kind == "sample" else n_opt)
    data = load_eval(campaign_dir)
    scores = {(s.model, s.index): s for s in replay(data).scores}
    assert [scores[("fast", i)].c_strict for i in range(3)] == [1, 1, 0]
    assert scores[("fast", 2)].c_cor == 1  # drops-last passes the small tests only
    assert [scores[("slow", i)].c_strict for i in range(3)] == [1, 1, 0]


def test_replay_reproduces_a_fresh_scoring_exactly(campaign_dir: Path, executor, tmp_path):
    """Score the samples afresh with execrl.rewards.score_batch (new executions), store those
    records as a campaign, and replay them: every signal, per-test verdict, percentile and
    reward must come out identical."""
    data = load_eval(campaign_dir)
    problem = with_campaign_durations(data, "sum-list", "cpu")
    env, reward = "qp(p=0.3)", "collapsed"
    groups = [Group(problem, PROGRAMS[m]) for m in data.models]
    fresh = score_batch(groups, env=env, reward=reward, executor=executor, progress=False)

    copy = tmp_path / "fresh"
    shutil.copytree(campaign_dir, copy)
    folder = EvalFolder(copy)
    info, old_entries, old_records = folder.campaign()
    entries, records = [], []
    for model, scored in zip(data.models, fresh, strict=True):
        for i, s in enumerate(scored):
            entries.append(
                ManifestEntry(
                    kind="sample",
                    problem_id="sum-list",
                    model=model,
                    index=i,
                    program_sha256=s.record.program_sha256,
                )
            )
            records.append(s.record)
    for entry, record in zip(old_entries, old_records, strict=True):
        if entry.kind == "reference":  # the same references as the fresh scoring's pool
            entries.append(entry)
            records.append(record)
    folder.write_campaign(info, entries, records)

    replayed_data = load_eval(copy)
    replayed = replay(replayed_data)
    pairs = zip(replayed.scores, replayed.outcomes, strict=True)
    by_key = {(s.model, s.index): (s, o) for s, o in pairs}
    for model, scored in zip(data.models, fresh, strict=True):
        for i, s in enumerate(scored):
            score, outcome = by_key[(model, i)]
            assert outcome.tests == s.outcome.tests  # verdicts, durations, percentiles
            assert (score.c_cor, score.c_strict, score.q_qp) == (
                s.outcome.c_cor,
                s.outcome.c_strict,
                s.outcome.q_dur,
            )
            assert score.passes(30) == bool(s.outcome.c_strict * s.outcome.g)
            assert s.reward == (1.0 if score.passes(30) else -1.0)
    # Rewards rescored from the stored records equal the fresh ones, group by group.
    for model, scored in zip(data.models, fresh, strict=True):
        stored = [r.record for r in replayed_data.samples if r.model == model]
        rows = rescore(problem, stored, env=env, reward=reward)
        assert [r for r, _ in rows] == [s.reward for s in scored]
    # And p30 pass@1 is the share of samples the collapsed binary reward pays.
    metrics = evaluate(replayed, taus=(30,), ks=(1,), resamples=10)
    for model, scored in zip(data.models, fresh, strict=True):
        paid = sum(s.reward == 1.0 for s in scored) / len(scored)
        assert metrics.pass_at_k[(model, 30, 1)].value == pytest.approx(paid)
    ratios = degenerate_ratios(replayed_data, env=env, reward=reward)
    assert ratios == {
        m: float(len({s.reward for s in scored}) == 1)
        for m, scored in zip(data.models, fresh, strict=True)
    }


def test_replay_defaults_equal_explicit_identity_settings(campaign_dir: Path):
    data = load_eval(campaign_dir)
    plain = replay(data).scores
    assert replay(data, ReplaySettings(alpha=1.0, beta=0.0, timing="cpu")).scores == plain


# --------------------------------------------------------------------------------------------
# The CLI


def write_completions(path: Path, programs: list[str]) -> Path:
    rows = [{"problem_id": "sum-list", "completion": f"```python\n{p}```"} for p in programs]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_eval_commands_end_to_end(built_sum_problem_dir: Path, tmp_path: Path, capsys):
    out = tmp_path / "ev"
    fast = write_completions(tmp_path / "fast.jsonl", [BUILTIN, LOOP])
    slow = write_completions(tmp_path / "slow.jsonl", [LOOP, "print(0)\n"])
    assert (
        main(
            ["eval", "sample", str(built_sum_problem_dir), "--model", str(fast), "--out", str(out)]
        )
        == 0
    )
    assert main(["eval", "sample", "--model", str(slow), "--out", str(out)]) == 0  # same set
    assert main(["eval", "run", str(out), "--jobs", "1"]) == 0
    assert (
        main(["eval", "metrics", str(out), "--tau", "100,30", "--k", "1,2", "--resamples", "200"])
        == 0
    )
    report = out / "report"
    assert (report / "index.html").is_file() and (report / "pass_at_1.png").is_file()
    metrics = json.loads((report / "metrics.json").read_text())
    values = {(r["model"], r["tau"], r["k"]): r["value"] for r in metrics["all"]["pass_at_k"]}
    assert values[("slow", 100.0, 1)] == 0.5  # LOOP passes, print(0) does not
    assert values[("fast", 100.0, 1)] == 1.0 and values[("fast", 100.0, 2)] == 1.0
    assert metrics["all"]["baseline"] == "fast"  # the first model sampled
    assert set(metrics["by_difficulty"]) == {"easy"}
    assert metrics["degenerate_group_ratio"]["correctness @ qp(p=0.3)"] == {
        "fast": 1.0,
        "slow": 0.0,
    }
    html = (report / "index.html").read_text()
    assert "Win rates against fast" in html and "By difficulty" in html
    assert (
        main(["eval", "replay", str(out), "--calibration-sweep", "0.5:2:3", "--resamples", "50"])
        == 0
    )
    sweep = out / "replay-alpha"
    assert (sweep / "index.html").is_file() and (sweep / "sweep_pass.png").is_file()
    assert (sweep / "sweep_win_rates.png").is_file()
    assert main(["eval", "replay", str(out), "--sweep", "tau=10,50,100", "--resamples", "20"]) == 0
    assert "p_τ pass@k" in capsys.readouterr().out


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_eval_errors_are_one_line_exit_2(built_sum_problem_dir: Path, tmp_path: Path, capsys):
    out = tmp_path / "ev"
    cases = [
        (["eval", "metrics", str(out)], "is not an evaluation folder"),
        (
            ["eval", "sample", "--model", str(tmp_path / "nope"), "--out", str(out)],
            "is not 'local', a model folder",
        ),
        (
            [
                "eval",
                "sample",
                "--model",
                f"http://127.0.0.1:{closed_port()}/v1",
                "--out",
                str(out),
            ],
            "EndpointError: cannot reach",
        ),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    programs = write_completions(tmp_path / "m.jsonl", [LOOP])
    assert (
        main(
            [
                "eval",
                "sample",
                str(built_sum_problem_dir),
                "--model",
                str(programs),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    for argv, message in [
        (["eval", "metrics", str(out)], "have not been executed yet"),
        (["eval", "run", str(out), "--cap-s", "900"], "--cap-s 900: must be more than 0"),
    ]:
        assert main(argv) == 2
        assert message in capsys.readouterr().err
    assert main(["eval", "run", str(out), "--max-opt-tests", "1"]) == 0
    capsys.readouterr()
    for argv, message in [
        (["eval", "metrics", str(out), "--cap-s", "30"], "at most the executed cap"),
        (["eval", "metrics", str(out), "--baseline", "gpt"], "unknown baseline model 'gpt'"),
        (["eval", "replay", str(out), "--sweep", "speed=1,2"], "AXIS one of"),
        (["eval", "replay", str(out), "--sweep", "alpha=-1,1"], "alpha=-1 is not a valid"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    data = load_eval(out)  # the restriction to one optimization test is kept on reload
    assert len(data.problems["sum-list"].optimization_tests) == 1
    assert all(len(r.results) == 1 for refs in data.references.values() for r in refs.values())
    assert program_sha256(LOOP) == data.samples[0].record.program_sha256


def test_write_report_is_the_metrics_of_the_records(campaign_dir: Path, tmp_path: Path):
    """The library's report: metrics.json holds exactly what evaluate() computes from the
    stored records, the default pass@10 is left out with a note (3 samples per problem), and
    the degenerate-group ratios are there for each reward."""
    report = write_report(campaign_dir, tmp_path / "report")
    data = load_eval(campaign_dir)
    expected = evaluate(replay(data), ks=(1,), baseline="fast")
    document = json.loads(report.metrics_path.read_text())
    assert document["all"] == json.loads(json.dumps(expected.to_dict()))
    assert set(document["by_difficulty"]) == {data.problems["sum-list"].difficulty}
    assert document["settings"] == ReplaySettings().model_dump(mode="json")
    assert set(document["degenerate_group_ratio"]) == {
        "correctness @ qp(p=0.3)",
        "collapsed @ qp(p=0.3)",
    }
    assert report.metrics.ks == (1,) and report.metrics.baseline == "fast"
    assert report.notes == [
        "pass@10 left out: at most 3 conclusive samples per problem (sample with --n 10 or "
        "more for it)"
    ]
    assert report.page == tmp_path / "report" / "index.html" and report.page.is_file()


def test_write_report_refuses_an_asked_for_k_without_samples(campaign_dir: Path, tmp_path):
    with pytest.raises(UsageError, match="at most 3"):
        write_report(campaign_dir, tmp_path, options=MetricOptions(ks=(5,), ks_given=True))
    with pytest.raises(UsageError, match="unknown baseline model 'nope'"):
        write_report(campaign_dir, tmp_path, options=MetricOptions(baseline="nope"))


def test_model_tallies_count_what_ran(campaign_dir: Path):
    data = load_eval(campaign_dir)
    # fast: builtin and loop strictly correct, drops-last fails an optimization test;
    # slow: slow-but-correct and loop strictly correct, print(0) wrong
    assert model_tallies(data) == [ModelTally("fast", 3, 2, 0), ModelTally("slow", 3, 2, 0)]
    assert failing_reference_runs(data) == 0


def test_report_command_builds_an_evaluation_report(campaign_dir: Path, capsys):
    assert main(["report", str(campaign_dir)]) == 0
    out = capsys.readouterr().out
    assert "evaluation" in out and (campaign_dir / "report" / "metrics.json").is_file()


def test_write_report_checks_its_specs_before_reading_the_folder(tmp_path: Path):
    with pytest.raises(UsageError, match=r"`env` 'qp\(p=2\)': "):
        write_report(tmp_path / "not-a-folder", env="qp(p=2)")
    with pytest.raises(UsageError, match="`rewards` 'nope': "):
        write_report(tmp_path / "not-a-folder", rewards=["nope"])
