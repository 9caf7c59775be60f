"""The problem model: statements, test groups, references with known speeds.

Test groups follow spec/optimization-rl.md §1: ``original`` is T0 (the problem's own public,
private and generated tests), ``extra`` is T+ (additional correctness tests) and
``optimization`` is T_O (large inputs built to be timed). Correctness tests are T0 ∪ T+.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from execrl.problems.language_names import canonical_language


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TestGroup(StrEnum):
    """Which part of a problem's test suite a test belongs to."""

    __test__ = False  # not a pytest class

    ORIGINAL = "original"
    """T0: the problem's own tests (public, private, generated)."""
    EXTRA = "extra"
    """T+: extra correctness tests."""
    OPTIMIZATION = "optimization"
    """T_O: large inputs built to be timed."""


CORRECTNESS_GROUPS = frozenset({TestGroup.ORIGINAL, TestGroup.EXTRA})

_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-/]*$"


class StdioTest(_Model):
    """A test that feeds ``input`` on stdin and compares stdout with ``output``."""

    __test__ = False

    kind: Literal["stdio"] = "stdio"
    id: str = Field(pattern=_ID_PATTERN)
    group: TestGroup = TestGroup.ORIGINAL
    input: str
    output: str


class CallTest(_Model):
    """A call-based test: ``fn_name(*args)`` must return ``expected`` (compared as JSON values).

    ``also_accept`` lists further return values that count as correct; the TACO/APPS loader
    uses it for their convention of wrapping a single expected value in a list.
    """

    __test__ = False

    kind: Literal["call"] = "call"
    id: str = Field(pattern=_ID_PATTERN)
    group: TestGroup = TestGroup.ORIGINAL
    fn_name: str = Field(min_length=1)
    args: list[Any]
    expected: Any
    also_accept: list[Any] = Field(default_factory=list)


class AssertTest(_Model):
    """Assert-style test code, such as HumanEval's ``check(candidate)``.

    The program defines ``entry_point``; ``code`` is executed after it and must call
    ``check(<entry_point>)`` itself or define ``check`` (the runner then calls it).
    """

    __test__ = False

    kind: Literal["assert"] = "assert"
    id: str = Field(pattern=_ID_PATTERN)
    group: TestGroup = TestGroup.ORIGINAL
    code: str
    entry_point: str = Field(min_length=1)


TestCase = Annotated[StdioTest | CallTest | AssertTest, Field(discriminator="kind")]


CheckerKind = Literal["tokens", "exact", "float", "apps", "livecodebench", "custom"]


class Checker(_Model):
    """How a program's stdout is compared with the expected output.

    - ``tokens`` (default): whitespace-separated tokens must be equal (competitive programming).
    - ``exact``: byte-for-byte after normalising line endings and trailing newline.
    - ``float``: tokens equal, except numeric tokens match within ``abs_tol`` or ``rel_tol``.
    - ``apps``: the APPS/TACO harness's cascade of comparisons (stripped text, stripped lines,
      floats within numpy's ``allclose`` tolerance, per-line token sets); see
      ``execrl.sandbox.compare.apps_outputs_match``.
    - ``livecodebench``: LiveCodeBench's grader: stripped lines, equal or equal as Decimals.
    - ``custom``: ``validator`` (a Kattis-style output validator's Python or C++ source)
      decides; it runs in its own sandboxed process (``execrl.sandbox.validators``).

    ``case_sensitive`` and ``space_change_sensitive`` refine ``tokens``, ``exact`` and
    ``float`` (the Kattis default validator's flags): with ``case_sensitive=False`` letters
    compare case-insensitively; with ``space_change_sensitive=True`` the whitespace between
    tokens must also be identical.
    """

    kind: CheckerKind = "tokens"
    abs_tol: float = Field(default=1e-6, ge=0)
    rel_tol: float = Field(default=1e-6, ge=0)
    case_sensitive: bool = True
    """False: ``yes`` matches ``YES`` (Kattis' default, CodeContests' tester)."""
    space_change_sensitive: bool = False
    """True: the amount and kind of whitespace must match too (Kattis flag)."""
    validator: str | None = None
    """For ``custom``: the validator program's source (run as ``validator in ans feedback_dir
    < team_output``; exit 42 accepts, 43 rejects, anything else is a judge error)."""
    validator_language: Literal["python3", "cpp"] = "python3"
    """``cpp``: compiled with ``g++`` on the host (once, cached) and run inside the sandbox."""
    validator_args: list[str] = Field(default_factory=list)
    """Extra arguments after the feedback directory (problem.yaml ``output_validator_flags``)."""

    @model_validator(mode="after")
    def _custom_has_validator(self) -> Checker:
        if self.kind == "custom" and not self.validator:
            raise ValueError("a custom checker needs 'validator' (the validator's source)")
        if self.kind != "custom" and self.validator is not None:
            raise ValueError(f"'validator' is only used by kind 'custom', not {self.kind!r}")
        return self


