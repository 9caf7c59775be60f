"""The pairwise judge's pure parts (spec pairwise-judge.md): the tolerant parser on messy
answers of the kind judges write, pair selection and its drop counts on a hand-built campaign
(speed ties at 0.99% vs 1.01%), the order mapping, the < 3 speed-correct rule and majority
labels, the metrics, and judge.jsonl's resume. Records are built directly (no sandbox);
answers are texts a judge could write, replayed by :class:`RecordedJudge` (no model)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime

import pytest

from execrl.errors import UsageError
from execrl.evaluate.folder import CampaignInfo
from execrl.evaluate.judge import (
    REFERENCES,
    Candidate,
    JudgeCall,
    JudgePair,
    PairSelection,
    call_order,
    is_speed_correct,
    judge_metrics,
    judge_prompt,
    label_pair,
    majority,
    relative_difference,
    select_pairs,
)
from execrl.evaluate.judge_parse import (
    SAME,
    SOLUTION_1,
    SOLUTION_2,
    Classification,
    Judgement,
    PrimaryCategory,
    faster_value,
    json_objects,
    parse_judgement,
)
from execrl.evaluate.judge_run import CALLS_FILE, METRICS_FILE, JudgeSettings, judge_pairs
from execrl.evaluate.replay import EvalData, SampleRun
from execrl.problems import Problem, Reference, StdioTest, TestGroup
from execrl.sandbox import ExecutionRecord, Status, TestResult

OK, TO, WA = Status.SUCCESS, Status.TIMEOUT, Status.WRONG_ANSWER
IO, ALGO, DS = (
    PrimaryCategory.IO_OPTIMIZATION,
    PrimaryCategory.ALGORITHM_CHANGE,
    PrimaryCategory.DATA_STRUCTURE_CHANGE,
)


def answer(faster="Solution 1", category="IO_OPTIMIZATION", kind="SUPERFICIAL") -> str:
    """A well-formed judge answer: analysis, then the JSON object in a fence."""
    obj = {
        "faster": faster,
        "primary_category": category,
        "secondary_categories": ["CONSTANT_FACTOR"],
        "classification": kind,
        "classification_reason": "same algorithm, faster input reading",
        "complexity": {
            "solution_1": {"best": "O(n)", "average": "O(n)", "worst": "O(n)"},
            "solution_2": {"best": "O(n)", "average": "O(n)", "worst": "O(n)"},
        },
        "complexity_improves": {"best": False, "average": False, "worst": False},
        "key_differences": ["sys.stdin.buffer instead of input()"],
    }
    return f"Both read n numbers.\n\n```json\n{json.dumps(obj, indent=2)}\n```\n"


# --------------------------------------------------------------------------------------------
# The parser


def test_a_fenced_object_after_free_text_is_read_in_the_spec_values():
    result = parse_judgement(answer())
    assert result.error is None
    j = result.judgement
    assert j.faster == SOLUTION_1 and j.primary_category is IO
    assert j.secondary_categories == (PrimaryCategory.CONSTANT_FACTOR,)
    assert j.classification is Classification.SUPERFICIAL
    assert j.classification_reason == "same algorithm, faster input reading"
    assert j.complexity["solution_2"] == {"best": "O(n)", "average": "O(n)", "worst": "O(n)"}
    assert j.complexity_improves == {"best": False, "average": False, "worst": False}
    assert j.key_differences == ("sys.stdin.buffer instead of input()",)


def test_of_two_objects_the_last_one_is_the_judgement():
    text = (
        'I will answer as {"faster": "Solution 2", "primary_category": "ALGORITHM_CHANGE", '
        '"classification": "ALGORITHMIC"} but first let me think. Solution 1 uses a set '
        "{a, b}... Final answer:\n"
        '{"faster": "Solution 1", "primary_category": "DATA_STRUCTURE_CHANGE", '
        '"classification": "ALGORITHMIC"}'
    )
    assert len(json_objects(text)) == 3  # the prose's "{a, b}" is balanced too (not JSON)
    j = parse_judgement(text).judgement
    assert (j.faster, j.primary_category) == (SOLUTION_1, DS)


def test_a_last_object_that_is_not_a_judgement_falls_back_to_the_one_before():
    text = answer(faster="Solution 2") + '\nExample of a set: {"a": 1}\n'
    assert parse_judgement(text).judgement.faster == SOLUTION_2


def test_python_literals_single_quotes_and_trailing_commas_are_repaired():
    text = (
        "Analysis: Solution 2 doesn't parse ints.\n"
        "{'faster': 'solution_2', 'primary_category': 'io optimization', "
        "'classification': 'superficial', 'classification_reason': 'it isn't algorithmic',\n"
        " 'complexity_improves': {'best': None, 'average': False, 'worst': True,},\n"
        " 'key_differences': ['reads bytes', 'no {int} parse',],}"
    )
    j = parse_judgement(text).judgement
    assert j.faster == SOLUTION_2 and j.primary_category is IO
    assert j.classification is Classification.SUPERFICIAL
    assert j.classification_reason == "it isn't algorithmic"
    assert j.complexity_improves == {"best": None, "average": False, "worst": True}
    assert j.key_differences == ("reads bytes", "no {int} parse")


@pytest.mark.parametrize(
    ("given", "faster"),
    [
        ("Solution 1", SOLUTION_1),
        ("1", SOLUTION_1),
        (1, SOLUTION_1),
        ("solution_1", SOLUTION_1),
        ("SOLUTION #2", SOLUTION_2),
        ("Solution-2", SOLUTION_2),
        (2, SOLUTION_2),
        ("same", SAME),
        ("Equal", SAME),
    ],
)
def test_faster_is_read_in_any_spelling(given, faster):
    assert faster_value(given) == faster


@pytest.mark.parametrize(
    ("given", "category"),
    [
        ("algorithm change", ALGO),
        ("Algorithm-Change", ALGO),
        ("data_structure_change", DS),
        ("I/O optimization", IO),
        ("Caching/Memoization", PrimaryCategory.CACHING_MEMOIZATION),
        ("mathematical shortcut", PrimaryCategory.MATHEMATICAL_SHORTCUT),
    ],
)
def test_enum_values_are_case_and_separator_insensitive(given, category):
    text = json.dumps({"faster": "2", "primary_category": given, "classification": "Algorithmic"})
    j = parse_judgement(text).judgement
    assert j.primary_category is category and j.classification is Classification.ALGORITHMIC


def test_keys_in_other_spellings_are_read():
    text = (
        '{"Faster": "Solution 1", "Primary Category": "CONSTANT_FACTOR", '
        '"CLASSIFICATION": "SUPERFICIAL"}'
    )
    assert parse_judgement(text).judgement.primary_category is PrimaryCategory.CONSTANT_FACTOR


def test_same_needs_no_category():
    j = parse_judgement('Both are alike. {"faster": "Same"}').judgement
    assert j.faster == SAME and j.primary_category is None and j.classification is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Solution 1 is faster because it uses a set.", "no JSON object"),
        ('Answer:\n```json\n{"faster": "Solution 1", "primary_category": "IO_OPT', "cut short"),
        ('{"primary_category": "IO_OPTIMIZATION"}', "no 'faster' field"),
        ('{"faster": "Solution 3", "primary_category": "IO_OPTIMIZATION"}', "Solution 3"),
        (
            '{"faster": "1", "primary_category": "FASTER_CODE", "classification": "ALGORITHMIC"}',
            "FASTER_CODE",
        ),
        ('{"faster": "1", "primary_category": "IO_OPTIMIZATION"}', "classification None"),
        ('{"faster": "1", "primary_category": IO_OPTIMIZATION}', "not valid JSON"),
        ("[1, 2]", "no JSON object"),
    ],
)
def test_unreadable_answers_are_errors_with_a_reason_never_exceptions(text, reason):
    result = parse_judgement(text)
    assert result.judgement is None
    assert reason in result.error


def test_a_smollm_like_ramble_is_an_error_not_a_crash():
    text = "Solution 1:\n```python\nprint({x: 1 for x in range(3)})\n```\n" * 3 + "{{{"
    result = parse_judgement(text)
    assert result.judgement is None and result.error


# --------------------------------------------------------------------------------------------
# Pair selection on a hand-built campaign

CORRECTNESS = ("c1", "c2")
OPTIMIZATION = ("o1", "o2")


def problem(pid: str) -> Problem:
    tests = [
        StdioTest(id=t, group=TestGroup.ORIGINAL, input="1\n", output="1\n") for t in CORRECTNESS
    ] + [
        StdioTest(id=t, group=TestGroup.OPTIMIZATION, input="2\n", output="2\n")
        for t in OPTIMIZATION
    ]
    refs = [
        Reference(name=n, code=f"# {n}\nprint(input())", label="correct")
        for n in ("r1", "r2", "r3")
    ]
    refs.append(Reference(name="bad", code="print(0)", label="incorrect"))
    return Problem(
        id=pid, statement=f"Statement of {pid}.", time_limit_s=10, tests=tests, references=refs
    )


def record(
    pid: str, name: str, opt_s: float | None, *, status=OK, correctness=True
) -> ExecutionRecord:
    """A record with every optimization test at ``opt_s`` seconds (and ``status``); the
    correctness tests too when ``correctness`` (samples run them, references do not)."""
    results = [TestResult(test_id=t, status=OK, cpu_s=0.01) for t in CORRECTNESS if correctness]
    results += [TestResult(test_id=t, status=status, cpu_s=opt_s or 0.0) for t in OPTIMIZATION]
    return ExecutionRecord(problem_id=pid, program_sha256=name, program_name=name, results=results)


FAIL = None
SAMPLES = {  # problem: {model: [(mean optimization seconds or FAIL), ...]}
    "both-fail": {"m": [FAIL], "n": [FAIL]},
    "one-fails": {"m": [1.0], "n": [FAIL, FAIL]},
    "tie-0.99pc": {"m": [1.0], "n": [1.0099]},
    "kept-1.01pc": {"m": [1.0], "n": [1.0101]},
    "best-of-n": {"m": [2.0, FAIL, 1.5], "n": [3.0]},
    "n-wins": {"m": [4.0], "n": [2.0, 1.0]},
}


def make_data() -> tuple[EvalData, dict]:
    runs, refs, programs = [], {}, {}
    for pid, models in SAMPLES.items():
        for model, means in models.items():
            for i, mean in enumerate(means):
                status = WA if mean is FAIL else OK
                runs.append(
                    SampleRun(model, pid, i, record(pid, f"{model}{i}", mean or 0.5, status=status))
                )
                programs[(model, pid, i)] = f"# {model} sample {i} for {pid}\nprint(input())"
        refs[pid] = {
            "r1": record(pid, "r1", 0.5, status=TO, correctness=False),  # fastest, but timed out
            "r2": record(pid, "r2", 0.8, correctness=False),
            "r3": record(pid, "r3", 0.9, correctness=False),
            "bad": record(pid, "bad", 0.1, correctness=False),  # incorrect: never chosen
        }
    campaign = CampaignInfo(
        created_at=datetime.now(UTC),
        seed=0,
        cap_s=None,
        repeats=1,
        timing="cpu",
        workers=1,
        samples=len(runs),
        references=4 * len(SAMPLES),
        wall_s=0.0,
    )
    problems = {pid: problem(pid) for pid in SAMPLES}
    return EvalData(problems, ["m", "n"], runs, refs, campaign), programs


@pytest.fixture(scope="module")
def selection() -> PairSelection:
    data, programs = make_data()
    return select_pairs(data, programs, "m", "n")


def test_pair_selection_counts_follow_the_spec(selection):
    assert selection.counts() == {
        "problems": 6,
        "both_fail": 1,
        "one_fails": 1,
        "speed_ties": 1,  # 0.99% apart
        "judged_pairs": 3,  # 1.01% apart is kept
    }
    assert [p.problem_id for p in selection.pairs] == ["kept-1.01pc", "best-of-n", "n-wins"]
    assert selection.describe() == (
        "6 problems → 1 both fail, 1 one fails, 1 speed ties → 3 judged pairs"
    )


def test_each_side_is_its_best_passing_sample_by_mean_optimization_duration(selection):
    best = {p.problem_id: p for p in selection.pairs}
    assert best["best-of-n"].a.name == "m#2" and best["best-of-n"].a.mean_duration == 1.5
    assert best["best-of-n"].faster == "m"
    assert best["n-wins"].b.name == "n#1" and best["n-wins"].faster == "n"
    assert best["kept-1.01pc"].relative_difference == pytest.approx(0.0101)
    assert "sample 2" in best["best-of-n"].a.code  # the program the judge will see


def test_the_reference_side_is_the_fastest_correct_reference_that_passed():
    data, programs = make_data()
    chosen = select_pairs(data, programs, "m", REFERENCES)
    # r1 timed out, 'bad' is incorrect: r2 (0.8 s) is the reference; every m passes somewhere
    # except both-fail; m's 1.0 vs 0.8 and so on are all kept.
    assert chosen.counts() == {
        "problems": 6,
        "both_fail": 0,
        "one_fails": 1,
        "speed_ties": 0,
        "judged_pairs": 5,
    }
    assert {p.b.name for p in chosen.pairs} == {"r2"}
    assert all(p.b.source == REFERENCES and p.faster == REFERENCES for p in chosen.pairs)


def test_unknown_or_equal_sources_are_one_line_usage_errors():
    data, programs = make_data()
    with pytest.raises(UsageError, match=r"no source 'mm'.*\(m, n\) or 'references'"):
        select_pairs(data, programs, "mm", "n")
    with pytest.raises(UsageError, match="two different sources"):
        select_pairs(data, programs, "m", "m")


def test_relative_difference_is_relative_to_the_faster_program():
    assert relative_difference(1.0, 1.0099) == pytest.approx(0.0099)
    assert relative_difference(2.0, 1.0) == 1.0
    assert relative_difference(0.0, 0.0) == 0.0
    assert relative_difference(0.0, 1.0) == float("inf")


# --------------------------------------------------------------------------------------------
# Order, speed-correct mapping, labels


def a_pair(pid: str = "p", fast: str = "m") -> JudgePair:
    m = Candidate("m", "m#0", "print('m')", 1.0 if fast == "m" else 2.0)
    n = Candidate("n", "n#0", "print('n')", 2.0 if fast == "m" else 1.0)
    return JudgePair(pid, "Add two numbers.", m, n)


def test_the_order_is_random_per_call_seeded_and_shown_blinded():
    pair = a_pair()
    orders = [call_order(pair, r, seed=0) for r in range(200)]
    assert orders == [call_order(pair, r, seed=0) for r in range(200)]  # reproducible
    assert 70 < Counter(orders)[("m", "n")] < 130  # a fair coin
    assert orders != [call_order(pair, r, seed=1) for r in range(200)]
    prompt = judge_prompt(pair, ("n", "m"))[1]["content"]
    assert prompt.index("print('n')") < prompt.index("print('m')")  # n is Solution 1
    assert "Add two numbers." in prompt and "2.0" not in prompt and "m#0" not in prompt


def call(order, faster=SOLUTION_1, category=IO, kind=Classification.SUPERFICIAL, r=0):
    j = Judgement(faster=faster, primary_category=category, classification=kind)
    return JudgeCall("p", r, order, "raw", j if faster else None, None if faster else "bad")


def test_speed_correct_maps_the_answer_back_through_the_order():
    assert is_speed_correct(call(("m", "n"), SOLUTION_1), "m")
    assert is_speed_correct(call(("n", "m"), SOLUTION_2), "m")
    assert not is_speed_correct(call(("n", "m"), SOLUTION_1), "m")
    assert not is_speed_correct(call(("m", "n"), SAME), "m")
    assert not is_speed_correct(call(("m", "n"), None), "m")  # unparseable


def test_fewer_than_three_speed_correct_calls_is_unclassifiable():
    pair = a_pair()
    two = [call(("m", "n")), call(("n", "m"), SOLUTION_2), call(("n", "m")), call(("m", "n"), None)]
    label = label_pair(pair, two)
    assert (label.calls, label.parsed, label.speed_correct) == (4, 3, 2)
    assert not label.classifiable and label.primary_category is None
    three = [*two, call(("m", "n"), category=ALGO, kind=Classification.ALGORITHMIC)]
    label = label_pair(pair, three)
    assert label.classifiable and label.speed_correct == 3
    assert label.primary_category is IO and not label.category_tied  # 2 IO vs 1 ALGO
    assert label.classification is Classification.SUPERFICIAL


def test_the_majority_counts_only_speed_correct_calls_and_ties_go_to_the_spec_order():
    pair = a_pair()
    calls = [
        call(("m", "n"), category=IO),
        call(("m", "n"), category=DS),
        call(("m", "n"), category=ALGO, kind=Classification.ALGORITHMIC),
        call(("n", "m"), category=IO),  # wrong side: does not vote
        call(("n", "m"), category=IO),
    ]
    label = label_pair(pair, calls)
    assert label.speed_correct == 3
    assert label.primary_category is ALGO and label.category_tied  # 1-1-1: listed first
    assert label.classification is Classification.SUPERFICIAL and not label.classification_tied
    assert majority([None, None], list(Classification)) == (None, False)


def test_metrics_count_calls_and_split_the_shares_by_winner():
    pairs = (a_pair("p1", "m"), a_pair("p2", "m"), a_pair("p3", "n"))
    selection = PairSelection(("m", "n"), 5, 1, 0, 1, pairs)
    won_m_io = [call(("m", "n"), category=IO, r=r) for r in range(3)]
    won_m_ds = [call(("n", "m"), SOLUTION_2, category=DS, r=r) for r in range(3)]
    p3 = [call(("m", "n"), r=0), call(("m", "n"), None, r=1), call(("m", "n"), SAME, r=2)]
    metrics = judge_metrics(selection, {"p1": won_m_io, "p2": won_m_ds, "p3": p3}, calls_per_pair=3)
    assert (metrics.calls, metrics.parsed, metrics.unparseable, metrics.same) == (9, 8, 1, 1)
    assert metrics.speed_correct == 6
    assert metrics.speed_accuracy == pytest.approx(6 / 9)  # unparseable counts as wrong
    assert metrics.speed_accuracy_parsed == pytest.approx(6 / 8)
    assert metrics.classifiable == 2 and metrics.classifiable_share == pytest.approx(2 / 3)
    m = metrics.by_winner["m"]
    assert (m.pairs, m.classifiable) == (2, 2)
    assert m.primary_category["IO_OPTIMIZATION"] == 0.5
    assert m.primary_category["DATA_STRUCTURE_CHANGE"] == 0.5
    assert m.classification == {"ALGORITHMIC": 0.0, "SUPERFICIAL": 1.0}
    n = metrics.by_winner["n"]
    assert (n.pairs, n.classifiable) == (1, 0) and sum(n.primary_category.values()) == 0
    assert metrics.by_winner["all"].pairs == 3
    data = metrics.to_dict()
    assert data["selection"]["judged_pairs"] == 3 and len(data["pairs"]) == 3


# --------------------------------------------------------------------------------------------
# judge.jsonl: every call kept, a rerun resumes


class RecordedJudge:
    """Answers a judge wrote, replayed in turn (a Sampler; counts what it was asked)."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers
        self.asked = 0

    def sample(self, conversation, n: int) -> list[str]:
        out = [self.answers[(self.asked + i) % len(self.answers)] for i in range(n)]
        self.asked += n
        return out


