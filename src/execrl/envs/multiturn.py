"""Multi-turn episodes (spec/dense-rewards.md, "Multi-turn episodes"): the pure parts.

A group of episodes for one problem advances one turn at a time (the loop that drives a
policy and an executor is :func:`execrl.rl.episodes.run_episodes`): each turn's completion is
run on every test (no early stop), and a failing episode gets a feedback message (which tests
failed, with truncated input, expected and actual output, or the error and its last traceback
lines) and writes a new full program next turn. This module holds what that loop is made of:
the first prompt, the feedback text, the turn reward, the requests a turn sends, and the
episode record (:class:`Turn`, :class:`Trajectory`), from which group-level dense rewards are
computed afterwards (``[t.records for t in trajectories]``).

Which tests the feedback may show is :class:`FeedbackConfig.visible`; by default only public
tests (ids ``example-*`` in the bundled set and native folders, ``public-*`` from CodeContests
and LiveCodeBench) are shown, and hidden tests are reported only as a count of failures by
status. The actual output and the traceback are not stored in a record (it keeps the verdict
and a one-line detail), so for the few failing tests that are listed the program is run once
more on that test's input (:func:`failures_to_observe` says which; the runner re-runs them
through ``executor.capture``); see docs/multiturn.md.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from execrl.envs.environment import Environment
from execrl.problems.models import AssertTest, CallTest, Problem, StdioTest, TestCase, TestGroup
from execrl.sandbox.limits import ExecutionOptions
from execrl.sandbox.protocol import Conversation, ExecutionRequest, Message
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

TurnReward = Callable[[ExecutionRecord], float | None]


# -- feedback ---------------------------------------------------------------------------------

DEFAULT_TEMPLATE = """\
Your program passed {passed} of {total} tests.

{failures}

{hidden}

