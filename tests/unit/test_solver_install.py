"""The install hints name extras that really install the solver (issue 17: the hint for
pyomo, scipy and cvxpy named ``execrl[solver]``, which did not install them)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from execrl.rewards.solver.execution import (
    LICENSED_SOLVERS,
    OTHER_SOLVER_MODULES,
    SOLVER_MODULES,
    install_hint,
)

PYPROJECT = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
EXTRAS = PYPROJECT["project"]["optional-dependencies"]


def _distributions(extra: str) -> set[str]:
    return {re.split(r"[<>=!~\[ ]", spec, maxsplit=1)[0].lower() for spec in EXTRAS[extra]}


@pytest.mark.parametrize("module", [*SOLVER_MODULES, *OTHER_SOLVER_MODULES, *LICENSED_SOLVERS])
def test_each_hint_installs_the_module(module):
    hint = install_hint(module)
    assert hint, module
    extra = re.search(r"execrl\[([\w-]+)\]", hint)
    if extra:
        assert module in _distributions(extra.group(1)), (module, hint)
    else:
        assert module in hint.lower()


def test_the_extras_hold_every_supported_solver():
    assert set(SOLVER_MODULES) <= _distributions("solver")
    assert _distributions("solver-commercial") == {"gurobipy", "coptpy"}
    dev = " ".join(EXTRAS["dev"])
    assert "solver" in dev and "solver-commercial" in dev  # `make` installs them for the tests
    for spec in EXTRAS["solver"] + EXTRAS["solver-commercial"]:
        assert "==" not in spec, f"{spec}: ranges in pyproject.toml, exact pins in constraints"