def test_every_call_is_stored_and_a_rerun_skips_the_calls_done(selection, tmp_path):
    judge = RecordedJudge([answer(), "I think Solution 2 is faster.", answer("2")])
    settings = JudgeSettings(calls_per_pair=4, seed=3)
    first = judge_pairs(
        selection, judge, tmp_path, judge="recorded", settings=settings, progress=False
    )
    assert (first.new_calls, first.resumed) == (12, 0) and judge.asked == 12
    rows = [json.loads(line) for line in (tmp_path / CALLS_FILE).read_text().splitlines()]
    assert len(rows) == 12
    assert sum(r["parsed"] is None for r in rows) == sum(r["error"] is not None for r in rows)
    assert all(r["raw"] for r in rows) and {tuple(r["order"]) for r in rows} == {
        ("m", "n"),
        ("n", "m"),
    }
    m = first.metrics
    assert m.calls == 12 and m.parsed + m.unparseable == 12
    again = judge_pairs(
        selection, judge, tmp_path, judge="recorded", settings=settings, progress=False
    )
    assert (again.new_calls, again.resumed) == (0, 12) and judge.asked == 12
    assert again.metrics.to_dict() == m.to_dict()
    summary = json.loads((tmp_path / METRICS_FILE).read_text())
    assert summary["calls"] == 12 and summary["settings"]["calls_per_pair"] == 4
    assert (tmp_path / "index.html").is_file()
    more = judge_pairs(
        selection,
        judge,
        tmp_path,
        judge="recorded",
        settings=JudgeSettings(calls_per_pair=5, seed=3),
        progress=False,
    )
    assert (more.new_calls, more.resumed) == (3, 12)  # only the fifth call of each pair
