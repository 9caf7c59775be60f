"""The executing machine's fingerprint in every record and campaign row (spec §5 keys
calibrations by the machine that ran the program), and calibrations that refuse to mix
machines unless told to.

Machines are told apart by ``$EXECRL_MACHINE_ID``: real ``execrl serve`` servers (and a real
one-node Ray cluster) started with ``node-a`` / ``node-b`` stand for two machines, while the
calling process keeps its own host name — so a record that names the caller is the bug.
"""

from __future__ import annotations

import contextlib
import os
import socket

import pytest

from execrl.cli.main import main
from execrl.errors import ConfigError, UsageError
from execrl.problems.models import Problem, Reference, ReferenceLabel, StdioTest, TestGroup
from execrl.sandbox.machine import MACHINE_ID_ENV, MachineFingerprint
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest
from execrl.service.remote import RemoteExecutor
from execrl.timing.calibration import calibrate, fit_count_rate
from execrl.timing.store import DurationStore, run_campaign
from tests.service._server import running_server


@pytest.fixture(autouse=True)
def _caller_has_its_own_name(monkeypatch):
    monkeypatch.delenv(MACHINE_ID_ENV, raising=False)
    assert socket.gethostname() not in ("node-a", "node-b")


@pytest.fixture(scope="module")
def servers():
    """Two servers that name themselves node-a and node-b."""
    with (
        running_server(workers=1, env={MACHINE_ID_ENV: "node-a"}) as a,
        running_server(workers=1, env={MACHINE_ID_ENV: "node-b"}) as b,
    ):
        yield a, b


def _add_request() -> ExecutionRequest:
    return ExecutionRequest(
        program="print(sum(map(int, input().split())))\n",
        tests=[StdioTest(id="t", input="2 3\n", output="5\n")],
    )


def _problems() -> list[Problem]:
    """Two problems (leave-one-problem-out needs two), each with two correct references and
    two optimization tests."""
    loops = ("n = int(input())\nprint(sum(range(n)))\n", "n = int(input())\nprint(n*(n-1)//2)\n")
    return [
        Problem(
            id=f"sum-{k}",
            time_limit_s=2.0,
            tests=[
                StdioTest(
                    id=f"o{n}",
                    input=f"{n}\n",
                    output=f"{n * (n - 1) // 2}\n",
                    group=TestGroup.OPTIMIZATION,
                )
                for n in (1000 * k, 20000 * k)
            ],
            references=[
                Reference(name=f"r{i}", code=code, label=ReferenceLabel.CORRECT)
                for i, code in enumerate(loops)
            ],
        )
        for k in (1, 2)
    ]


class _StopAfterFirstPass(Exception):
    """Raised by ``on_pass`` to interrupt a campaign after its first rerun (its journal keeps
    that rerun, as an interrupted campaign does)."""


def _stop(_rerun: int) -> None:
    raise _StopAfterFirstPass


# -- records -----------------------------------------------------------------------------------
def test_a_local_record_names_this_machine_and_the_id_variable_renames_it(monkeypatch) -> None:
    with LocalExecutor(workers=1) as local:
        assert local.execute(_add_request()).machine == MachineFingerprint.current()
        monkeypatch.setenv(MACHINE_ID_ENV, "rack7-node3")
        machine = local.execute(_add_request()).machine
    assert machine.hostname == "rack7-node3" and machine == MachineFingerprint.current()
    assert machine.key.startswith("rack7-node3/") and len(machine.key) == len("rack7-node3/") + 8


def test_a_bad_machine_id_is_one_config_error(monkeypatch) -> None:
    monkeypatch.setenv(MACHINE_ID_ENV, "two words")
    with pytest.raises(ConfigError, match=MACHINE_ID_ENV):
        MachineFingerprint.current()


def test_a_remote_record_names_the_server_that_ran_it_not_the_caller(servers) -> None:
    a, b = servers
    with RemoteExecutor(a.url) as on_a, RemoteExecutor(b.url) as on_b:
        from_a, from_b = on_a.execute(_add_request()), on_b.execute(_add_request())
    assert from_a.all_passed and from_b.all_passed
    assert (from_a.machine.hostname, from_b.machine.hostname) == ("node-a", "node-b")
    assert from_a.machine.key != from_b.machine.key
    assert from_a.machine.hostname != MachineFingerprint.current().hostname


def test_a_ray_record_names_the_node_that_ran_it(monkeypatch) -> None:
    pytest.importorskip("ray")
    from execrl.service.ray import RayExecutor
    from tests.service._ray_cluster import ray_cluster

    monkeypatch.setenv(MACHINE_ID_ENV, "ray-node-1")  # (the node's processes inherit it)
    with contextlib.ExitStack() as stack:
        cluster = stack.enter_context(ray_cluster(nodes=1, cpus_per_node=1))
        monkeypatch.delenv(MACHINE_ID_ENV)  # the driver is another machine
        executor = stack.enter_context(RayExecutor(cluster.address, workers_per_node=1))
        record = executor.execute(_add_request())
    assert record.all_passed and record.machine.hostname == "ray-node-1"
    assert cluster.leftover_pids() == []


