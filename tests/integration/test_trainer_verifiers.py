"""execrl as a verifiers 0.4 environment, run by verifiers' own evaluation loop (``run_eval``,
what ``vf-eval`` runs; ``env.serving`` + ``env.run_slot``; the ``vf-eval`` script itself)
against a scripted OpenAI-compatible endpoint on 127.0.0.1, with programs run in execrl's
real sandbox: each rollout's reward equals ``execrl.rewards.score`` on the same program."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

vf = pytest.importorskip("verifiers.v1", reason="verifiers 0.4 is not installed")

from execrl.errors import ConfigError  # noqa: E402
from execrl.integrations.executors import close_process_executors  # noqa: E402
from execrl.integrations.verifiers import (  # noqa: E402
    TASKSET_ID,
    aevaluate,
    environment_config,
    load_environment,
)
from execrl.problems import load_bundled  # noqa: E402
from execrl.problems.models import ReferenceLabel  # noqa: E402
from execrl.rewards import score  # noqa: E402
from execrl.sandbox.pool import LocalExecutor  # noqa: E402
from tests._chat_endpoint import ChatEndpoint  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "balanced-brackets"
KEY_VAR = "EXECRL_VF_TEST_KEY"
PROGRAMS = {
    "wrong": "print('NO')\n",
    "crash": "raise SystemExit(3)\n",
    # one test (edge-1) runs past its time limit, the others are answered wrong
    "slow": (
        "import sys, time\ndata = sys.stdin.read()\n"
        "if data.startswith('25\\n([)]'):\n    time.sleep(30)\nprint('NO')\n"
    ),
}


def fenced(program: str) -> str:
    return f"Here it is.\n```python\n{program}```\n"


@pytest.fixture(scope="module")
def problem():
    return load_bundled([PROBLEM])[0]


@pytest.fixture(scope="module")
def correct(problem) -> str:
    return problem.references_labelled(ReferenceLabel.CORRECT)[0].code


@pytest.fixture(autouse=True)
def _api_key(monkeypatch):
    monkeypatch.setenv(KEY_VAR, "scripted-key")
    yield
    close_process_executors()  # the local pool the env opened for its spec


def run_eval(env_config, endpoint: ChatEndpoint, tmp_path: Path, rollouts: int = 1):
    """verifiers' own eval loop, as ``vf-eval`` runs it (no upload, no dashboard)."""
    from verifiers.v1.cli.eval.runner import run_eval as vf_run_eval
    from verifiers.v1.configs.cli.eval import EvalConfig

    config = EvalConfig(
        env=env_config,
        model="scripted",
        client={"type": "eval", "base_url": endpoint.url, "api_key_var": KEY_VAR},
        num_rollouts=rollouts,
        push=False,
        rich=None,
        output_dir=tmp_path,
        run={"name": "test"},
    )
    episodes = asyncio.run(vf_run_eval(config))
    return [trace for episode in episodes for trace in episode.traces], tmp_path / "test"


def direct_rewards(problem, programs: dict[str, str]) -> dict[str, float | None]:
    with LocalExecutor(workers=2) as executor:
        scored = score(problem, list(programs.values()), executor=executor)
    return {name: one.reward for name, one in zip(programs, scored, strict=True)}


def test_single_turn_rewards_equal_execrl_score(problem, correct, tmp_path):
    programs = {"correct": correct, **PROGRAMS}
    order = list(programs)
    endpoint = ChatEndpoint(lambda body: fenced(programs[order[len(endpoint.bodies) - 1]]))
    config = environment_config("bundled", ids=[PROBLEM], workers=2)
    with endpoint:
        traces, run_dir = run_eval(config, endpoint, tmp_path, rollouts=len(programs))
    expected = direct_rewards(problem, programs)
    assert expected["correct"] == 1.0 and expected["wrong"] == -1.0
    by_program = {}
    for trace in traces:
        (name,) = [
            n
            for n, p in programs.items()
            if fenced(p).strip() == trace.messages[-1].content.strip()
        ]
        by_program[name] = trace
    assert sorted(by_program) == sorted(programs)  # one rollout each
    for name, trace in by_program.items():
        assert trace.ok and trace.num_turns == 1
        assert trace.rewards["execrl"].score == expected[name], name
        assert trace.metrics["inconclusive"] == 0.0
        assert trace.metrics["passed"] == float(name == "correct")
        assert trace.info["execrl"]["reward"] == expected[name]
    assert by_program["crash"].info["execrl"]["status"] == "runtime_error"
    assert 0.0 < by_program["slow"].metrics["tests_passed_fraction"] < 1.0
    # the prompt is execrl's: the system message and the statement
    assert endpoint.bodies[0]["messages"][0]["role"] == "system"
    assert "Balanced Brackets" in endpoint.bodies[0]["messages"][1]["content"]
    # the results file vf-eval writes
    saved = [json.loads(line) for line in (run_dir / "traces.jsonl").read_text().splitlines()]
    rewards = sorted(t["rewards"]["execrl"]["score"] for e in saved for t in e["traces"])
    assert rewards == sorted(expected.values())


