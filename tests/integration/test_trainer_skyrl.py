"""execrl as a SkyRL gym environment, driven through skyrl-gym's own ``make`` / ``init`` /
``step`` / ``get_metrics`` and its metric aggregation, on a real sandbox (and a real ``execrl
serve`` for the executor-spec and inconclusive cases).

Each environment is made as SkyRL's generator makes it: ``skyrl_gym.make(env_class,
env_config=<config>, extras=<the dataset row without prompt and env_class, plus max_turns>)``
and ``init(prompt)`` before the first step. Rewards are compared with execrl's own
(``execrl.rewards.score``) for the same program.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

skyrl_gym = pytest.importorskip("skyrl_gym", reason="the SkyRL environment needs skyrl-gym")

from omegaconf import OmegaConf  # noqa: E402 - comes with skyrl-gym
from skyrl_gym.metrics import aggregate_for_environment  # noqa: E402

from execrl.envs.multiturn import default_prompt  # noqa: E402
from execrl.errors import ConfigError, ExecrlError  # noqa: E402
from execrl.integrations.executors import close_process_executors  # noqa: E402
from execrl.integrations.rows import SCORE_KEYS, row_label  # noqa: E402
from execrl.integrations.skyrl import (  # noqa: E402
    ENV_ID,
    MULTITURN_ENV_ID,
    ExecrlCodeEnv,
    ExecrlMultiTurnCodeEnv,
    register_environments,
    write_skyrl_dataset,
)
from execrl.problems import load_bundled  # noqa: E402
from execrl.problems.models import ReferenceLabel  # noqa: E402
from execrl.rewards import score  # noqa: E402
from execrl.sandbox.pool import LocalExecutor  # noqa: E402

PROBLEM_ID = "balanced-brackets"
WRONG_ON_AN_EXAMPLE = 'import sys\nfor _ in sys.stdin.read().split()[1:]:\n    print("NO")\n'
CRASHING = "import sys\nprint(1 / 0)\n"
SLOW = "while True:\n    pass\n"


def _server_module():
    """tests/service/_server.py (openrlhf 0.11.2 installs a top-level ``tests`` package into
    site-packages, which hides this repository's ``tests.service``)."""
    try:
        from tests.service import _server
    except ModuleNotFoundError:
        path = Path(__file__).parents[1] / "service" / "_server.py"
        spec = importlib.util.spec_from_file_location("_execrl_tests_server", path)
        _server = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = _server
        spec.loader.exec_module(_server)
    return _server


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(workers=2) as pool:
        yield pool


@pytest.fixture(scope="module")
def problem():
    """The bundled problem cut to three tests (two visible examples) and a 0.5 s limit, so a
    program that never ends is decided in seconds."""
    (full,) = load_bundled([PROBLEM_ID])
    tests = [t for t in full.tests if t.id in ("example-1", "example-2", "edge-1")]
    return full.model_copy(update={"tests": tests, "time_limit_s": 0.5})


@pytest.fixture(scope="module")
def programs(problem):
    return {
        "correct": problem.references_labelled(ReferenceLabel.CORRECT)[0].code,
        "wrong": WRONG_ON_AN_EXAMPLE,
        "crashing": CRASHING,
        "slow": SLOW,
    }


def _inline_label(problem) -> str:
    label = row_label(problem, env="mc", reward="collapsed")
    label["problem"] = problem.model_dump(mode="json")
    del label["problem_id"]
    return json.dumps(label)


def _extras(ground_truth, max_turns: int = 1, **extra_info) -> dict:
    """A dataset row as SkyRL's generator hands it to the environment."""
    return {
        "data_source": "execrl/test",
        "reward_spec": {"method": "rule", "ground_truth": ground_truth},
        "extra_info": {"split": "train", "index": 0, **extra_info},
        "max_turns": max_turns,
    }


def _completion(code: str) -> str:
    return f"Here is my solution.\n```python\n{code.rstrip()}\n```\nIt reads all lines."


def _make(env_id: str, extras: dict, **config):
    env = skyrl_gym.make(env_id, env_config=config, extras=extras)
    prompt, info = env.init([{"role": "user", "content": "solve it"}])
    assert prompt == [{"role": "user", "content": "solve it"}]
    return env, info


@pytest.mark.parametrize("kind", ["correct", "wrong", "crashing", "slow"])
def test_single_turn_step_returns_execrls_reward(kind, problem, programs, executor):
    env, info = _make(ENV_ID, _extras(_inline_label(problem)), executor=executor)
    assert isinstance(env, ExecrlCodeEnv) and info["max_turns"] == 1
    out = env.step(_completion(programs[kind]))
    (expected,) = score(problem, programs[kind], executor=executor)
    assert expected.reward is not None
    assert out["reward"] == expected.reward == (1.0 if kind == "correct" else -1.0)
    assert out["done"] is True and out["observations"] == []
    meta = out["metadata"]
    status = {"correct": "success", "wrong": "wrong_answer"}
    status |= {"crashing": "runtime_error", "slow": "timeout"}
    assert (meta["status"], meta["inconclusive"], meta["reward"]) == (
        status[kind],
        False,
        expected.reward,
    )
    assert meta["program"].strip() == programs[kind].strip()
    assert tuple(meta["metrics"]) == SCORE_KEYS
    metrics = env.get_metrics()
    assert metrics["score"] == expected.reward and metrics["inconclusive"] == 0.0
    assert metrics["passed"] == float(kind == "correct") and metrics["turns"] == 1.0
    passed = {"correct": 1.0, "wrong": 1 / 3}  # it answers example-2 ("NO") right
    assert metrics["tests_passed_fraction"] == pytest.approx(passed.get(kind, 0.0))


def test_multi_turn_wrong_then_correct(problem, programs, executor):
    extras = _extras(_inline_label(problem), max_turns=3)
    env, info = _make(MULTITURN_ENV_ID, extras, executor=executor)
    assert isinstance(env, ExecrlMultiTurnCodeEnv) and info["max_turns"] == 3
    first = env.step(_completion(programs["wrong"]))
    assert (first["done"], first["reward"]) == (False, 0.0)
    assert first["metadata"]["reward"] == -1.0 and first["metadata"]["status"] == "wrong_answer"
    ((message),) = first["observations"]
    assert message["role"] == "user"
    text = message["content"]
    # the failing visible test, with its input and expected output, and the turns left
    example = next(t for t in problem.tests if t.id == "example-1")
    assert "example-1" in text and example.input.strip() in text
    assert example.output.strip() in text
    second = env.step(_completion(programs["correct"]))
    assert (second["done"], second["reward"], second["observations"]) == (True, 1.0, [])
    assert env.get_metrics()["turns"] == 2.0 and env.get_metrics()["passed"] == 1.0


def test_multi_turn_ends_when_turns_run_out_with_the_last_reward(problem, programs, executor):
    env, _ = _make(
        MULTITURN_ENV_ID, _extras(_inline_label(problem), max_turns=2), executor=executor
    )
    first = env.step(_completion(programs["wrong"]))
    last = env.step(_completion(programs["crashing"]))
    assert (first["done"], first["reward"]) == (False, 0.0)
    assert (last["done"], last["reward"], last["observations"]) == (True, -1.0, [])
    assert env.get_metrics()["turns"] == 2.0 and env.get_metrics()["passed"] == 0.0


def test_max_turns_comes_from_extras_then_the_row_then_env_config(problem):
    label = _inline_label(problem)
    config = {"max_turns": 5}
    row_turns = _extras(label, max_turns=2)
    assert skyrl_gym.make(MULTITURN_ENV_ID, env_config=config, extras=row_turns).max_turns == 2
    no_extras = {"reward_spec": {"ground_truth": label}, "extra_info": {"max_turns": 4}}
    assert skyrl_gym.make(MULTITURN_ENV_ID, env_config=config, extras=no_extras).max_turns == 4
    bare = {"reward_spec": {"ground_truth": label}}
    assert skyrl_gym.make(MULTITURN_ENV_ID, env_config=config, extras=bare).max_turns == 5
    assert skyrl_gym.make(MULTITURN_ENV_ID, env_config=None, extras=bare).max_turns == 3
    # the single-turn id is one step whatever SkyRL's generator.max_turns says
    assert skyrl_gym.make(ENV_ID, env_config=None, extras=row_turns).max_turns == 1
    with pytest.raises(ConfigError, match="max_turns"):
        skyrl_gym.make(MULTITURN_ENV_ID, env_config=None, extras={**bare, "max_turns": 0})


def test_env_config_as_skyrl_passes_it_and_an_executor_spec(problem, programs):
    # SkyRL hands environment.skyrl_gym.<env_class> as an OmegaConf DictConfig; the row's
    # extra_info overrides it (here the reward), and "local" opens this process's pool.
    config = OmegaConf.create({"executor": "local", "workers": 1, "reward": "correctness"})
    extras = _extras(_inline_label(problem), reward="collapsed")
    try:
        env = skyrl_gym.make(ENV_ID, env_config=config, extras=extras)
        out = env.step(_completion(programs["wrong"]))
    finally:
        close_process_executors()
    assert out["reward"] == -1.0 and env.row.reward == "collapsed"
    with pytest.raises(ConfigError, match="unknown keys executr"):
        skyrl_gym.make(ENV_ID, env_config={"executr": "local"}, extras=extras)
    with pytest.raises(ConfigError, match=r"env_config\['feedback'\]`: visible"):
        skyrl_gym.make(ENV_ID, env_config={"feedback": {"visible": "some"}}, extras=extras)
    shown = skyrl_gym.make(ENV_ID, env_config={"feedback": {"visible": "all"}}, extras=extras)
    assert shown.feedback.visible == "all"


def test_a_reference_label_runs_on_execrl_serve(problem, programs):
    # A bundled problem named by id, executed on a real server given by its URL.
    pytest.importorskip("fastapi", reason="execrl serve needs the serve extra")
    (full,) = load_bundled([PROBLEM_ID])
    extras = _extras(json.dumps({"problem_id": PROBLEM_ID}))
    correct = full.references_labelled(ReferenceLabel.CORRECT)[0].code
    wrong = full.references_labelled(ReferenceLabel.INCORRECT)[0].code
    with _server_module().running_server(workers=2) as server:
        try:
            rewards = []
            for code in (correct, wrong):
                env, _ = _make(ENV_ID, extras, executor=server.url)
                rewards.append(env.step(_completion(code))["reward"])
        finally:
            close_process_executors()
    assert rewards == [1.0, -1.0]


def test_an_inconclusive_execution_is_marked_never_a_silent_zero(problem, programs):
    # A real server that stops answering: the RemoteExecutor gives up, the record is
    # inconclusive; SkyRL gets 0.0 with inconclusive=True, and the multi-turn episode goes on.
    pytest.importorskip("fastapi", reason="execrl serve needs the serve extra")
    from execrl.service.remote import RemoteExecutor

    label = _inline_label(problem)
    with _server_module().running_server(workers=1) as server:
        remote = RemoteExecutor(server.url, retries=0, retry_budget_s=0, connect_timeout_s=1)
    try:
        single, _ = _make(ENV_ID, _extras(label), executor=remote)
        out = single.step(_completion(programs["correct"]))
        multi, _ = _make(MULTITURN_ENV_ID, _extras(label, max_turns=2), executor=remote)
        first = multi.step(_completion(programs["correct"]))
    finally:
        remote.close()
    assert (out["reward"], out["done"]) == (0.0, True)
    meta = out["metadata"]
    assert meta["inconclusive"] is True and meta["reward"] is None
    assert meta["status"] == "inconclusive" and meta["detail"]
    assert meta["metrics"]["inconclusive"] == 1.0
    metrics = single.get_metrics()
    assert (metrics["inconclusive"], metrics["score"], metrics["passed"]) == (1.0, 0.0, 0.0)
    assert (first["done"], first["reward"], first["metadata"]["inconclusive"]) == (False, 0.0, True)
    assert "sandbox failure, not your program" in first["observations"][0]["content"]
    # skyrl-gym's per-env aggregation: the mean, and the score of conclusive episodes only
    conclusive = {**metrics, "inconclusive": 0.0, "score": 1.0}
    aggregated = aggregate_for_environment(ENV_ID, [metrics, conclusive])
    assert aggregated["inconclusive"] == 0.5 and aggregated["score"] == 0.5
    assert aggregated["conclusive_score"] == 1.0


@pytest.mark.parametrize(
    ("extras", "match"),
    [
        ({}, r"extras\['reward_spec'\]\['ground_truth'\]"),
        ({"reward_spec": {"ground_truth": "not json"}}, "not execrl's JSON"),
        ({"reward_spec": {"ground_truth": '{"env": "mc"}'}}, "names no problem"),
        ({"reward_spec": {"ground_truth": '{"problem_id": "no-such-problem"}'}}, "no-such"),
    ],
)
def test_a_bad_label_is_a_clear_execrl_error(extras, match):
    with pytest.raises(ExecrlError, match=match):
        skyrl_gym.make(ENV_ID, env_config=None, extras=extras)


def test_registration_is_idempotent():
    register_environments()
    register_environments()
    assert skyrl_gym.spec(ENV_ID).entry_point == "execrl.integrations.skyrl:ExecrlCodeEnv"
    assert skyrl_gym.spec(MULTITURN_ENV_ID).entry_point.endswith(":ExecrlMultiTurnCodeEnv")


@pytest.mark.parametrize("inline", [True, False])
def test_dataset_rows_read_back_drive_make_and_step(inline, problem, programs, executor, tmp_path):
    (full,) = load_bundled([PROBLEM_ID])
    problems = [problem] if inline else [full]
    path = write_skyrl_dataset(problems, tmp_path / "train.parquet", inline=inline, max_turns=2)
    (row,) = pq.read_table(path).to_pylist()
    assert set(row) == {"data_source", "prompt", "env_class", "reward_spec", "extra_info"}
    assert row["env_class"] == MULTITURN_ENV_ID and row["prompt"] == default_prompt(full)
    assert row["reward_spec"]["method"] == "rule"
    assert row["extra_info"]["problem_id"] == PROBLEM_ID and row["extra_info"]["max_turns"] == 2
    label = json.loads(row["reward_spec"]["ground_truth"])
    assert ("problem" in label) is inline and ("problem_id" in label) is not inline
    # what SkyRL's PromptDataset and generator do with the row
    prompt, env_class = row.pop("prompt"), row.pop("env_class")
    env = skyrl_gym.make(env_class, env_config={"executor": executor}, extras=row)
    env.init(prompt)
    assert env.max_turns == 2 and env.row.problem.tests == problems[0].tests
    first = env.step(_completion(programs["wrong"]))
    second = env.step(_completion(programs["correct"]))
    assert (first["done"], second["done"], second["reward"]) == (False, True, 1.0)
    single = write_skyrl_dataset(problems, tmp_path / "one.parquet", inline=inline)
    assert pq.read_table(single).to_pylist()[0]["env_class"] == ENV_ID
    with pytest.raises(ConfigError, match="max_turns"):
        write_skyrl_dataset(problems, tmp_path / "bad.parquet", max_turns=0)


def test_a_solver_answer_row_gets_the_solver_reward():
    # {"answer": ...} labels: the solver-verified reward (docs/solver-rewards.md), the same
    # number verl's compute_solver_score gives.
    for module in ("highspy", "pulp", "ortools"):
        pytest.importorskip(module)
    from execrl.integrations.verl import compute_solver_score
    from execrl.problems.optim import load_optim_problems
    from execrl.rewards.solver import solver_executor

    fixtures = Path(__file__).parents[1] / "fixtures" / "optim" / "problems.jsonl"
    furniture = {p.id: p for p in load_optim_problems(fixtures)}["furniture-lp"]
    truth = json.dumps({"answer": furniture.answer})
    with solver_executor(workers=1) as pool:
        for response, status in (
            (furniture.reference, "correct"),
            (furniture.incorrect[3].response, "wrong_answer"),
        ):
            env, _ = _make(ENV_ID, _extras(truth), executor=pool)
            out = env.step(response)
            expected = compute_solver_score("execrl", response, truth, executor=pool)["score"]
            assert out["reward"] == expected and out["metadata"]["status"] == status
            assert env.get_metrics()["passed"] == float(status == "correct")
