"""The public names are few, sorted and importable (httpx-style tested __all__)."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = [
    "execrl.problems",
    "execrl.sandbox",
    "execrl.datagen",
    "execrl.evaluate",
    "execrl.rewards.solver",
    "execrl.report",
]


def _isort_key(name: str) -> tuple[int, str]:
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_resolves(name):
    module = importlib.import_module(name)
    # isort-style order, as ruff keeps it: CONSTANTS, then Classes, then functions.
    assert list(module.__all__) == sorted(module.__all__, key=_isort_key)
    for public in module.__all__:
        assert getattr(module, public) is not None


def test_errors_share_one_root():
    from execrl import errors

    for cls in (
        errors.ProblemFormatError,
        errors.LoaderError,
        errors.ExecutionError,
        errors.ConsensusError,
    ):
        assert issubclass(cls, errors.ExecrlError)
