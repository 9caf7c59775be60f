"""The starter set keeps its promises (docs/problems.md): 32 easy call-based problems, a
22/10 train/held-out split with every level on both sides, and references whose verdicts in the
real sandbox are the ones their labels claim."""

from __future__ import annotations

import collections
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from execrl.errors import LoaderError
from execrl.problems import CallTest, ReferenceLabel, TestGroup, load_problem, load_problems
from execrl.problems.starter import load_starter, starter_path
from execrl.sandbox import ExecutionRequest

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture(scope="module")
def problems():
    return load_problems("starter")


def _split(problem) -> str:
    (split,) = [t for t in problem.tags if t in ("train", "heldout")]
    return split


def _level(problem) -> str:
    (level,) = [t for t in problem.tags if t.startswith("level-")]
    return level


def test_the_set_has_32_problems_with_unique_ids(problems):
    assert len(problems) == 32
    assert len({p.id for p in problems}) == 32
    assert len({p.entry_point for p in problems}) == 32


def test_the_split_is_22_train_and_10_heldout_with_every_level_on_both_sides(problems):
    splits = collections.Counter(_split(p) for p in problems)
    assert splits == {"train": 22, "heldout": 10}
    by_split_level = collections.Counter((_split(p), _level(p)) for p in problems)
    assert by_split_level == {
        ("train", "level-1"): 8,
        ("train", "level-2"): 7,
        ("train", "level-3"): 7,
        ("heldout", "level-1"): 3,
        ("heldout", "level-2"): 4,
        ("heldout", "level-3"): 3,
    }
    assert len(load_starter("train")) == 22
    assert [p.id for p in load_starter("heldout")] == [
        p.id for p in problems if "heldout" in p.tags
    ]


def test_every_problem_is_a_complete_function_completion_problem(problems):
    for p in problems:
        assert p.difficulty == "easy" and p.title and "starter" in p.tags, p.id
        assert (p.time_limit_s, p.memory_limit_mb) == (2.0, 256), p.id
        assert p.starter_code.startswith(f"def {p.entry_point}("), p.id
        # The docstring is the statement, re-wrapped.
        docstring = p.starter_code.split('"""')[1]
        assert " ".join(docstring.split()) == p.statement, p.id
        assert 5 <= len(p.tests) <= 8, p.id
        for test in p.tests:
            assert isinstance(test, CallTest) and test.group == TestGroup.ORIGINAL
            assert test.fn_name == p.entry_point
        correct = p.references_labelled(ReferenceLabel.CORRECT)
        incorrect = p.references_labelled(ReferenceLabel.INCORRECT)
        assert [r.name for r in correct] == ["reference"], p.id
        assert incorrect and all(r.flaw for r in incorrect), p.id
        # A reference is a completion of the starter code, as a model's would be.
        assert all(r.code.startswith(p.starter_code) for r in p.references), p.id


def test_one_problem_loads_by_id_and_unknown_names_are_clear_errors():
    problem = load_problem("starter", "fizzbuzz")
    assert problem.entry_point == "fizzbuzz"
    assert [t.expected for t in problem.tests[:3]] == ["Fizz", "Buzz", "FizzBuzz"]
    with pytest.raises(LoaderError, match="no problem with id 'nope'"):
        load_problem("starter", "nope")
    with pytest.raises(LoaderError, match="unknown starter split 'test'"):
        load_starter("test")


def test_the_file_is_what_the_generator_writes(monkeypatch):
    spec = importlib.util.spec_from_file_location("make_starter", FIXTURES / "make_starter.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "make_starter", module)  # dataclasses look it up there
    spec.loader.exec_module(module)
    rows = [json.loads(line) for line in starter_path().read_text().splitlines()]
    assert rows == [p.model_dump(mode="json") for p in module.build_problems()]


def test_references_get_their_labelled_verdicts_in_the_sandbox(problems, executor):
    pairs = [(p, r) for p in problems for r in p.references]
    requests = [ExecutionRequest.for_problem(p, r.code, program_name=r.name) for p, r in pairs]
    records = list(executor.run_batch(requests, progress=False))
    wrong = []
    for (problem, ref), record in zip(pairs, records, strict=True):
        statuses = [t.status for t in record.results]
        if ref.label == ReferenceLabel.CORRECT and not record.all_passed:
            wrong.append(f"{problem.id}/{ref.name} should pass: {statuses}")
        if ref.label == ReferenceLabel.INCORRECT and record.all_passed:
            wrong.append(f"{problem.id}/{ref.name} should fail a test")
    assert not wrong, wrong
    assert len(records) == 32 + sum(len(p.references) - 1 for p in problems)
