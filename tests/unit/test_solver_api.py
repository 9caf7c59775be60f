"""The solver-reward package's public names are sorted and importable (like test_public_api)."""

from __future__ import annotations

import execrl.integrations
import execrl.rewards.solver


def _isort_key(name: str) -> tuple[int, str]:
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_all_is_sorted_and_resolves():
    for module in (execrl.rewards.solver, execrl.integrations):
        assert list(module.__all__) == sorted(module.__all__, key=_isort_key)
        for name in module.__all__:
            assert getattr(module, name) is not None
    assert {"SolverRewardFunction", "solver_dataset"} <= set(execrl.integrations.__all__)
