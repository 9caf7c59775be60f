"""RayExecutor's ``capture_streams`` carries what SandboxFusion's ``/run_code`` needs (a
language, its build, files placed and fetched) to a node's pool, on a real one-node Ray
cluster started for this file and stopped at its end."""

from __future__ import annotations

import pytest

pytest.importorskip("ray")

from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.languages import probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.records import Status
from execrl.service.ray import RayExecutor
from tests.service._ray_cluster import ray_cluster

CODE = """#include <fstream>
#include <iostream>
int main() {
  std::ifstream in("in.txt"); std::string word; in >> word;
  std::ofstream("out.txt") << word << word;
  std::cout << word.size() << std::endl;
}
"""


@pytest.mark.skipif(not probe("cpp").installed, reason="g++ is not installed")
def test_ray_capture_streams_builds_places_and_fetches():
    with (
        ray_cluster(nodes=1, cpus_per_node=1) as cluster,
        RayExecutor(cluster.address) as executor,
    ):
        captured = executor.capture_streams(
            CODE,
            "",
            Limits(cpu_time_s=10),
            language="cpp",
            build=BuildOptions(profile="sandboxfusion", compile_wall_s=120),
            files={"in.txt": b"abc"},
            fetch=["out.txt"],
        )
        python = executor.capture_streams("print(1)", "", language="python")
    assert cluster.leftover_pids() == []
    assert (captured.result.status, captured.stdout, captured.exit_code) == (
        Status.SUCCESS,
        "3\n",
        0,
    )
    assert captured.files == {"out.txt": b"abcabc"}
    assert (captured.build.status, captured.build.profile) == ("ok", "sandboxfusion")
    assert (python.result.status, python.stdout) == (Status.SUCCESS, "1\n")
