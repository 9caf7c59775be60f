"""The build report (report.html and the dataset card) on a hand-written summary, and the
spec §9 build fixtures (tests/fixtures/build): each solution gets, on the original tests in the
real sandbox, the verdict its README entry promises, and each generator is deterministic."""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from execrl.datagen.filters import MAX_FALSE_POSITIVE_RATE, TIMEOUT_SHARE, Round
from execrl.datagen.report import (
    DATASET_CARD,
    MISSING,
    REPORT_HTML,
    dataset_card,
    report_html,
    write_build_report,
)
from execrl.datagen.verify import verify_problem
from execrl.problems.codecontests import load_codecontests
from execrl.problems.kattis import load_kattis
from execrl.problems.models import ReferenceLabel

BUILD = Path(__file__).parents[1] / "fixtures" / "build"
EVIL = "<script>alert(1)</script>"


def problem_row(problem_id: str, **changes) -> dict:
    row = {
        "problem_id": problem_id,
        "kept": True,
        "reasons": [],
        "split": "train",
        "verify": {
            "correct_labelled": 9,
            "correct_verified": 9,
            "incorrect_labelled": 3,
            "incorrect_verified": 3,
            "inconclusive": 0,
            "disagreements": [],
        },
        "generators": [{"name": "supplied-0", "origin": "supplied"}],
        "attempts": {"tried": 2, "accepted": 2, "rejected": {}, "inconclusive": 0},
        "tests": {
            "original": 5,
            "generated": 30,
            "removed": {
                "correctness": {"timeout": 0, "failure": 1},
                "optimization": {"timeout": 2, "failure": 0},
            },
            "extra": 19,
            "optimization": 8,
        },
        "solutions": {"correct_dropped": [], "false_positives": []},
        "false_positive_rate": {"before": 2 / 3, "after": 0.0},
        "robust_cv": 1.25,
        "duration_filterable": True,
        "length_cv": 0.41,
        "length_filterable": True,
        "durations_ms": {"p10": 3.5, "p50": 17.25, "p90": 1100.0},
    }
    row.update(changes)
    return row


SUMMARY = {
    "format": "execrl-build/1",
    "source": "tests/fixtures/build/codecontests/problems.jsonl",
    "created": "2026-12-02T02:00:00+00:00",
    "settings": {"attempts": 2, "heldout_share": 0.2, "split_seed": 0},
    "stages": [
        {"stage": "verify", "problems": 3, "correct_labelled": 26, "disagreements": 7},
        {"stage": "generate", "problems": 3, "attempts": 6, "accepted": 5, "tests": 83},
        {"stage": "correctness", "problems": 3, "removed_timeout": 4, "removed_failure": 11},
        {"stage": "optimization", "problems": 3, "removed_timeout": 13, "tests": 17},
        {"stage": "keep", "problems": 2, "dropped": 1},
        {"stage": "split", "problems": 2, "train": 1, "heldout": 1},
    ],
    "problems": [
        problem_row("9001_a-pair-sums"),
        problem_row(
            EVIL,
            kept=False,
            split=None,
            reasons=[f"false-positive rate 25% is not below 5% ({EVIL})"],
            verify={
                "correct_labelled": 8,
                "correct_verified": 8,
                "incorrect_labelled": 4,
                "incorrect_verified": 1,
                "disagreements": [
                    {"reference": "incorrect-3", "label": "incorrect", "verdicts": {"success": 5}}
                ],
            },
            attempts={"tried": 3, "accepted": 1, "rejected": {"no two solutions agree": 2}},
            solutions={"correct_dropped": ["correct-9"], "false_positives": ["incorrect-3"]},
            false_positive_rate={"before": 0.75, "after": 0.25},
            durations_ms=None,
            robust_cv=None,
            length_cv=None,
        ),
        problem_row(
            "maxsubarray",
            split="heldout",
            false_positive_rate={"before": None, "after": None},
        ),
    ],
}


