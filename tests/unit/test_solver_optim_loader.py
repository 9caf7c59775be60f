"""Loaders for optimisation problems: execrl's own format and the public benchmark rows,
field by field (fixtures written by tests/fixtures/optim/make_fixtures.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execrl.errors import ExecrlError, LoaderError, ProblemFormatError
from execrl.problems.optim import (
    bundled_optim_path,
    load_optim_problem,
    load_optim_problems,
    parse_answer,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "optim"


def test_native_format_field_by_field():
    problems = load_optim_problems(FIXTURES / "problems.jsonl")
    assert [p.id for p in problems] == [
        "furniture-lp",
        "depots-fixed-charge",
        "trucks-integer",
        "machines-infeasible",
    ]
    furniture = problems[0]
    assert furniture.question.startswith("A workshop makes tables and chairs.")
    assert furniture.answer == 34.0
    assert (furniture.direction, furniture.kind) == ("max", "lp")
    assert (furniture.n_binary, furniture.n_integer, furniture.n_constraints) == (0, 0, None)
    assert furniture.reference.startswith("<think>") and "<python>" in furniture.reference
    assert [i.error for i in furniture.incorrect] == [
        "format",
        "extraction",
        "execution",
        "wrong_answer",
    ]
    assert furniture.source == "problems"  # a file's rows are named after it
    depots = load_optim_problem(FIXTURES / "problems.jsonl", "depots-fixed-charge")
    assert (depots.answer, depots.kind, depots.n_binary) == (320.0, "bigm", 2)
    assert problems[3].answer == "infeasible"


@pytest.mark.parametrize(
    ("name", "format", "expected"),
    [
        (
            "nl4opt.jsonl",
            "nl4opt",
            [
                ("nl4opt-0", "Maximise 2x + 3y subject to x + y <= 4, x, y >= 0.", 12.0),
                ("nl4opt-1", "Minimise x subject to x >= 1.5.", 1.5),
            ],
        ),
        (  # a JSON array with capitalised fields and ids
            "mamo.json",
            "mamo",
            [
                ("mamo-7", "Minimise cost: at least 3 units at $2 each.", 6.0),
                ("mamo-8", "Maximise sales under a budget of 1,000.", 1234.5),
            ],
        ),
        (  # JSONL saved as .json; "No Best Solution" marks an infeasible problem
            "industryor.json",
            "industryor",
            [
                ("industryor-3", "Plan production for a plant.", "infeasible"),
                ("industryor-4", "Route trucks between depots.", -45.0),
            ],
        ),
        (
            "optmath.jsonl",
            "optmath",
            [
                ("optmath-0", "Schedule five jobs on two machines.", 3.0),
                ("optmath-1", "A problem without an optimum.", "unbounded"),
            ],
        ),
    ],
)
def test_public_formats_field_by_field(name, format, expected):
    problems = load_optim_problems(FIXTURES / name, format=format)
    assert [(p.id, p.question, p.answer) for p in problems] == expected
    assert {p.source for p in problems} == {format}
    assert all(p.reference is None and p.incorrect == [] for p in problems)


def test_format_is_guessed():
    assert load_optim_problems(FIXTURES / "problems.jsonl")[0].reference is not None
    generic = load_optim_problems(FIXTURES / "nl4opt.jsonl")  # no id field: a public file
    assert [p.id for p in generic] == ["nl4opt-0", "nl4opt-1"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, 3.0),
        ("  -2.5 ", -2.5),
        ("1,000", 1000.0),
        ("Infeasible", "infeasible"),
        ("no  feasible solution", "infeasible"),
        ("UNBOUNDED", "unbounded"),
        # regression (issue 17): the "no valid answer" sentinels were read as numbers
        ("No Best Solution", "infeasible"),
        (-9999, "infeasible"),
        ("-99999", "infeasible"),
        (-99999.0, "infeasible"),
        (-9998, -9998.0),
    ],
)
def test_answers(value, expected):
    assert parse_answer(value) == expected


@pytest.mark.parametrize(
    ("file_name", "format", "source"),
    [
        ("MAMO_EasyLP.json", "mamo", "mamo-easylp"),
        ("easy_lp.json", "mamo", "mamo-easylp"),
        ("MAMO_ComplexLP.json", "mamo", "mamo-complexlp"),
        ("complex-lp.json", "mamo", "mamo-complexlp"),
        ("mamo.json", "mamo", "mamo"),
        ("anything.json", "mamo-easylp", "mamo-easylp"),
        ("anything.json", "mamo-complexlp", "mamo-complexlp"),
    ],
)
def test_mamo_easylp_and_complexlp_get_distinct_ids_and_sources(
    tmp_path, file_name, format, source
):
    """Regression (issue 17): both MAMO sets loaded as ``mamo-<n>``, so their ids collided and
    their results were reported together."""
    path = tmp_path / file_name
    path.write_text(json.dumps([{"en_question": "q", "en_answer": "3"}]))
    (problem,) = load_optim_problems(path, format=format)
    assert (problem.id, problem.source) == (f"{source}-0", source)


@pytest.mark.parametrize("value", ["about 12", None, True, "nan", ""])
def test_bad_answers(value):
    with pytest.raises(ProblemFormatError, match="answer"):
        parse_answer(value, where="answer")


def test_errors_name_the_row_and_field(tmp_path):
    public = tmp_path / "bench.jsonl"
    public.write_text(json.dumps({"text": "no question field", "answer": 1}) + "\n")
    with pytest.raises(ProblemFormatError, match=r"bench.jsonl:1: no question.*en_question"):
        load_optim_problems(public, format="nl4opt")
    public.write_text(json.dumps({"question": "q", "answer": "lots"}) + "\n")
    with pytest.raises(ProblemFormatError, match=r"bench.jsonl:1: answer: 'lots'"):
        load_optim_problems(public, format="generic")

    native = tmp_path / "mine.jsonl"
    row = {"id": "a", "question": "q", "answer": 1.0}
    native.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(ProblemFormatError, match=r"mine.jsonl:2: duplicate problem id 'a'"):
        load_optim_problems(native)
    native.write_text(json.dumps({**row, "optimum": 2}) + "\n")
    with pytest.raises(ProblemFormatError, match=r"mine.jsonl:1: optimum: Extra inputs"):
        load_optim_problems(native, format="optim")
    native.write_text("{not json\n")
    with pytest.raises(LoaderError, match=r"mine.jsonl:1: not valid JSON"):
        load_optim_problems(native)


def test_source_errors():
    with pytest.raises(LoaderError, match="unknown format 'csv'"):
        load_optim_problems(FIXTURES / "nl4opt.jsonl", format="csv")
    with pytest.raises(LoaderError, match="no such file"):
        load_optim_problems(FIXTURES / "missing.jsonl")
    with pytest.raises(LoaderError, match="no problem with id 'nope'"):
        load_optim_problem(FIXTURES / "problems.jsonl", "nope")
    assert issubclass(LoaderError, ExecrlError)


def test_bundled_set_loads_when_installed():
    if not any(bundled_optim_path().glob("*/problem.yaml")):
        with pytest.raises(LoaderError, match="bundled optimisation set is missing"):
            load_optim_problems()
        return
    problems = load_optim_problems()
    assert len({p.id for p in problems}) == len(problems) > 0
    assert all(p.source == "bundled" and p.reference for p in problems)