class ReferenceLabel(StrEnum):
    CORRECT = "correct"
    INCORRECT = "incorrect"


ExpectedVerdict = Literal[
    "wrong_answer", "runtime_error", "timeout", "memory_limit", "output_limit", "compile_error"
]
"""The failing verdicts (the sandbox's Status values) an incorrect reference may promise."""


class Reference(_Model):
    """A reference solution with a known verdict and, optionally, stored per-test durations."""

    name: str = Field(pattern=_ID_PATTERN)
    code: str
    label: ReferenceLabel
    language: str = "python"
    """The language it is written in: any name the language table knows (``cpp``, ``c++``,
    ``golang``, a Kattis extension such as ``.cc``, a CodeContests enum value), stored as the
    canonical name (``execrl languages`` lists them). The old default ``python3`` reads as
    ``python``."""
    tier: str | None = None
    """For correct references: the speed tier, e.g. "O(n log n)"."""
    flaw: str | None = None
    """For incorrect references: what is wrong and which weak tests it slips through."""
    durations_s: dict[str, float] = Field(default_factory=dict)
    """Stored duration per test id, in seconds (the H(x) pool of spec §1)."""
    expected_verdict: ExpectedVerdict | None = None
    """For incorrect references: the verdict at least one test must get (a sandbox Status
    value such as ``wrong_answer``, ``timeout``, ``runtime_error``), e.g. from a Kattis
    package's ``submissions/<verdict>/`` folder. ``None``: any failure will do."""
    source_file: str | None = None
    """The file it was read from, relative to its problem's folder
    (``submissions/accepted/sol.cpp`` in a Kattis package); None when it has no file of its
    own (a dataset row, a JSONL problem)."""

    @field_validator("language", mode="before")
    @classmethod
    def _canonical_language(cls, name: Any) -> str:
        return canonical_language(name)


Difficulty = Literal["easy", "medium", "hard", "unknown"]

MAX_TIME_LIMIT_S = 600.0
"""The largest per-test time limit a problem may set: the sandbox's CPU-time cap
(``execrl.sandbox.limits.Limits.cpu_time_s``), so every problem that loads can be run."""
TIME_LIMIT_RANGE = (
    f"more than 0 and at most {MAX_TIME_LIMIT_S:g} seconds (the sandbox's CPU-time cap)"
)
"""The one range of every time limit execrl takes (problem files, environments, ``Limits``,
``ExecutionOptions``, the CLI's limits, SandboxFusion's timeouts), in the one message's words."""


def time_limit_error(seconds: Any) -> str | None:
    """None for a time limit in range (0 < seconds <= ``MAX_TIME_LIMIT_S``), else the one
    message: ``must be more than 0 and at most 600 seconds (...), got 1e+12``."""
    if isinstance(seconds, int | float) and 0 < seconds <= MAX_TIME_LIMIT_S:  # (NaN: False)
        return None
    shown = f"{seconds:g}" if isinstance(seconds, int | float) else repr(seconds)
    return f"must be {TIME_LIMIT_RANGE}, got {shown}"


def _time_limit(seconds: float) -> float:
    error = time_limit_error(seconds)
    if error is not None:
        raise ValueError(error)
    return seconds


TimeLimitS = Annotated[float, AfterValidator(_time_limit)]
"""A pydantic field type: a time limit in seconds, in the one range (``time_limit_error``)."""

MAX_MEMORY_LIMIT_MB = 1024 * 1024
"""The largest memory limit a problem may set (1 TiB): beyond any machine it would run on."""