def html_text(markup: str) -> str:
    """The page's visible text: tags removed, so a value split by markup still reads whole."""
    return re.sub(r"<[^>]+>", " ", markup)


@pytest.fixture(scope="module")
def page() -> str:
    return report_html(copy.deepcopy(SUMMARY))


@pytest.fixture(scope="module")
def card() -> str:
    return dataset_card(copy.deepcopy(SUMMARY))


def test_every_stage_and_its_counts_appear(page: str, card: str) -> None:
    for stage in SUMMARY["stages"]:
        for text in (html_text(page), card):
            assert stage["stage"] in text
            for key, value in stage.items():
                if key not in ("stage", "problems"):
                    assert f"{key.replace('_', ' ')} {value}" in text, (stage["stage"], key)
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    assert len(svgs) == 3  # stages, FP before/after, durations
    for svg in svgs:
        ET.fromstring(svg)  # well-formed: every label escaped


def test_strings_from_the_data_are_escaped(page: str, card: str) -> None:
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>" in card  # markdown keeps text; its table cells cannot be broken out of
    with_pipe = copy.deepcopy(SUMMARY)
    with_pipe["problems"][1]["reasons"] = ["a | b"]
    assert "a \\| b" in dataset_card(with_pipe)


def test_false_positive_rates_before_and_after(page: str, card: str) -> None:
    text = html_text(page)
    for before, after in (("66.7%", "0.0%"), ("75.0%", "25.0%")):
        for where in (text, card):
            assert before in where and after in where
    # the paired bars: one "before" and one "after" bar per problem, the after bar of the
    # dropped problem a quarter of the full width
    assert text.count("before: ") == 3 and text.count("after: ") == 3
    assert 'width="90.0"' in page  # 0.25 of the 360-pixel plot


def test_attempts_and_solutions_by_name(page: str, card: str) -> None:
    text = html_text(page)
    for where in (text, card):
        assert "no two solutions agree 2" in where and "1 / 3" in where
    assert "<td>correct-9</td><td>incorrect-3</td>" in page


def test_missing_values_read_as_a_dash(page: str, card: str) -> None:
    # the page: six cells of the dropped problem's row and two of maxsubarray's; bars drawn
    # as no bar with a dash: the dropped problem's three durations, maxsubarray's two rates
    assert page.count(f"<td>{MISSING}</td>") == 8
    assert page.count(f">{MISSING}</text>") == 5
    evil_row = next(line for line in card.splitlines() if line.startswith(f"| {EVIL}"))
    cells = [c.strip() for c in evil_row.strip("|").split("|")]
    # split, p10, p50, p90, robust CV, length CV are missing for the dropped problem
    assert cells[2] == MISSING and cells[8:12] == [MISSING] * 4 and cells[13] == MISSING
    maxsub_row = next(line for line in card.splitlines() if line.startswith("| maxsubarray"))
    assert maxsub_row.count(MISSING) == 2  # no incorrect solutions: no FP rates
    empty = {"format": "execrl-build/1", "source": "x", "stages": [], "problems": []}
    assert "0 of 0 problems kept" in html_text(report_html(empty))
    assert "0 of 0 problems kept" in dataset_card(empty)


def test_card_states_rules_split_drops_and_loading(card: str) -> None:
    assert f"{100 * TIMEOUT_SHARE[Round.CORRECTNESS]:g}%" in card
    assert f"{100 * TIMEOUT_SHARE[Round.OPTIMIZATION]:g}%" in card
    assert f"below {100 * MAX_FALSE_POSITIVE_RATE:g}%" in card
    assert "**2 of 3 problems kept** (1 train, 1 held out)" in card
    assert "false-positive rate 25% is not below 5%" in card
    assert 'load_problems("problems")' in card
    assert "incorrect-3 (incorrect): success 5" in card


