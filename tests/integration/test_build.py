from __future__ import annotations

from pathlib import Path

import pytest

from execrl.datagen import build_tests, plan_tests, verify_problem
from execrl.errors import ConsensusError, ProblemFormatError
from execrl.problems import ReferenceLabel, TestGroup, read_problem_folder
from tests.conftest import SUM_REFERENCES, write_sum_problem


def test_plan_numbers_seeds_per_mode_across_groups(sum_problem_dir: Path):
    plan = plan_tests(read_problem_folder(sum_problem_dir))
    assert [(p.group.value, p.test_id) for p in plan] == [
        ("original", "small-1"),
        ("original", "small-2"),
        ("original", "small-3"),
        ("extra", "small-4"),
        ("extra", "small-5"),
        ("extra", "edge-1"),
        ("extra", "edge-2"),
        ("optimization", "large-1"),
        ("optimization", "large-2"),
        ("optimization", "large-3"),
    ]


def test_build_writes_consensus_outputs_and_keeps_examples(built_sum_problem_dir: Path):
    problem = read_problem_folder(built_sum_problem_dir)
    assert len(problem.tests_in(TestGroup.ORIGINAL)) == 4  # example-1 + 3 small
    assert len(problem.optimization_tests) == 3
    large = problem.optimization_tests[0]
    numbers = [int(x) for x in large.input.split()[1:]]
    assert int(large.output) == sum(numbers)  # the consensus is the true answer
    # Large generated inputs are kept as their hash and regenerated on load.
    assert (built_sum_problem_dir / "tests" / "optimization" / "large-1.in.sha256").is_file()
    assert not (built_sum_problem_dir / "tests" / "optimization" / "large-1.in.gz").exists()


def test_rebuild_is_byte_identical(built_sum_problem_dir: Path, tmp_path: Path, executor):
    again = write_sum_problem(tmp_path)
    build_tests(again, executor=executor, show_progress=False)
    for path in sorted((built_sum_problem_dir / "tests").rglob("*.*")):
        twin = again / path.relative_to(built_sum_problem_dir)
        assert twin.read_bytes() == path.read_bytes(), path.name


def test_verify_reports_verdicts_and_times(built_sum_problem_dir: Path, executor):
    report = verify_problem(
        read_problem_folder(built_sum_problem_dir), executor=executor, show_progress=False
    )
    assert report.ok
    correct = report.labelled(ReferenceLabel.CORRECT)
    assert all(r.record.all_passed for r in correct)
    (incorrect,) = report.labelled(ReferenceLabel.INCORRECT)
    assert incorrect.failed_test_ids == ["large-1", "large-2", "large-3"]
    assert all(r.mean_cpu_s() > 0 for r in correct)


def test_disagreeing_references_abort_the_build(tmp_path: Path, executor):
    refs = dict(SUM_REFERENCES)
    refs["builtin"] = "input()\nprint(sum(map(int, input().split())) % 1000)\n"
    folder = write_sum_problem(tmp_path, refs)
    with pytest.raises(ConsensusError, match=r"references \['builtin'\] disagree with 'loop'"):
        build_tests(folder, executor=executor, show_progress=False)
    assert not (folder / "tests" / "optimization").exists()  # nothing half-written


def test_crashing_reference_aborts_the_build(tmp_path: Path, executor):
    refs = dict(SUM_REFERENCES)
    refs["builtin"] = "raise SystemExit(1)\n"
    folder = write_sum_problem(tmp_path, refs)
    with pytest.raises(ConsensusError, match="'builtin' gave runtime_error"):
        build_tests(folder, executor=executor, show_progress=False)


def test_large_inputs_are_regenerated_when_not_cached(
    built_sum_problem_dir: Path, tmp_path, monkeypatch
):
    before = read_problem_folder(built_sum_problem_dir)
    monkeypatch.setenv("EXECRL_CACHE_DIR", str(tmp_path / "empty-cache"))
    after = read_problem_folder(built_sum_problem_dir)  # runs the generator again
    assert after == before
    assert len(list((tmp_path / "empty-cache" / "inputs").iterdir())) == 3


def test_a_stale_hash_is_reported(built_sum_problem_dir: Path, tmp_path, monkeypatch):
    import shutil

    folder = tmp_path / "sum-list"
    shutil.copytree(built_sum_problem_dir, folder)
    (folder / "tests" / "optimization" / "large-2.in.sha256").write_text("0" * 64 + "\n")
    monkeypatch.setenv("EXECRL_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(ProblemFormatError, match="no longer reproduces this input"):
        read_problem_folder(folder)