Write a new, complete Python program that fixes the problem, in one ```python code block."""

TEMPLATE_FIELDS = frozenset({"passed", "total", "failures", "hidden", "turn", "turns_left"})

STATUS_WORDS = {
    Status.SUCCESS: "passed",
    Status.WRONG_ANSWER: "wrong answer",
    Status.RUNTIME_ERROR: "runtime error",
    Status.TIMEOUT: "time limit exceeded",
    Status.MEMORY_LIMIT: "memory limit exceeded",
    Status.OUTPUT_LIMIT: "output limit exceeded",
    Status.COMPILE_ERROR: "compile error",
    Status.COMPILE_TIMEOUT: "compilation took too long",
    Status.INCONCLUSIVE: "could not be run (a sandbox failure, not your program)",
}


class FeedbackConfig(BaseModel):
    """What the feedback message after a failing turn shows, and how much of it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    visible: Literal["public", "all", "none"] = "public"
    """Tests whose data (input, expected, actual, traceback) may appear: ``public`` (ids
    starting with one of ``public_prefixes``), ``all`` (hidden tests too: the model then sees
    the test suite it is scored on) or ``none`` (only counts by status)."""
    public_prefixes: tuple[str, ...] = ("example", "public")
    """Test-id prefixes that mark a test public: ``example-*`` (bundled set, native folders),
    ``public-*`` (CodeContests, LiveCodeBench)."""
    fallback_public: int = Field(default=0, ge=0)
    """For a problem with no test marked public (TACO/APPS ``test-*``, HumanEval): treat its
    first this-many ``original`` tests as public. 0 keeps them all hidden."""
    max_failing_tests: int = Field(default=3, ge=0)
    """Failing visible tests listed in detail; the rest are counted."""
    field_chars: int = Field(default=400, ge=16)
    """Budget per shown field (input, expected, actual, error), in characters; longer text is
    cut and says how much was cut."""
    total_chars: int = Field(default=3000, ge=200)
    """Budget for the whole message, in characters: tests are listed while they fit."""
    traceback_lines: int = Field(default=8, ge=1)
    """Last lines of a traceback kept (frames of the program only, ending with the error)."""
    rerun_failing: bool = True
    """Run each listed failing stdio test once more to capture its actual output and full
    traceback (the record keeps only a one-line detail). Off: the one-line detail is shown."""
    template: str = DEFAULT_TEMPLATE
    """The user message. Placeholders: ``{passed}`` and ``{total}`` (tests passed / run this
    turn), ``{failures}`` (the listed failing tests, or the compile error), ``{hidden}`` (one
    line counting failures not listed; empty when none), ``{turn}`` (the turn just run,
    1-based), ``{turns_left}``. Runs of blank lines left by empty fields are collapsed."""

    @field_validator("template")
    @classmethod
    def _known_fields(cls, template: str) -> str:
        names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
        unknown = names - TEMPLATE_FIELDS
        if unknown:
            raise ValueError(
                f"unknown placeholder(s) {sorted(unknown)} in the feedback template; "
                f"use {sorted(TEMPLATE_FIELDS)} (write {{{{ and }}}} for literal braces)"
            )
        return template


@dataclass(frozen=True)
class Observed:
    """What a failing test's re-run showed: the program's stdout and, if it raised, the
    traceback (program frames only)."""

    stdout: str
    traceback: str = ""


def visible_test_ids(problem: Problem, config: FeedbackConfig) -> set[str]:
    """The ids of the tests whose data the feedback may show."""
    if config.visible == "all":
        return {t.id for t in problem.tests}
    if config.visible == "none":
        return set()
    public = {t.id for t in problem.tests if t.id.startswith(config.public_prefixes)}
    if public or not config.fallback_public:
        return public
    return {t.id for t in problem.tests_in(TestGroup.ORIGINAL)[: config.fallback_public]}


def format_feedback(
    problem: Problem,
    record: ExecutionRecord,
    config: FeedbackConfig | None = None,
    *,
    observed: dict[str, Observed] | None = None,
    turn: int = 1,
    max_turns: int | None = None,
) -> str:
    """The user message that follows a failing turn (pure: no execution).

    ``observed`` holds re-run outputs by test id (see
    :func:`execrl.rl.episodes.observe_failures`); without one a test's actual output is the
    record's one-line detail.
    """
    config = config or FeedbackConfig()
    observed = observed or {}
    tests = {t.id: t for t in problem.tests}
    visible = visible_test_ids(problem, config)
    failed = record.failed()
    compile_errors = [r for r in failed if r.status is Status.COMPILE_ERROR]
    fields = {
        "passed": sum(r.passed for r in record.results),
        "total": len(record.results),
        "turn": turn,
        "turns_left": "unlimited" if max_turns is None else max(max_turns - turn, 0),
    }
    if compile_errors:  # the same error on every test: say it once, no test data needed
        first = compile_errors[0]
        error = _tail(observed.get(first.test_id, Observed("")).traceback or first.detail, config)
        failures = f"Your program does not compile:\n{_fence(error)}"
        return _render(config, fields, failures, "")

    shown = [r for r in failed if r.test_id in visible and r.test_id in tests]
    hidden = [r for r in failed if r.test_id not in visible or r.test_id not in tests]
    blocks = [
        _test_block(tests[r.test_id], r, observed.get(r.test_id), config)
        for r in shown[: config.max_failing_tests]
    ]
    if not shown and visible:
        opening = "Every test you can see passes; the failures are in hidden tests."
    else:
        opening = ""
    # List as many blocks as fit in the total budget; the rest are counted instead.
    for k in range(len(blocks), -1, -1):
        notes = []
        if shown[k:]:
            notes.append(
                f"{len(shown[k:])} more failing test(s) not shown: {_by_status(shown[k:])}."
            )
        if hidden:
            notes.append(f"{len(hidden)} hidden test(s) failed: {_by_status(hidden)}.")
        message = _render(config, fields, "\n\n".join(blocks[:k]) or opening, " ".join(notes))
        if len(message) <= config.total_chars:
            return message
    return message[: config.total_chars - 1] + "…"


def _render(config: FeedbackConfig, fields: dict[str, Any], failures: str, hidden: str) -> str:
    text = config.template.format(failures=failures, hidden=hidden, **fields)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def _test_block(
    test: TestCase, result: TestResult, seen: Observed | None, config: FeedbackConfig
) -> str:
    lines = [f"Test {test.id} failed: {STATUS_WORDS[result.status]}."]
    if isinstance(test, StdioTest):
        lines += ["Input:", _fence(_clip(test.input, config.field_chars))]
        if result.status is Status.WRONG_ANSWER:
            lines += ["Expected output:", _fence(_clip(test.output, config.field_chars))]
            if seen is not None:
                actual = _clip(seen.stdout, config.field_chars) if seen.stdout else "(no output)"
                lines += ["Your output:", _fence(actual)]
            else:
                lines.append(f"First difference: {_clip(result.detail, config.field_chars)}")
    elif isinstance(test, CallTest):
        call = f"{test.fn_name}({', '.join(repr(a) for a in test.args)})"
        lines += ["Call:", _fence(_clip(call, config.field_chars))]
        lines += ["Expected:", _fence(_clip(repr(test.expected), config.field_chars))]
    elif isinstance(test, AssertTest):
        lines += ["Test code:", _fence(_clip(test.code, config.field_chars))]
    if result.status is Status.RUNTIME_ERROR:
        error = seen.traceback if seen is not None and seen.traceback else result.detail
        lines += ["Error:", _fence(_tail(error, config))]
    elif result.detail and (
        result.status is not Status.WRONG_ANSWER or not isinstance(test, StdioTest)
    ):
        lines.append(f"Detail: {_clip(result.detail, config.field_chars)}")
    return "\n".join(lines)


def _by_status(results: list[TestResult]) -> str:
    counts = Counter(STATUS_WORDS[r.status] for r in results)
    return ", ".join(f"{word} ×{n}" for word, n in counts.most_common())


def _tail(text: str, config: FeedbackConfig) -> str:
    """The last ``traceback_lines`` lines, then at most ``field_chars`` characters of their end."""
    lines = text.rstrip().splitlines()[-config.traceback_lines :]
    kept = "\n".join(lines)
    if len(kept) <= config.field_chars:
        return kept
    return f"… ({len(kept) - config.field_chars} characters cut)\n" + kept[-config.field_chars :]


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit} more characters)"


def _fence(text: str) -> str:
    return f"```\n{text.rstrip(chr(10))}\n```"


# -- which listed failures to re-run for their output and traceback ---------------------------

_MARKER = "--- execrl traceback 6f1d ---"
_OBSERVE_WRAPPER = """\
import linecache as _lc, sys as _sys, traceback as _tb
_src = {source!r}
_lc.cache["solution.py"] = (len(_src), None, _src.splitlines(True), "solution.py")
try:
    _code = compile(_src, "solution.py", "exec")
    exec(_code, {{"__name__": "__main__", "__builtins__": __builtins__}})
except SystemExit:
    raise
except BaseException as _exc:
    _t = _exc.__traceback__
    while _t is not None and _t.tb_frame.f_code.co_filename != "solution.py":
        _t = _t.tb_next
    _sys.stdout.write("\\n{marker}\\n")
    _tb.print_exception(type(_exc), _exc, _t, file=_sys.stdout)
    _sys.stdout.flush()
    _sys.exit(1)
"""
"""Runs the program as ``solution.py`` with its source known to linecache, and writes the
traceback of its own frames after a marker on stdout (``capture`` returns stdout only)."""


def failures_to_observe(
    problem: Problem, record: ExecutionRecord, config: FeedbackConfig
) -> list[tuple[str, str]]:
    """``(test id, stdin)`` of the failing tests the feedback will list, to re-run for their
    stdout and traceback (pure: the re-run is :func:`execrl.rl.episodes.observe_failures`).

    Only stdio tests that the feedback may show, with a wrong answer or runtime error, at most
    ``config.max_failing_tests``; a compile error is one run (it is the same on every test).
    Nothing when ``config.rerun_failing`` is off.
    """
    if not config.rerun_failing:
        return []
    tests = {t.id: t for t in problem.tests}
    visible = visible_test_ids(problem, config)
    wanted: list[tuple[str, str]] = []
    for result in record.failed():
        test = tests.get(result.test_id)
        if result.status is Status.COMPILE_ERROR:
            return [(result.test_id, test.input if isinstance(test, StdioTest) else "")]
        if (
            result.test_id in visible
            and isinstance(test, StdioTest)
            and result.status in (Status.WRONG_ANSWER, Status.RUNTIME_ERROR)
            and len(wanted) < config.max_failing_tests
        ):
            wanted.append((result.test_id, test.input))
    return wanted


def observing_program(program: str) -> str:
    """``program`` wrapped to print its own traceback after a marker on stdout."""
    return _OBSERVE_WRAPPER.format(source=program, marker=_MARKER)


def observed_output(stdout: str) -> Observed:
    """Split a wrapped program's stdout into its own output and its traceback."""
    out, _, trace = stdout.partition(f"\n{_MARKER}\n")
    return Observed(stdout=out, traceback=trace)


# -- episodes ---------------------------------------------------------------------------------


def pass_fraction(record: ExecutionRecord) -> float | None:
    """The default turn reward: the fraction of tests passed; None when any test was
    inconclusive (an infrastructure failure is not scored)."""
    if not record.results or any(r.status is Status.INCONCLUSIVE for r in record.results):
        return None
    return sum(r.passed for r in record.results) / len(record.results)


@dataclass(frozen=True)
class Turn:
    """One turn of one episode."""

    messages: tuple[Message, ...]
    """The conversation the policy was given."""
    completion: str
    program: str
    """The code extracted from the completion."""
    record: ExecutionRecord
    reward: float | None
    """``turn_reward(record)``; None when the reward declined to score (inconclusive)."""
    feedback: str | None = None
    """The user message written after this turn; None when it passed or was the last."""

    @property
    def passed(self) -> bool:
        return self.record.all_passed


@dataclass
class Trajectory:
    """One episode: its turns in order."""

    problem_id: str
    steps: list[Turn] = field(default_factory=list)

    @property
    def turns(self) -> int:
        return len(self.steps)

    @property
    def solved(self) -> bool:
        """Whether the final turn passed every test."""
        return bool(self.steps) and self.steps[-1].passed

    @property
    def records(self) -> list[ExecutionRecord]:
        """One record per turn: the input of group-level dense rewards."""
        return [s.record for s in self.steps]

    @property
    def rewards(self) -> list[float | None]:
        return [s.reward for s in self.steps]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a JSON line: every turn's messages, completion, program, verdicts."""
        return {
            "problem_id": self.problem_id,
            "turns": self.turns,
            "solved": self.solved,
            "steps": [
                {
                    "messages": list(s.messages),
                    "completion": s.completion,
                    "program": s.program,
                    "reward": s.reward,
                    "passed": s.passed,
                    "feedback": s.feedback,
                    "record": s.record.model_dump(mode="json"),
                }
                for s in self.steps
            ],
        }


SYSTEM_PROMPT = (
    "You are an expert Python programmer. Answer with one complete Python 3 program "
    "in a single ```python code block."
)