def test_write_build_report_writes_page_and_card(tmp_path: Path) -> None:
    paths = write_build_report(copy.deepcopy(SUMMARY), tmp_path / "out")
    assert [p.name for p in paths] == [REPORT_HTML, DATASET_CARD]
    assert paths[0].read_text(encoding="utf-8") == report_html(SUMMARY)
    assert paths[1].read_text(encoding="utf-8") == dataset_card(SUMMARY)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [DATASET_CARD, REPORT_HTML]


# -- the build fixtures -------------------------------------------------------------------------

CODECONTESTS = BUILD / "codecontests" / "problems.jsonl"
# On the original tests: the incorrect-labelled solutions that pass them all (the false
# positives before generated tests, and the mislabelled incorrect-3 of the LIS problem).
PASS_ORIGINALS = {
    "9001_a-pair-sums": {"incorrect-0", "incorrect-1"},
    "9001_b-inversion-count": {"incorrect-0", "incorrect-1"},
    "9001_c-longest-increasing-subsequence": {"incorrect-0", "incorrect-1", "incorrect-3"},
    "maxsubarray": {
        "wrong_answer-zero_start",
        "run_time_error-recursive",
        "time_limit_exceeded-brute_force",
    },
}


# Correct-labelled solutions that fail an original test (label disagreements verify reports).
FAIL_ORIGINALS = {"9001_b-inversion-count": {"correct-9"}}


def fixture_problems():
    # The fixtures' Python 3 solutions only (their Python 2 and C++ ones are in the rows).
    kattis = load_kattis(BUILD / "kattis", languages=["python"])
    return [*load_codecontests(CODECONTESTS, languages=["python"]), *kattis]


def test_fixtures_load_with_their_ids_and_python3_solutions() -> None:
    problems = {p.id: p for p in fixture_problems()}
    assert sorted(problems) == sorted(PASS_ORIGINALS)
    for problem in problems.values():
        correct = [r for r in problem.references if r.label is ReferenceLabel.CORRECT]
        incorrect = [r for r in problem.references if r.label is ReferenceLabel.INCORRECT]
        assert len(correct) >= 7 and len(incorrect) >= 3, problem.id
        assert {r.language for r in problem.references} == {"python"}
        assert len(problem.tests) <= 5  # few original tests, as real rows
        assert (BUILD / f"{problem.source.dataset}-generators" / f"{problem.id}.py").is_file()
    # Python 2 and C++ solutions are in the rows but filtered out: names skip their positions
    assert "correct-4" not in {r.name for r in problems["9001_a-pair-sums"].references}
    assert problems["9001_a-pair-sums"].time_limit_s == 2.0


def test_fixture_solutions_get_the_intended_verdicts_on_the_original_tests(executor) -> None:
    for problem in fixture_problems():
        report = verify_problem(problem, executor=executor, show_progress=False)
        passing = {r.reference.name for r in report.references if r.record.all_passed}
        correct = {r.name for r in problem.references if r.label is ReferenceLabel.CORRECT}
        mislabelled = FAIL_ORIGINALS.get(problem.id, set())
        assert mislabelled <= correct
        assert passing == (correct - mislabelled) | PASS_ORIGINALS[problem.id], problem.id


@pytest.mark.parametrize("path", sorted(BUILD.glob("*-generators/*.py")), ids=lambda p: p.stem)
def test_generators_are_deterministic_and_large_is_large(executor, path: Path) -> None:
    code = path.read_text(encoding="utf-8")

    def generate(mode: str, seed: int) -> str:
        argv = f"import sys\nsys.argv = ['generator.py', {mode!r}, '{seed}']\n"
        result, out = executor.capture(argv + code, "")
        assert result.status.value == "success", (mode, seed, result)
        return out

    small = generate("small", 1)
    assert small == generate("small", 1) != generate("small", 2)
    assert int(generate("large", 1).split()[0]) >= 2000 > int(small.split()[0])