def test_repair_episode_feeds_back_the_failing_test(problem, correct, tmp_path):
    def script(body: dict[str, Any]) -> str:
        users = sum(m["role"] == "user" for m in body["messages"])
        return fenced(PROGRAMS["wrong"] if users == 1 else correct)

    config = environment_config("bundled", ids=[PROBLEM], multi_turn=True, max_turns=3)
    with ChatEndpoint(script) as endpoint:
        (trace,), _ = run_eval(config, endpoint, tmp_path)
    assert trace.ok and trace.num_turns == 2 and len(endpoint.bodies) == 2
    roles = [m.role for m in trace.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant"]
    feedback = trace.messages[3].content
    assert "failed: wrong answer" in feedback and "Expected output" in feedback
    assert "([]{})" in feedback  # the failing test's input
    attempts = [a["reward"] for a in trace.info["execrl_attempts"]]
    assert attempts == [-1.0, 1.0]  # the final attempt is scored once, not run again
    assert trace.rewards["execrl"].score == 1.0 and trace.metrics["passed"] == 1.0


def test_repair_episode_stops_at_max_turns(tmp_path):
    config = environment_config("bundled", ids=[PROBLEM], multi_turn=True, max_turns=2)
    with ChatEndpoint(lambda body: fenced(PROGRAMS["crash"])) as endpoint:
        (trace,), _ = run_eval(config, endpoint, tmp_path)
    assert trace.ok and trace.num_turns == 2 and len(endpoint.bodies) == 2
    assert "failed: runtime error" in trace.messages[3].content
    assert "exit code 3" in trace.messages[3].content
    assert [a["status"] for a in trace.info["execrl_attempts"]] == ["runtime_error"] * 2
    assert trace.rewards["execrl"].score == -1.0


def test_inconclusive_is_a_failed_rollout_not_a_zero(correct):
    from execrl.service.remote import RemoteExecutor
    from tests.service._server import running_server

    # a server that goes away: the execution is inconclusive, not the program's fault
    with running_server(workers=1) as server:
        remote = RemoteExecutor(server.url, retries=0, retry_budget_s=2, fallback=False)
    try:
        envs = [load_environment(ids=[PROBLEM], executor=remote, multi_turn=multi)
                for multi in (False, True)]  # fmt: skip
        with ChatEndpoint(lambda body: fenced(correct)) as endpoint:
            episodes = [
                asyncio.run(aevaluate(env, model="scripted", base_url=endpoint.url,
                                      api_key_var=KEY_VAR))[0]
                for env in envs
            ]  # fmt: skip
    finally:
        remote.close()
    assert len(endpoint.bodies) == 2  # one each: no feedback turn after a sandbox failure
    for env, episode in zip(envs, episodes, strict=True):
        (trace,) = episode.traces
        assert not trace.ok and not env.complete(episode)  # vf-eval --resume reruns it
        assert trace.rewards["execrl"] is None  # unscored, not 0.0
        assert trace.metrics["inconclusive"] == 1.0 and trace.metrics["passed"] == 0.0
        assert trace.info["execrl"]["inconclusive"] and trace.info["execrl"]["reward"] is None
        assert trace.last_error.type == "TaskError"
        assert "InconclusiveExecution" in trace.last_error.message
        assert "the sandbox, not the program, failed" in trace.last_error.message


def test_executor_object_and_problem_list(problem, correct):
    with LocalExecutor(workers=1) as executor:
        env = load_environment([problem], executor=executor, reward="correctness")
        with ChatEndpoint(lambda body: fenced(PROGRAMS["wrong"])) as endpoint:
            (episode,) = asyncio.run(
                aevaluate(env, model="scripted", base_url=endpoint.url, api_key_var=KEY_VAR)
            )
        (expected,) = score(problem, PROGRAMS["wrong"], executor=executor, reward="correctness")
    (trace,) = episode.traces
    assert trace.ok and trace.rewards["execrl"].score == expected.reward
    assert json.loads(trace.task.data.answer)["reward"] == "correctness"


def test_config_mistakes_are_named():
    with pytest.raises(ConfigError, match="`ids`: no problem 'nope'"):
        list(load_environment(ids=["nope"]).taskset)
    with pytest.raises(ConfigError, match="unknown reward 'dense'"):
        list(load_environment(reward="dense").taskset)
    with pytest.raises(ConfigError, match="`max_turns`=1"):
        environment_config(multi_turn=True, max_turns=1)


def test_vf_eval_runs_the_example_package(correct, tmp_path):
    """The ``vf-eval`` console script on ``examples/verifiers`` (on PYTHONPATH, not installed)."""
    vf_eval = Path(sys.executable).with_name("vf-eval")
    if not vf_eval.exists():
        pytest.skip("the vf-eval script is not installed next to this Python")
    environ = {**os.environ, "PYTHONPATH": str(ROOT / "examples" / "verifiers")}
    command = [str(vf_eval), TASKSET_ID, "--env.taskset.ids", json.dumps([PROBLEM])]
    command += ["--env.taskset.task.workers", "1", "-m", "scripted", "-r", "2"]
    command += ["--client.api-key-var", KEY_VAR, "--no-push", "--no-rich"]
    command += ["-o", str(tmp_path), "--run.name", "cli"]
    with ChatEndpoint(lambda body: fenced(correct)) as endpoint:
        done = subprocess.run(
            [*command, "--client.base-url", endpoint.url],
            capture_output=True,
            text=True,
            env=environ,
            cwd=tmp_path,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    saved = [
        json.loads(line) for line in (tmp_path / "cli" / "traces.jsonl").read_text().splitlines()
    ]
    traces = [t for episode in saved for t in episode["traces"]]
    assert [t["rewards"]["execrl"]["score"] for t in traces] == [1.0, 1.0]
    assert all(t["metrics"]["passed"] == 1.0 and t["ok"] for t in traces)
    assert len(endpoint.bodies) == 2
