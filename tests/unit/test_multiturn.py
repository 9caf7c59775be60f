"""Multi-turn episodes: scripted policies on a bundled problem in the real sandbox, and the
feedback format on hand-built records."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from execrl.envs.multiturn import (
    FeedbackConfig,
    Observed,
    format_feedback,
    pass_fraction,
    visible_test_ids,
)
from execrl.errors import ExecrlError
from execrl.problems import load_bundled
from execrl.problems.models import CallTest, Problem, StdioTest, TestGroup
from execrl.rl.episodes import ScriptedPolicy, run_episodes
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

WRONG = "Here you go:\n```python\nq = int(input())\nfor _ in range(q):\n    print(input())\n```\n"
"""Echoes each n: right only for n in {1, 2}; example-1 gets 1 2 3 4 instead of 1 2 4 7."""

CRASH = """```python
q = int(input())
ns = [int(input()) for _ in range(q)]

def ways(i):
    return ns[i + 100]

print(ways(0))
```"""

HIDDEN_SECRETS = ["38952872", "590548461", "121415", "66012", "500000", "499999"]
"""Expected outputs and inputs of staircase-climb's hidden tests (edge-1, edge-2, small-3)."""


@pytest.fixture(scope="module")
def staircase() -> Problem:
    (problem,) = load_bundled(["staircase-climb"])
    return problem


@pytest.fixture(scope="module")
def right(staircase) -> str:
    code = staircase.references_labelled("correct")[0].code
    return f"```python\n{code}```"


def _fenced_blocks(text: str) -> list[str]:
    return re.findall(r"```\n(.*?)\n```", text, re.DOTALL)


# -- episodes in the real sandbox --------------------------------------------------------------


