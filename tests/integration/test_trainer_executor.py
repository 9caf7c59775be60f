"""The reference trainer's executor: the one it holds runs every program, wherever it is.

A short ``execrl train`` run on the real SmolLM2-135M-Instruct gives the same completions and
the same per-step rewards whether its programs run here, on a real ``execrl serve``
subprocess (``--executor http://127.0.0.1:PORT``) or on a real two-node local Ray cluster
(``--executor ray``): the seed fixes the samples, and a verdict does not depend on where it
was reached. Kept tiny (2 steps × 2 prompts × 2 rollouts, 40 new tokens).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration._training import TINY, TRAINING_MARKS
from tests.service._server import running_server
from tests.service.test_open_executor import server_executions

pytestmark = TRAINING_MARKS
ROLLOUTS = 2 * 2 * 2
"""Programs a TINY run executes: steps × prompts × rollouts (no evaluation)."""


def train(out: Path, *extra: str, env: dict[str, str] | None = None) -> str:
    """``execrl train`` on the rlvr preset, TINY; its stdout (the run must succeed)."""
    settings = [arg for item in TINY for arg in ("--set", item)]
    command = ["train", "--preset", "rlvr", *settings, "--out", str(out), *extra]
    done = subprocess.run(
        [sys.executable, "-m", "execrl.cli.main", *command],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def rollouts(run: Path) -> list[tuple]:
    """What each rollout was and earned: (step, problem, completion, reward, passed)."""
    rows = [json.loads(line) for line in (run / "rollouts.jsonl").read_text().splitlines()]
    return [(r["step"], r["problem_id"], r["completion"], r["reward"], r["passed"]) for r in rows]


def step_rewards(run: Path) -> list[tuple[int, float]]:
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [(r["step"], r["reward_mean"]) for r in rows]


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("local") / "run"
    assert "programs run on: local-forkserver" in train(run, "--executor", "local")
    assert len(rollouts(run)) == ROLLOUTS
    return run


@pytest.fixture
def opened_pools(monkeypatch) -> list:
    """Every LocalExecutor created while the test runs (the real class, counted)."""
    from execrl.sandbox.pool import LocalExecutor

    opened: list[LocalExecutor] = []
    original = LocalExecutor.__init__

    def counted(self, *args, **kwargs):
        original(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(LocalExecutor, "__init__", counted)
    return opened


def test_the_trainers_own_executor_runs_every_program(tmp_path, opened_pools):
    """No scoring call opens a pool of its own (it ignored config.workers and left the
    trainer's pool idle): one LocalExecutor, with the configured workers, for the run."""
    from execrl.rl.train import Trainer, load_config

    config = load_config("rlvr", None, [*TINY, "steps=1", "workers=1"])
    with Trainer(config, tmp_path, progress=False) as trainer:
        assert trainer.scorer.executor is trainer.executor
        trainer.train()
    assert [e.workers for e in opened_pools] == [1]
    assert len((tmp_path / "rollouts.jsonl").read_text().splitlines()) == ROLLOUTS // 2


def test_an_executor_given_to_an_async_trainer_runs_its_workers_programs_too(
    tmp_path, opened_pools
):
    from execrl.problems.io import load_problem
    from execrl.rl.train import Trainer, load_config
    from execrl.sandbox.pool import LocalExecutor
    from execrl.sandbox.protocol import ExecutionRequest

    async_ = ["steps=1", "async.enabled=true", "async.queue_size=2", "prompts_per_step=1"]
    config = load_config("rlvr", None, [*TINY, *async_])
    with LocalExecutor(workers=1) as given:
        with Trainer(config, tmp_path, executor=given, progress=False) as trainer:
            trainer.train()
            assert trainer.worker_scorer.executor is given
        assert opened_pools == [given]  # the rollout worker opened no pool of its own
        problem = load_problem("starter", "is-even")  # and the trainer left it open:
        reference = ExecutionRequest.for_problem(problem, problem.references[0].code)
        assert given.execute(reference).all_passed


def test_a_run_on_execrl_serve_earns_the_local_rewards(local_run, tmp_path):
    from execrl.service.remote import RemoteExecutor

    with running_server(workers=2) as server:
        before = server_executions(server)
        printed = train(tmp_path / "run", "--executor", server.url)
        assert server_executions(server) - before == ROLLOUTS  # every program, on the server
    assert f"programs run on: {RemoteExecutor.backend}, 2 workers" in printed
    assert rollouts(tmp_path / "run") == rollouts(local_run)
    assert step_rewards(tmp_path / "run") == step_rewards(local_run)


def test_a_run_on_a_ray_cluster_earns_the_local_rewards(local_run, tmp_path):
    pytest.importorskip("ray")
    from tests.service._ray_cluster import ray_cluster

    with ray_cluster(nodes=2) as cluster:
        printed = train(tmp_path / "run", "--executor", "ray", env={"RAY_ADDRESS": cluster.address})
    assert "programs run on: ray, 2 workers" in printed  # one sandbox worker on each node
    assert rollouts(tmp_path / "run") == rollouts(local_run)
    assert step_rewards(tmp_path / "run") == step_rewards(local_run)
