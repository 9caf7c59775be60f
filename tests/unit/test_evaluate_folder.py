"""The evaluation folder and sample import: what is stored, and the errors a user can make."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execrl.errors import ExecrlError
from execrl.evaluate import (
    EvalFolder,
    ModelInfo,
    campaign_requests,
    samples_from_jsonl,
    samples_from_programs,
)
from execrl.evaluate.folder import problem_fingerprint, restrict_optimization_tests
from execrl.evaluate.sweep import sweep_values
from execrl.problems import Problem, Reference, StdioTest, TestGroup


def problem(pid: str = "p", opt_inputs=("333\n", "1\n", "22\n")) -> Problem:
    tests = [StdioTest(id="c1", input="1\n", output="1\n")] + [
        StdioTest(id=f"o{i}", group=TestGroup.OPTIMIZATION, input=text, output=text)
        for i, text in enumerate(opt_inputs)
    ]
    refs = [
        Reference(name="good", code="print(input())", label="correct"),
        Reference(name="bad", code="print(0)", label="incorrect"),
    ]
    return Problem(id=pid, tests=tests, references=refs)


def info(label: str, n: int = 2) -> ModelInfo:
    return ModelInfo(label=label, kind="programs", n=n)


def test_samples_round_trip_and_a_second_model_joins(tmp_path: Path):
    folder = EvalFolder(tmp_path / "ev")
    problems = [problem()]
    folder.add_samples(
        info("a"), samples_from_programs("a", {"p": ["x=1", "x=2"]}), problems, source="bundled"
    )
    folder.add_samples(
        info("b", 1), samples_from_programs("b", {"p": ["y=1"]}), problems, source="bundled"
    )
    samples = folder.samples()
    assert [(s.model, s.index, s.program) for s in samples] == [
        ("a", 0, "x=1"),
        ("a", 1, "x=2"),
        ("b", 0, "y=1"),
    ]
    manifest = folder.manifest()
    assert [m.label for m in manifest.models] == ["a", "b"]
    assert manifest.problems.sha256 == {"p": problem_fingerprint(problems[0])}
    assert manifest.campaign is None


def test_folder_errors_say_what_to_do(tmp_path: Path):
    folder = EvalFolder(tmp_path / "ev")
    with pytest.raises(ExecrlError, match="execrl eval sample --out DIR"):
        folder.manifest()
    folder.add_samples(
        info("a"), samples_from_programs("a", {"p": ["x"]}), [problem()], source="bundled"
    )
    with pytest.raises(ExecrlError, match="pass `replace`"):
        folder.add_samples(info("a"), [], [problem()], source="bundled")
    folder.add_samples(info("a"), [], [problem()], source="bundled", replace=True)
    with pytest.raises(ExecrlError, match="other problems"):
        folder.add_samples(info("c"), [], [problem("q")], source="bundled")
    changed = problem(opt_inputs=("9\n",))
    with pytest.raises(ExecrlError, match="other problems"):
        folder.add_samples(info("c"), [], [changed], source="bundled")
    with pytest.raises(ExecrlError, match="outside the set"):
        folder.add_samples(
            info("d"), samples_from_programs("d", {"zz": ["x"]}), [problem()], source="bundled"
        )
    with pytest.raises(ExecrlError, match="not usable"):
        folder.add_samples(info("a b"), [], [problem()], source="bundled")
    with pytest.raises(ExecrlError, match="eval run"):
        folder.campaign()


def test_jsonl_completions_are_extracted_programs_are_kept(tmp_path: Path):
    path = tmp_path / "completions.jsonl"
    rows = [
        {"problem_id": "p", "completion": "Sure:\n```python\nprint(1)\n```\nDone."},
        {"problem_id": "p", "program": "print(2)\n"},
        {"problem_id": "q", "code": "print(3)\n"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    samples = samples_from_jsonl(path, "m")
    assert [(s.problem_id, s.index, s.program) for s in samples] == [
        ("p", 0, "print(1)\n"),
        ("p", 1, "print(2)\n"),
        ("q", 0, "print(3)\n"),
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"problem_id": "p"}\n')
    with pytest.raises(ExecrlError, match=r"bad.jsonl:1: no 'completion'"):
        samples_from_jsonl(bad, "m")
    bad.write_text("not json\n")
    with pytest.raises(ExecrlError, match="not valid JSON"):
        samples_from_jsonl(bad, "m")
    with pytest.raises(ExecrlError, match="cannot read"):
        samples_from_jsonl(tmp_path / "missing.jsonl", "m")


def test_campaign_requests_run_samples_on_all_tests_and_references_on_timed_ones():
    p = problem()
    samples = samples_from_programs("a", {"p": ["print(input())"]})
    pairs = campaign_requests([p], samples, cap_s=3.0, repeats=2)
    kinds = [(e.kind, e.model or e.reference) for e, _ in pairs]
    assert kinds == [("sample", "a"), ("reference", "good")]  # incorrect references never run
    sample_request, reference_request = (r for _, r in pairs)
    assert [t.id for t in sample_request.tests] == ["c1", "o0", "o1", "o2"]
    assert [t.id for t in reference_request.tests] == ["o0", "o1", "o2"]
    assert sample_request.limits.timeout_s == 3.0 and sample_request.options.repeats == 2
    assert not sample_request.options.stop_at_first_failure  # every verdict is stored


def test_restricting_optimization_tests_keeps_the_smallest_inputs():
    p = restrict_optimization_tests(problem(), 2)
    assert [t.id for t in p.tests] == ["c1", "o1", "o2"]  # inputs "1", "22"; not "333"
    assert restrict_optimization_tests(problem(), None) == problem()


def test_sweep_values():
    assert sweep_values("0.5:2:4") == [0.5, 1.0, 1.5, 2.0]
    assert sweep_values("1,2.5") == [1.0, 2.5]
    assert sweep_values("3:9:1") == [3.0]
    for text in ("1:2", "a,b", "1:2:x", "1:2:0"):
        with pytest.raises(ExecrlError):
            sweep_values(text)


def test_fingerprint_covers_prelude_wrapping_and_new_checker_fields_only_when_set():
    from execrl.evaluate.folder import problem_fingerprint
    from execrl.problems import Checker, load_problems

    problem = load_problems("starter")[0]
    base = problem_fingerprint(problem)
    # the defaults of fields added later leave fingerprints of older folders alone
    assert problem_fingerprint(problem.model_copy(update={"checker": Checker()})) == base
    changed = [
        problem.model_copy(update={"prelude": "from typing import *"}),
        problem.model_copy(update={"stdin_as_function": True}),
        problem.model_copy(update={"checker": Checker(case_sensitive=False)}),
    ]
    prints = {problem_fingerprint(p) for p in changed}
    assert base not in prints and len(prints) == 3