def test_fail_then_fix_takes_two_turns_with_feedback(staircase, right, executor):
    policy = ScriptedPolicy([WRONG, right])
    (episode,) = run_episodes(staircase, policy, executor, group_size=1, max_turns=4)

    assert episode.turns == 2 and episode.solved
    first, second = episode.steps
    assert not first.passed and second.passed
    assert episode.rewards[0] < 1.0 and episode.rewards[1] == 1.0
    # Every test ran on every turn (no early stop), so dense rewards get full vectors.
    n_tests = len(staircase.correctness_tests)
    assert [len(r.results) for r in episode.records] == [n_tests, n_tests]
    assert first.program.startswith("q = int(input())")

    text = first.feedback
    assert text is not None and second.feedback is None
    assert "Test example-1 failed: wrong answer." in text
    blocks = _fenced_blocks(text)
    assert "4\n1\n2\n3\n4" in blocks  # the visible input
    assert "1\n2\n4\n7" in blocks  # its expected output
    assert "1\n2\n3\n4" in blocks  # what the program printed
    assert "hidden test(s) failed" in text
    for secret in HIDDEN_SECRETS:
        assert secret not in text
    assert not re.search(r"\b(edge|small)-\d+", text)  # hidden tests are not even named

    # Turn 2 was sent the whole conversation: prompt, the failing completion, the feedback.
    roles = [m["role"] for m in second.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert second.messages[2]["content"] == WRONG
    assert second.messages[3]["content"] == text
    assert "Staircase Climb" in first.messages[1]["content"]


def test_runtime_error_feedback_has_error_and_last_traceback_lines(staircase, right, executor):
    config = FeedbackConfig(traceback_lines=3)
    (episode,) = run_episodes(
        staircase, ScriptedPolicy([CRASH, right]), executor, group_size=1, feedback=config
    )
    text = episode.steps[0].feedback
    assert "failed: runtime error." in text
    error_blocks = [b for b in _fenced_blocks(text) if "IndexError" in b]
    assert error_blocks
    for block in error_blocks:
        lines = block.splitlines()
        assert len(lines) <= 3
        assert lines[-1] == "IndexError: list index out of range"
    assert "return ns[i + 100]" in text  # the program's own line, from the re-run
    assert "zygote" not in text and "<program>" not in text  # no sandbox frames


def test_compile_error_is_reported_once(staircase, right, executor):
    (episode,) = run_episodes(
        staircase, ScriptedPolicy(["```python\ndef f(:\n```", right]), executor, group_size=1
    )
    text = episode.steps[0].feedback
    assert "does not compile" in text and "SyntaxError" in text
    assert "Test example" not in text and episode.solved


def test_pass_on_first_turn_stops(staircase, right, executor):
    policy = ScriptedPolicy([right])
    (episode,) = run_episodes(staircase, policy, executor, group_size=1, max_turns=4)
    assert episode.turns == 1 and episode.solved and episode.rewards == [1.0]
    assert episode.steps[0].feedback is None
    assert len(policy.calls) == 1


def test_max_turns_is_respected(staircase, executor):
    policy = ScriptedPolicy([WRONG] * 5)
    (episode,) = run_episodes(staircase, policy, executor, group_size=1, max_turns=3)
    assert episode.turns == 3 and not episode.solved
    assert [s.feedback is not None for s in episode.steps] == [True, True, False]
    assert len(policy.calls) == 3


def test_group_advances_together(staircase, right, executor):
    # Episode 0 solves at turn 1, episode 1 at turn 2, episode 2 never.
    policy = ScriptedPolicy([[right, WRONG, WRONG], [right, CRASH], [WRONG]])
    episodes = run_episodes(staircase, policy, executor, group_size=3, max_turns=3)

    assert [len(batch) for batch in policy.calls] == [3, 2, 1]  # one batch per turn
    assert [e.turns for e in episodes] == [1, 2, 3]
    assert [e.solved for e in episodes] == [True, True, False]
    assert all(len(e.records) == e.turns for e in episodes)


def test_policy_must_answer_every_conversation(staircase, executor):
    class Short:
        def generate(self, conversations):
            return conversations[:-1] and ["x"]

    with pytest.raises(ExecrlError, match="exactly one per conversation"):
        run_episodes(staircase, Short(), executor, group_size=2)
    with pytest.raises(ExecrlError, match=">= 1"):
        run_episodes(staircase, Short(), executor, max_turns=0)


# -- the feedback format on hand-built records -------------------------------------------------


def _problem(*tests) -> Problem:
    return Problem(id="toy", statement="Echo.", tests=list(tests))


def _record(*results: tuple[str, Status, str]) -> ExecutionRecord:
    return ExecutionRecord(
        problem_id="toy",
        program_sha256="0" * 64,
        results=[TestResult(test_id=i, status=s, detail=d) for i, s, d in results],
    )


EXAMPLE = StdioTest(id="example-1", input="1 2\n", output="3\n")
SECRET = StdioTest(id="secret-1", group=TestGroup.EXTRA, input="40 2\n", output="SECRET42\n")


def test_hidden_tests_are_counted_not_shown():
    record = _record(
        ("example-1", Status.WRONG_ANSWER, "token 0: got '4', expected '3'"),
        ("secret-1", Status.WRONG_ANSWER, "token 0: got '1', expected 'SECRET42'"),
    )
    text = format_feedback(_problem(EXAMPLE, SECRET), record)
    assert "Your program passed 0 of 2 tests." in text
    assert "Test example-1 failed: wrong answer." in text
    assert "First difference: token 0: got '4', expected '3'" in text  # no re-run: the detail
    assert "1 hidden test(s) failed: wrong answer ×1." in text
    assert "SECRET42" not in text and "40 2" not in text and "secret-1" not in text

    shown_all = format_feedback(_problem(EXAMPLE, SECRET), record, FeedbackConfig(visible="all"))
    assert "SECRET42" in shown_all and "hidden" not in shown_all

    none = format_feedback(_problem(EXAMPLE, SECRET), record, FeedbackConfig(visible="none"))
    assert "1 2" not in none and "2 hidden test(s) failed" in none


def test_only_hidden_failures():
    record = _record(("example-1", Status.SUCCESS, ""), ("secret-1", Status.TIMEOUT, ""))
    text = format_feedback(_problem(EXAMPLE, SECRET), record)
    assert "Every test you can see passes" in text
    assert "1 hidden test(s) failed: time limit exceeded ×1." in text


def test_observed_output_and_per_field_budget():
    long_input = "".join(f"{i}\n" for i in range(1000))
    test = StdioTest(id="example-1", input=long_input, output="expected\n")
    record = _record(("example-1", Status.WRONG_ANSWER, "token 0"))
    seen = {"example-1": Observed(stdout="y" * 500)}
    text = format_feedback(_problem(test), record, FeedbackConfig(field_chars=50), observed=seen)
    blocks = _fenced_blocks(text)
    assert blocks[0].startswith(long_input[:50])
    assert f"({len(long_input) - 50} more characters)" in blocks[0]
    assert long_input[:60] not in text
    assert blocks[1] == "expected"
    assert blocks[2].startswith("y" * 50) and "y" * 51 not in text


def test_total_budget_lists_what_fits_and_counts_the_rest():
    tests = [StdioTest(id=f"example-{i}", input="x" * 300, output="1\n") for i in range(5)]
    record = _record(*[(t.id, Status.WRONG_ANSWER, "token 0") for t in tests])
    config = FeedbackConfig(max_failing_tests=5, total_chars=900)
    text = format_feedback(_problem(*tests), record, config)
    assert len(text) <= 900
    listed = text.count("failed: wrong answer.")
    assert 1 <= listed < 5
    assert f"{5 - listed} more failing test(s) not shown: wrong answer ×{5 - listed}." in text

    capped = format_feedback(_problem(*tests), record, FeedbackConfig(max_failing_tests=1))
    assert capped.count("failed: wrong answer.") == 1 and "4 more failing test(s)" in capped


def test_traceback_keeps_the_last_lines():
    trace = "Traceback (most recent call last):\n" + "".join(
        f'  File "solution.py", line {i}, in f\n    f()\n' for i in range(1, 11)
    )
    trace += "RecursionError: maximum recursion depth exceeded"
    record = _record(("example-1", Status.RUNTIME_ERROR, "RecursionError: maximum recursion"))
    seen = {"example-1": Observed(stdout="", traceback=trace)}
    config = FeedbackConfig(traceback_lines=4)
    text = format_feedback(_problem(EXAMPLE), record, config, observed=seen)
    error = _fenced_blocks(text)[-1].splitlines()
    assert error == trace.splitlines()[-4:]

    bare = format_feedback(_problem(EXAMPLE), record, config)  # no re-run: the record's line
    assert _fenced_blocks(bare)[-1] == "RecursionError: maximum recursion"


def test_call_tests_show_the_call_and_the_detail():
    test = CallTest(id="public-0", fn_name="add", args=[1, 2], expected=3)
    record = _record(("public-0", Status.WRONG_ANSWER, "returned 4, expected 3"))
    text = format_feedback(_problem(test), record)
    assert "add(1, 2)" in text and "Detail: returned 4, expected 3" in text


def test_fallback_public_for_problems_that_mark_none():
    tests = [StdioTest(id=f"test-{i}", input=f"{i}\n", output=f"{i}\n") for i in range(4)]
    problem = _problem(*tests)
    assert visible_test_ids(problem, FeedbackConfig()) == set()
    assert visible_test_ids(problem, FeedbackConfig(fallback_public=2)) == {"test-0", "test-1"}


def test_template_placeholders():
    config = FeedbackConfig(template="Turn {turn}, {turns_left} left: {passed}/{total}.\n{hidden}")
    record = _record(("secret-1", Status.WRONG_ANSWER, ""))
    text = format_feedback(_problem(SECRET), record, config, turn=2, max_turns=4)
    assert text == "Turn 2, 2 left: 0/1.\n1 hidden test(s) failed: wrong answer ×1.\n"
    with pytest.raises(ValidationError, match="unknown placeholder"):
        FeedbackConfig(template="{input}")


def test_pass_fraction_does_not_score_inconclusive_runs():
    assert pass_fraction(_record(("a", Status.SUCCESS, ""), ("b", Status.TIMEOUT, ""))) == 0.5
    assert pass_fraction(_record(("a", Status.SUCCESS, ""), ("b", Status.INCONCLUSIVE, ""))) is None


def test_episodes_feed_the_dense_reward_of_their_group(staircase, right, executor):
    """Trajectories → pass tensor → dense rewards and advantages (spec dense-rewards.md): the
    episode fixed in turn 2 earns the decayed trajectory reward γ², the one that never passes
    earns 0, and the combined advantages rank them that way."""
    from execrl.rewards.dense import DenseRewardConfig, PassTensor, dense_rewards

    policy = ScriptedPolicy([[WRONG, WRONG], [right, WRONG]])
    trajectories = run_episodes(staircase, policy, executor, group_size=2, max_turns=2)
    assert [t.turns for t in trajectories] == [2, 2]
    assert [t.solved for t in trajectories] == [True, False]
    test_ids = [t.id for t in staircase.correctness_tests]
    tensor = PassTensor.from_records([t.records for t in trajectories], test_ids)
    out = dense_rewards(tensor, DenseRewardConfig(gamma=0.95, beta=1.0))
    assert out.trajectory_rewards.tolist() == pytest.approx([0.95**2, 0.0])
    # the fixed turn passes every test, so its local reward is the largest in the group
    assert out.turn_rewards[1, 0] == pytest.approx(out.weights.sum())
    assert out.turn_rewards[1, 0] > max(out.turn_rewards[0, 0], out.turn_rewards[1, 1])
    assert out.advantages[1, 0] > 0 > out.advantages[1, 1]
