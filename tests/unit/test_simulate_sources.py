"""The simulator's inputs and tables as library calls (what ``execrl simulate`` prints), on a
small synthetic corpus: the description lines and every cell's format."""

from __future__ import annotations

import pytest

from execrl.errors import ExecrlError
from execrl.simulate import sources
from execrl.simulate.grid import environment_grid
from execrl.simulate.schedule import Schedule
from execrl.simulate.simulation import simulate
from execrl.simulate.sweep import sweep


@pytest.fixture(scope="module")
def corpus():
    return sources.load_synthetic_runs(4, tests=6, references=8, seed=1)


def test_a_synthetic_corpus_says_its_size(corpus):
    runs, described = corpus
    assert described == "a synthetic corpus of 4 problems × 6 tests × 8 references"
    assert len(runs) == 4


def test_stored_runs_need_exactly_one_store():
    with pytest.raises(ExecrlError, match="a timing campaign or a records file"):
        sources.load_stored_runs([])


def test_the_schedule_in_one_sentence(corpus):
    schedule = Schedule.build(corpus[0], points=5, half_width=0.1)
    assert sources.describe_schedule(schedule) == (
        "5 points from weak to strong, bands ±0.100, band means."
    )
    drawn = Schedule.build(corpus[0], points=5, half_width=0.1, draws=3, seed=0)
    assert sources.describe_schedule(drawn, "abc") == (
        "5 points from weak to strong, bands ±0.100, 3 draws per problem; quality from "
        "campaign abc."
    )


def test_simulation_table_cells(corpus):
    runs = corpus[0]
    schedule = Schedule.build(runs, points=5)
    sim = simulate(runs, "qp(p=0.3)", "collapsed", schedule=schedule)
    header, (row,) = sources.simulation_table([sim])
    assert header == [
        "environment", "reward", "degenerate", "dev ↓", "corr ↑", "corr~", "steep ↑", "AUC",
        "AUC~", "var",
    ]  # fmt: skip
    d = sim.diagnostics
    assert row[:3] == [sim.environment, sim.reward, d.degenerate or "no"]
    assert row[3:9] == [f"{v:.3f}" for v in d.ranked_values()]
    assert row[9] == f"{d.variance:.4f}"


def test_sweep_table_cells(corpus):
    runs = corpus[0]
    grid = environment_grid(["qp"])
    result = sweep(runs, grid, ["collapsed"], schedule=Schedule.build(runs, points=5),
                   progress=False)  # fmt: skip
    header, rows = sources.sweep_table(result, 2)
    assert header[0] == "rank" and header[-1] == "same curve"
    best = result.distinct(2)
    assert len(rows) == len(best) >= 1
    assert rows[0] == [
        str(best[0]["rank"]), best[0]["environment"], best[0]["reward"],
        f"{best[0]['deviation']:.3f}", f"{best[0]['correlation']:.3f}",
        f"{best[0]['steepness']:.3f}", str(best[0]["same"]),
    ]  # fmt: skip