class Source(_Model):
    """Where a problem comes from; ``difficulty`` and ``rating`` keep the dataset's own values."""

    dataset: str = "unknown"
    id: str | None = None
    url: str | None = None
    difficulty: str | None = None
    rating: int | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class GeneratorMode(StrEnum):
    SMALL = "small"
    EDGE = "edge"
    LARGE = "large"


class Generator(_Model):
    """An input-generator program and the plan of tests built from it.

    The program is run as ``python generator.py MODE SEED`` and prints one input. ``plan`` says
    how many seeds of each mode each test group gets; seeds are numbered consecutively per
    mode across groups, so no two planned tests share an input.
    """

    code: str
    plan: dict[TestGroup, dict[GeneratorMode, int]] = Field(default_factory=dict)

    @field_validator("plan")
    @classmethod
    def _counts_positive(cls, plan: dict[TestGroup, dict[GeneratorMode, int]]) -> Any:
        for group, modes in plan.items():
            for mode, count in modes.items():
                if count < 0:
                    raise ValueError(f"plan.{group}.{mode} must be >= 0, got {count}")
        return plan


class Problem(_Model):
    """A programming problem: statement, tests by group, limits, references and provenance."""

    id: str = Field(pattern=_ID_PATTERN)
    title: str = ""
    statement: str = ""
    difficulty: Difficulty = "unknown"
    time_limit_s: float = 10.0
    """The problem's own per-test time limit, in seconds: more than 0 and at most
    ``MAX_TIME_LIMIT_S`` (600 s, the sandbox's CPU-time cap); the hard cap of spec §1
    defaults to 10 s."""
    memory_limit_mb: int = 1024
    """The problem's memory limit, in MiB: at least 1 and at most ``MAX_MEMORY_LIMIT_MB``."""
    checker: Checker = Field(default_factory=Checker)
    tests: list[TestCase] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    entry_point: str | None = None
    """For call-based and assert-style problems: the function the program must define."""
    starter_code: str | None = None
    """The code shown to the model to start from (e.g. a ``class Solution`` stub)."""
    prelude: str | None = None
    """Trusted code run before the program in call and assert tests, in both the candidate's
    process and the checker's: the imports and helper classes a dataset's harness provides
    (LeetCodeDataset's ``prompt`` with ListNode/TreeNode, MBPP's ``test_setup_code``)."""
    stdin_as_function: bool = False
    """Run stdio programs wrapped in a function, as the APPS/TACO harness does (so a top-level
    ``return`` ends the program); see ``execrl.sandbox.wrapping.wrap_stdin_program``."""
    tags: list[str] = Field(default_factory=list)
    source: Source = Field(default_factory=Source)
    generator: Generator | None = None

    @field_validator("time_limit_s")
    @classmethod
    def _time_limit_in_range(cls, seconds: float) -> float:
        return _time_limit(seconds)

    @field_validator("memory_limit_mb")
    @classmethod
    def _memory_limit_in_range(cls, megabytes: int) -> int:
        if not 1 <= megabytes <= MAX_MEMORY_LIMIT_MB:
            raise ValueError(f"must be from 1 to {MAX_MEMORY_LIMIT_MB} MiB, got {megabytes}")
        return megabytes

    @model_validator(mode="after")
    def _unique_names(self) -> Problem:
        _require_unique([t.id for t in self.tests], "test id")
        _require_unique([r.name for r in self.references], "reference name")
        return self

    def tests_in(self, *groups: TestGroup | str) -> list[StdioTest | CallTest | AssertTest]:
        """The tests whose group is one of ``groups`` (all tests when none are given)."""
        wanted = {TestGroup(g) for g in groups}
        return [t for t in self.tests if not wanted or t.group in wanted]

    @property
    def correctness_tests(self) -> list[StdioTest | CallTest | AssertTest]:
        """T_C = T0 ∪ T+."""
        return [t for t in self.tests if t.group in CORRECTNESS_GROUPS]

    @property
    def optimization_tests(self) -> list[StdioTest | CallTest | AssertTest]:
        """T_O."""
        return self.tests_in(TestGroup.OPTIMIZATION)

    def references_labelled(self, label: ReferenceLabel | str) -> list[Reference]:
        return [r for r in self.references if r.label == ReferenceLabel(label)]

    @property
    def test_kinds(self) -> set[str]:
        return {t.kind for t in self.tests}


def _require_unique(names: list[str], what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"duplicate {what} {name!r}; each {what} must be unique")
        seen.add(name)
