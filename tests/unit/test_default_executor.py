"""Library calls take their executor explicitly, or — where a call documents ``executor=None``
— from the one documented default, ``execrl.sandbox.default_executor``; no library module
opens a LocalExecutor of its own elsewhere."""

from __future__ import annotations

import ast
from pathlib import Path

from execrl.sandbox import LocalExecutor, default_executor
from execrl.sandbox.executor_source import given_or_default

SOURCE = Path(__file__).resolve().parents[2] / "src" / "execrl"

OPENERS = {
    # what opens a pool, and why it may (each is an edge or a measurement of this machine)
    "sandbox/executor_source.py": "the documented default itself",
    "sandbox/pool.py": "the pool",
    "service/open.py": "open_executor(spec): the edge that turns a spec into an executor",
    "service/server.py": "execrl serve: the server's own pool",
    "service/ray.py": "a Ray actor's pool on its node",
    "integrations/executors.py": "trainers' workers open theirs from a spec (one per process)",
    "rewards/solver/execution.py": "solver_executor(): a documented opener with solver paths",
    "timing/drift.py": "measures this machine: its own pool, host core reserved",
    "timing/contention.py": "measures this machine: its own pool, host core reserved",
    "cli/run.py": "the CLI is an edge",
}


def test_the_default_is_a_local_pool_of_the_asked_size():
    with default_executor(workers=1) as executor:
        assert isinstance(executor, LocalExecutor)
        assert executor.workers == 1
        assert executor.backend == "local-forkserver"


def test_a_given_executor_is_used_and_not_closed():
    with LocalExecutor(workers=1) as mine:
        with given_or_default(mine) as used:
            assert used is mine
        record = mine.run("print(1)", [_echo_test()])  # still open
        assert record.results[0].status.value == "success"


def test_no_library_module_opens_a_pool_elsewhere():
    found = {}
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "LocalExecutor":
                found.setdefault(relative, node.lineno)
    unexpected = {f: line for f, line in found.items() if f not in OPENERS}
    assert unexpected == {}, "take an executor argument or use sandbox.default_executor"
    assert set(found) <= set(OPENERS) and len(found) >= 5  # (the walk found the real ones)


def _echo_test():
    from execrl.problems import StdioTest

    return StdioTest(id="t", input="", output="1\n")
