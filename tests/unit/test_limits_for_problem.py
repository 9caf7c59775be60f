"""``Limits.for_problem`` is the one place a problem becomes sandbox Limits (issue 30.6)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

from execrl.problems import Problem
from execrl.sandbox import ExecutionRequest, Limits

SRC = Path(__file__).resolve().parents[2] / "src" / "execrl"
LIMITS_MODULE = SRC / "sandbox" / "limits.py"


def test_the_problem_s_time_limit_is_the_cpu_limit_and_its_memory_the_memory_limit() -> None:
    limits = Limits.for_problem(Problem(id="p", time_limit_s=2.5, memory_limit_mb=300))
    assert limits.cpu_time_s == 2.5
    assert limits.memory_mb == 300


def test_a_cap_replaces_the_problem_s_time_limit_but_not_its_memory() -> None:
    limits = Limits.for_problem(Problem(id="p", time_limit_s=2.0, memory_limit_mb=300), cap_s=7)
    assert limits.cpu_time_s == 7
    assert limits.memory_mb == 300


def test_the_wall_limit_follows_the_default_rule() -> None:
    limits = Limits.for_problem(Problem(id="p", time_limit_s=1.0))
    assert limits.wall_time_s is None  # not fixed: resolved by the rule
    assert limits.wall_limit_s == 3.0  # max(3 × cpu, cpu + 2)
    assert Limits.for_problem(Problem(id="p"), cap_s=0.5).wall_limit_s == 2.5


def test_every_other_field_keeps_its_default() -> None:
    limits = Limits.for_problem(Problem(id="p", time_limit_s=2.0, memory_limit_mb=300))
    assert limits == Limits(cpu_time_s=2.0, memory_mb=300)


def test_a_cap_outside_the_sandbox_s_range_is_refused() -> None:
    with pytest.raises(ValidationError):
        Limits.for_problem(Problem(id="p"), cap_s=601)


def test_a_request_for_a_problem_uses_the_same_rule() -> None:
    problem = Problem(id="p", time_limit_s=1.5, memory_limit_mb=200)
    request = ExecutionRequest.for_problem(problem, "print(1)")
    assert request.limits == Limits.for_problem(problem)


def _limits_calls(tree: ast.AST) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "Limits"
    ]


def _offences(path: Path, root: Path = SRC.parent) -> list[str]:
    """Limits built from the deprecated ``timeout_s`` or from a problem's own limits."""
    out = []
    for call in _limits_calls(ast.parse(path.read_text(), str(path))):
        where = f"{path.relative_to(root)}:{call.lineno}"
        if any(k.arg == "timeout_s" for k in call.keywords):
            out.append(f"{where}: Limits(timeout_s=...) (the deprecated alias; use cpu_time_s)")
        names = {n.attr for n in ast.walk(call) if isinstance(n, ast.Attribute)}
        if names & {"time_limit_s", "memory_limit_mb"}:
            out.append(f"{where}: Limits from a problem's limits (use Limits.for_problem)")
    return out


def test_no_module_builds_limits_from_a_problem_or_through_the_old_name() -> None:
    offences = [
        o for path in sorted(SRC.rglob("*.py")) if path != LIMITS_MODULE for o in _offences(path)
    ]
    assert not offences, "\n".join(offences)


def test_the_scan_finds_both_offences(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "Limits(timeout_s=1)\n"
        "sandbox.Limits(cpu_time_s=p.time_limit_s, memory_mb=p.memory_limit_mb)\n"
        "Limits(cpu_time_s=1)\n"
    )
    assert _offences(bad, tmp_path) == [
        "bad.py:1: Limits(timeout_s=...) (the deprecated alias; use cpu_time_s)",
        "bad.py:2: Limits from a problem's limits (use Limits.for_problem)",
    ]
