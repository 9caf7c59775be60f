"""The agreement benchmark (benchmarks/solver_agreement.py) on its SIRL-format fixtures, with
HiGHS: every reference earns the maximum and no corrupted response does (the full table, every
solver, is recorded in docs/solver-rewards.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).parents[2] / "benchmarks" / "solver_agreement.py"
_spec = importlib.util.spec_from_file_location("solver_agreement", _SCRIPT)
solver_agreement = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(solver_agreement)

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("highspy") is None, reason="highspy is not installed"
)


def test_the_sirl_format_fixtures_load_with_distinct_mamo_sets():
    loaded = solver_agreement.load()
    assert {name: [p.id for p in ps] for name, ps in loaded.items()} == {
        "NL4OPT": ["nl4opt-0", "nl4opt-1"],
        "MAMO EasyLP": ["mamo-easylp-0", "mamo-easylp-1"],
        "MAMO ComplexLP": ["mamo-complexlp-0", "mamo-complexlp-1"],
        "IndustryOR": ["industryor-0", "industryor-1"],
        "OptMATH": ["optmath-0", "optmath-1"],
    }
    assert loaded["IndustryOR"][1].answer == "infeasible"  # "No Best Solution"


def test_highspy_references_earn_the_maximum_and_corrupted_ones_do_not():
    cells = solver_agreement.agreement(["highspy"], workers=2)
    assert [why for cell in cells.values() for why in cell["why"]] == []
    assert sum(cell["refs"][1] for cell in cells.values()) == 10
    assert sum(cell["bad"][1] for cell in cells.values()) == 40