def default_prompt(problem: Problem) -> Conversation:
    """Turn 1: a system message and the statement, with how the program is called."""
    kinds = problem.test_kinds
    if kinds <= {"stdio"}:
        how = "Read the input from standard input and write the answer to standard output."
    elif "call" in kinds:
        how = (
            f"Define a function `{problem.entry_point}`; it is called with each test's "
            "arguments and its return value is checked."
        )
    else:
        how = f"Complete the function `{problem.entry_point}`; assert-style tests call it."
    parts = [problem.statement.strip(), how]
    if problem.starter_code:
        parts.append(f"Start from this code:\n```python\n{problem.starter_code.rstrip()}\n```")
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def episode_requests(
    problem: Problem, env: Environment | None
) -> Callable[[str, str], ExecutionRequest]:
    """Builds an episode turn's ExecutionRequest from ``(program, program name)``: the
    correctness tests T0 ∪ T+ under the problem's limits, or what ``env`` plans (its tests,
    hard cap and timing); every test runs (no early stop), so each record holds the full
    pass/fail vector dense rewards need."""
    options = ExecutionOptions(stop_at_first_failure=False)
    if env is None:
        tests = problem.correctness_tests
        return lambda program, name: ExecutionRequest.for_problem(
            problem, program, tests=tests, options=options, program_name=name
        )
    plan = env.plan(problem)
    options = ExecutionOptions(stop_at_first_failure=False, timing=plan.timing)
    return lambda program, name: env.request(
        problem, program, plan=plan, options=options, program_name=name
    )