# -- campaigns and calibrations ----------------------------------------------------------------
@pytest.fixture(scope="module")
def campaigns(servers, tmp_path_factory):
    """A campaign whose first rerun ran on node-a and whose second (resumed) on node-b, and a
    campaign all on node-b, saved in a store."""
    a, b = servers
    store = DurationStore(tmp_path_factory.mktemp("store"))
    problems = _problems()
    settings = {"reruns": 2, "progress": False, "journal": store.journal_path}
    with RemoteExecutor(a.url) as on_a, contextlib.suppress(_StopAfterFirstPass):
        run_campaign(problems, on_a, on_pass=_stop, **settings)
    with RemoteExecutor(b.url) as on_b:
        mixed = run_campaign(problems, on_b, resume=True, **settings)
        store.journal_path.unlink()
        single = run_campaign(problems, on_b, **settings)
    store.save(mixed)
    store.save(single)
    return store, mixed, single


def test_every_campaign_row_names_the_machine_of_each_rerun(campaigns) -> None:
    _, mixed, single = campaigns
    a_key, b_key = (m.key for m in mixed.info.machines)
    assert [m.hostname for m in mixed.info.machines] == ["node-a", "node-b"]
    assert mixed.info.machine.hostname == "node-a" and mixed.id.endswith("-node-a")
    assert len(mixed.measurements) == 2 * 2 * 2  # problems × tests × references
    assert all(m.machines == [a_key, b_key] for m in mixed.measurements)
    assert [m.hostname for m in single.machines] == ["node-b"]
    assert all(m.machines == [b_key, b_key] for m in single.measurements)
    caller = MachineFingerprint.current().key
    assert all(caller not in m.machines for m in [*mixed.measurements, *single.measurements])


def test_calibration_refuses_a_campaign_of_two_machines_unless_told(campaigns) -> None:
    _, mixed, single = campaigns
    with pytest.raises(UsageError, match=r"ran on 2 machines \(node-a, node-b\)"):
        calibrate(mixed, single)
    with pytest.raises(UsageError, match="allow_mixed_machines"):
        calibrate(single, mixed)
    with pytest.raises(UsageError, match="node-a, node-b"):
        fit_count_rate(mixed)
    assert calibrate(mixed, single, allow_mixed_machines=True).chosen.metrics.triples == 8
    assert calibrate(single, single).chosen.metrics.triples == 8  # one machine: no question


def test_the_cli_exits_2_naming_the_machines_and_mixes_them_with_the_flag(
    campaigns, capsys
) -> None:
    store, mixed, single = campaigns
    argv = ["timing", "calibrate", "--stored", mixed.id, "--fresh", single.id]
    argv += ["--store", str(store.root)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "node-a, node-b" in err and "--mix-machines" in err
    assert main([*argv, "--mix-machines"]) == 0
    assert main(["timing", "list", "--store", str(store.root)]) == 0
    assert "2 machines: node-a, node-b" in capsys.readouterr().out


def test_a_campaign_through_a_local_pool_names_this_machine(tmp_path) -> None:
    with LocalExecutor(workers=1) as local:
        campaign = run_campaign(_problems()[:1], local, reruns=1, progress=False)
    assert campaign.machines == [MachineFingerprint.current()]
    assert {tuple(m.machines) for m in campaign.measurements} == {(campaign.info.machine.key,)}
    assert os.environ.get(MACHINE_ID_ENV) is None


def test_an_eval_campaign_through_a_server_names_the_server_not_the_caller(
    servers, tmp_path
) -> None:
    from execrl.evaluate import EvalFolder, ModelInfo, run_eval_campaign, samples_from_programs
    from execrl.problems import load_bundled

    problems = load_bundled(["distinct-count"])
    folder = EvalFolder(tmp_path / "ev")
    folder.add_samples(
        ModelInfo(label="m", kind="programs", n=1),
        samples_from_programs("m", {problems[0].id: [problems[0].references[0].code]}),
        problems,
        source="bundled",
    )
    a, _ = servers
    with RemoteExecutor(a.url, fallback=False) as executor:
        info = run_eval_campaign(folder, executor, seed=0, max_optimization_tests=1, progress=False)
    assert info.machine["hostname"] == "node-a"
    assert [m["hostname"] for m in info.machines] == ["node-a"]
    assert folder.manifest().campaign.machine["hostname"] == "node-a"
