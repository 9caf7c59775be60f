"""A solver's temporary files stay out of the host's /tmp (issue 33, item 8).

PuLP writes ``<uuid>-pulp.mps`` and ``-pulp.sol`` to ``$TMP``, else ``$TMPDIR``, else /tmp,
and deletes them after the solve; a run killed mid-solve leaves them there. The suite left
them in the host's /tmp from the bundled ``timeout`` responses, run as plain subprocesses on
the host (``test_optim_bundled.run_code``). A program here solves an LP whose coefficient is a
marker unique to the test, forever, until it is killed; no file of the host's /tmp may then
hold the marker (other processes' files are told apart by it, not by name). In the sandbox,
the solver wrapper points ``TMPDIR``, ``TMP`` and ``TEMP`` at the run's scratch directory.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from execrl.rewards.solver.execution import RunStatus, run_solver_code, solver_executor
from execrl.sandbox.limits import Limits

pytest.importorskip("pulp")
from tests.integration.test_optim_bundled import run_code  # (after the skip)

HOST_TMP = Path("/tmp")
SOLVES_FOREVER = """import pulp
prob = pulp.LpProblem("marked", pulp.LpMaximize)
x = pulp.LpVariable("x", 0)
prob += x
prob += x <= {marker}
while True:
    prob.solve(pulp.PULP_CBC_CMD(msg=False))
"""
SEES = """import os, tempfile, pulp
names = ("TMPDIR", "TMP", "TEMP")
print("objective: 1")
print(os.getcwd(), *[os.environ.get(n) for n in names], tempfile.gettempdir(),
      pulp.PULP_CBC_CMD(msg=False).tmpDir)
"""


def _marker() -> str:
    return str(100_000_000 + uuid.uuid4().int % 800_000_000)  # a 9-digit bound, this test's


def _files_holding(marker: str) -> list[Path]:
    """Files directly in the host's /tmp whose first 64 KiB hold ``marker`` (as the .sol
    writes it, or as the .mps does: 5.017556390000e+08)."""
    forms = (marker.encode(), f"{float(marker):.12e}".encode())
    found = []
    for entry in os.scandir(HOST_TMP):
        try:
            if entry.is_file(follow_symlinks=False):
                with open(entry.path, "rb") as f:
                    head = f.read(65536)
                if any(form in head for form in forms):
                    found.append(Path(entry.path))
        except OSError:  # another process's file, gone or unreadable
            continue
    return found


def test_a_solver_program_killed_on_the_host_leaves_nothing_in_tmp(tmp_path):
    marker = _marker()
    run = run_code(SOLVES_FOREVER.format(marker=marker), tmp_path / "run", limit_s=3.0)
    assert run.returncode is None  # killed while solving
    assert _files_holding(marker) == []


def test_a_solver_program_killed_in_the_sandbox_leaves_nothing_in_tmp():
    marker = _marker()
    with solver_executor(workers=1) as executor:
        run = run_solver_code(
            SOLVES_FOREVER.format(marker=marker),
            executor=executor,
            limits=Limits(cpu_time_s=2.0, wall_time_s=4.0, memory_mb=1024, max_processes=32),
        )
        assert run.status is RunStatus.TIMEOUT
        assert _files_holding(marker) == []
        seen = run_solver_code(SEES, executor=executor)
    assert seen.status is RunStatus.COMPLETED, seen.detail
    cwd, *temp_dirs = seen.output_tail.strip().splitlines()[-1].split()
    assert temp_dirs == [cwd] * 5  # TMPDIR, TMP, TEMP, tempfile's and PuLP's: its scratch
