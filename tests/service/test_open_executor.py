"""``open_executor`` and ``--executor``: one spec string chooses where programs run.

Real backends only: a LocalExecutor, a real ``execrl serve`` subprocess and a real local Ray
cluster; the CLI runs as a user runs it (a subprocess). A spec that names no backend, and a
local-only setting given with a server URL, are one-line UsageErrors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execrl.errors import UsageError
from execrl.problems.io import load_problem
from execrl.sandbox.isolation import SandboxConfig
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest
from execrl.service.open import ExecutorSpec, open_executor, parse_executor_spec
from tests.service._server import running_server


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as running:
        yield running


@pytest.fixture(scope="module")
def sum_list():
    return load_problem("starter", "sum-list")


WRONG = "def sum_list(nums):\n    return -1\n"
"""A wrong answer on every test of sum-list (a call problem: ``sum_list(nums)``)."""


def requests_for(problem) -> list[ExecutionRequest]:
    """A correct reference, a wrong program and a crashing one: three different verdicts."""
    correct = next(r.code for r in problem.references if r.label.value == "correct")
    return [
        ExecutionRequest.for_problem(problem, program, program_name=name)
        for name, program in (
            ("correct", correct),
            ("wrong", WRONG),
            ("crash", "raise SystemExit(3)\n"),
        )
    ]


def verdicts(records) -> list[list[tuple[str, str]]]:
    return [[(t.test_id, t.status.value) for t in r.results] for r in records]


# -- parsing ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        (None, ExecutorSpec("local")),
        ("", ExecutorSpec("local")),
        ("local", ExecutorSpec("local")),
        ("ray", ExecutorSpec("ray")),
        ("ray:auto", ExecutorSpec("ray", address="auto")),
        ("ray:10.0.0.5:6379", ExecutorSpec("ray", address="10.0.0.5:6379")),
        ("ray://head:10001", ExecutorSpec("ray", address="ray://head:10001")),
        ("http://a:8000", ExecutorSpec("remote", urls=("http://a:8000",))),
        (
            "http://a:8000/, https://b:9000",
            ExecutorSpec("remote", urls=("http://a:8000", "https://b:9000")),
        ),
    ],
)
def test_every_accepted_form_parses_to_its_backend(spec, parsed):
    assert parse_executor_spec(spec) == parsed


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("kubernetes", "'kubernetes'"),
        ("ray:", "needs an address"),
        ("ray://", "needs HOST:PORT"),
        ("ftp://a:1", "'ftp://a:1'"),
        ("http://a:1,", "'' is not an http(s)://HOST:PORT URL"),
        ("a:8000", "'a:8000'"),
    ],
)
def test_a_spec_naming_no_backend_is_one_usage_error_listing_the_forms(spec, says):
    with pytest.raises(UsageError) as caught:
        parse_executor_spec(spec)
    message = str(caught.value)
    assert says in message and "'ray:HOST:PORT'" in message and "http://host:port" in message
    assert "\n" not in message


# -- local ---------------------------------------------------------------------------------------
def test_no_spec_is_a_local_pool_with_the_workers_asked_for(sum_list):
    with open_executor(None, workers=2) as executor:
        assert isinstance(executor, LocalExecutor) and executor.workers == 2
        records = list(executor.run_batch(requests_for(sum_list), progress=False))
    assert [r.all_passed for r in records] == [True, False, False]
    assert records[1].results[0].status.value == "wrong_answer"
    assert records[2].results[0].status.value == "runtime_error"


def test_the_environment_does_not_choose_the_library_backend(monkeypatch):
    monkeypatch.setenv("EXECRL_EXECUTOR", "http://127.0.0.1:9")  # only the CLI reads it
    with open_executor(workers=1) as executor:
        assert executor.backend == LocalExecutor.backend


# -- remote --------------------------------------------------------------------------------------
def test_a_url_is_a_remote_executor_with_the_local_verdicts(server, sum_list):
    requests = requests_for(sum_list)
    with LocalExecutor(workers=2) as local:
        expected = verdicts(local.run_batch(requests, progress=False))
    with open_executor(server.url) as executor:
        assert executor.backend != LocalExecutor.backend
        assert executor.workers == 2  # the server's, from /v1/info
        assert verdicts(executor.run_batch(requests, progress=False)) == expected


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"workers": 4}, "runs the workers it was started with (got workers=4)"),
        ({"config": SandboxConfig()}, "uses the sandbox settings"),
    ],
)
def test_a_local_setting_with_a_url_is_refused_not_ignored(settings, says):
    with pytest.raises(UsageError, match=r"executor http://127\.0\.0\.1:9: ") as caught:
        open_executor("http://127.0.0.1:9", **settings)
    assert says in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "blocked", "extra"),
    [("http://127.0.0.1:9", "httpx", "execrl[serve]"), ("ray", "ray", "execrl[ray]")],
)
def test_a_missing_extra_names_what_to_install(spec, blocked, extra):
    code = (
        f"import sys; sys.modules[{blocked!r}] = None\n"  # the import fails as if not installed
        "from execrl.errors import ExecrlError\n"
        "from execrl.service.open import open_executor\n"
        "try:\n"
        f"    open_executor({spec!r})\n"
        "except ExecrlError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert extra in done.stdout and len(done.stdout.strip().splitlines()) == 1


# -- the CLI -------------------------------------------------------------------------------------
def execrl(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "execrl.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def server_executions(server) -> int:
    """How many requests the server has executed (its Prometheus latency histogram)."""
    with server.client() as client:
        text = client.get("/metrics").text
    (line,) = [x for x in text.splitlines() if x.startswith("execrl_execution_seconds_count ")]
    return int(float(line.split()[1]))


def test_score_runs_the_references_on_the_server_as_it_does_here(server, sum_list, tmp_path):
    rows, ran = {}, {}
    for where, extra in (("local", ["--jobs", "2"]), ("remote", ["--executor", server.url])):
        out = tmp_path / f"{where}.jsonl"
        before = server_executions(server)
        done = execrl("score", "starter", "--id", "sum-list", "--out", str(out), *extra)
        assert done.returncode == 0, done.stdout + done.stderr
        ran[where] = server_executions(server) - before
        rows[where] = [json.loads(line) for line in out.read_text().splitlines()]
    # every reference on every test, each test one request (a test's verdict stands alone)
    assert ran == {"local": 0, "remote": len(sum_list.references) * len(sum_list.tests)}
    for remote, local in zip(rows["remote"], rows["local"], strict=True):
        assert (remote["reference"], remote["as_expected"]) == (local["reference"], True)
        statuses = lambda row: [t["status"] for t in row["record"]["results"]]  # noqa: E731
        assert statuses(remote) == statuses(local)


def test_the_environment_variable_is_the_flags_default(server, tmp_path: Path):
    program = tmp_path / "wrong.py"
    program.write_text(WRONG)
    done = execrl(
        "run", "sum-list", str(program), "--source", "starter", env={"EXECRL_EXECUTOR": server.url}
    )
    assert done.returncode == 1, done.stdout + done.stderr  # a wrong answer, judged remotely
    assert "wrong_answer" in done.stdout and "0/6 passed" in done.stdout


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["score", "starter", "--executor", "kubernetes"], {}, "--executor: executor 'kubernetes'"),
        (["problems", "check", "starter"], {"EXECRL_EXECUTOR": "ray:"}, "$EXECRL_EXECUTOR:"),
        (
            ["problems", "check", "starter", "--jobs", "2", "--executor", "http://127.0.0.1:9"],
            {},
            "--jobs sets up sandboxes this command starts",
        ),
        (
            ["score", "starter", "--site-path", "/tmp", "--executor", "http://127.0.0.1:9"],
            {},
            "--site-path sets up sandboxes",
        ),
        (["timing", "campaign", "starter", "--executor", "ray:"], {}, "needs an address"),
        (["train", "--executor", "kubernetes"], {}, "--executor: executor 'kubernetes'"),
        (
            ["train", "--set", "workers=2", "--executor", "http://127.0.0.1:9"],
            {},
            "workers: a server runs its own workers; leave it out with a URL",
        ),
    ],
)
def test_cli_mistakes_are_one_line_before_anything_starts(args, env, message):
    done = execrl(*args, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "command",
    [
        ["score"],
        ["run"],
        ["problems", "check"],
        ["problems", "build"],
        ["eval", "run"],
        ["timing", "campaign"],
        ["solver", "score"],
        ["solver", "eval"],
        ["solver", "check"],
        ["train"],
    ],
)
def test_every_command_that_executes_takes_the_flag(command, capsys):
    from execrl.cli.main import build_parser

    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([*command, "--help"])
    assert done.value.code == 0
    assert "--executor URL|ray|local" in capsys.readouterr().out


def test_train_on_an_unreachable_server_fails_before_the_model_loads(tmp_path: Path):
    run = ["--set", "steps=1", "--out", str(tmp_path / "run")]
    done = execrl("train", "--executor", "http://127.0.0.1:9", *run)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("ExecutionError: no execrl server answered (http://127.0.0.1:9")
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Loading weights" not in done.stdout + done.stderr


def test_a_training_config_names_its_executor_or_fails_on_load():
    from execrl.errors import ConfigError
    from execrl.rl.train import load_config

    assert load_config("rlvr", None, ["executor=ray:auto"]).executor == "ray:auto"
    assert load_config("rlvr").executor is None  # local unless asked
    with pytest.raises(ConfigError, match=r"training config: executor: executor 'k8s'"):
        load_config("rlvr", None, ["executor=k8s"])


# -- the TRL adapter ------------------------------------------------------------------------
def test_a_trl_reward_function_given_a_url_scores_on_the_server(server, sum_list):
    import pickle

    from execrl.integrations import ExecrlRewardFunction

    correct = next(r.code for r in sum_list.references if r.label.value == "correct")
    completions = [f"```python\n{correct}\n```", f"```python\n{WRONG}```"]
    columns = {"problem_id": ["sum-list", "sum-list"]}
    settings = {"env": "rlvr", "reward": "correctness", "problems": [sum_list]}
    local = ExecrlRewardFunction(**settings, workers=1)
    remote = pickle.loads(pickle.dumps(ExecrlRewardFunction(**settings, executor=server.url)))
    try:
        before = server_executions(server)
        rewards = remote(prompts=["", ""], completions=completions, **columns)
        assert server_executions(server) - before == 2
        assert rewards == local(prompts=["", ""], completions=completions, **columns)
        assert rewards[0] == 1.0 and rewards[1] < rewards[0]
    finally:
        local.close()
        remote.close()
    with pytest.raises(UsageError, match="executor 'k8s'"):
        ExecrlRewardFunction(executor="k8s")


# -- Ray -----------------------------------------------------------------------------------------
def test_ray_is_a_ray_executor_with_the_local_verdicts(sum_list):
    pytest.importorskip("ray")
    from tests.service._ray_cluster import ray_cluster

    requests = requests_for(sum_list)
    with LocalExecutor(workers=1) as local:
        expected = verdicts(local.run_batch(requests, progress=False))
    with ray_cluster(nodes=1) as cluster, open_executor(f"ray:{cluster.address}", workers=1) as ex:
        assert ex.backend == "ray" and ex.workers == 1
        assert verdicts(ex.run_batch(requests, progress=False)) == expected
