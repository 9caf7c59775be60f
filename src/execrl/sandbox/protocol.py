"""The Executor, ChatPolicy and CompletionSampler protocols, each defined once, and the types
an Executor speaks.

``Executor``: what every backend (the local pool, the HTTP service's ``RemoteExecutor``,
``RayExecutor``) offers, and what code that executes programs asks for. ``ChatPolicy``:
anything that continues chats (the trainer's model, an OpenAI-compatible endpoint, a scripted
policy in tests), what code that samples programs asks for; ``CompletionSampler``: anything
that gives ``n`` completions of one conversation (evaluation and the data builder sample
models through it). ``Policy`` is the old name of ``ChatPolicy``, kept for one release with a
DeprecationWarning. ``ExecutionRequest`` is what an Executor
is asked to run and ``Captured`` what ``capture_streams`` answers; the record it returns is
``execrl.sandbox.records.ExecutionRecord``.

This module owns those protocols and types, and nothing that runs a program: it imports
neither the local pool (``execrl.sandbox.pool``) nor the judge (``execrl.sandbox.judge``),
which both import it.

Code outside the sandbox and service packages takes an ``Executor`` as an argument and never
chooses a backend itself; the backend is picked at the edge (a CLI ``--executor`` flag or a
config field) by ``execrl.service.open_executor``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from execrl.errors import deprecated_names
from execrl.problems.models import Checker, TestCase
from execrl.sandbox.builds import BuildInfo, BuildOptions
from execrl.sandbox.languages import language as _language
from execrl.sandbox.limits import ExecutionOptions, Limits

Message = dict[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": ...}``."""
Conversation = list[Message]

if TYPE_CHECKING:
    from execrl.problems.models import Problem
    from execrl.sandbox.records import ExecutionRecord, TestResult


class ExecutionRequest(BaseModel):
    """One program on a list of tests, with its limits and options."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    program: str
    tests: list[TestCase]
    checker: Checker = Field(default_factory=Checker)
    limits: Limits = Field(default_factory=Limits)
    options: ExecutionOptions = Field(default_factory=ExecutionOptions)
    problem_id: str = ""
    program_name: str = ""
    starter_code: str | None = None
    """Trusted code the checker of an assert-style test runs before the test code when there
    is no ``prelude`` (HumanEval's prompt, whose helper functions its tests use)."""
    prelude: str | None = None
    """Trusted code run before the program in call and assert tests, and before the test code
    in the checker (LeetCodeDataset's imports and ListNode/TreeNode helpers, MBPP's
    ``test_setup_code``). Instances of the classes it defines can cross between the two."""
    language: str = "python"
    """The program's language: execrl's name or any name the language table knows
    (``cpp``, ``c++``, ``java``, a SandboxFusion or CodeContests name); stored canonical.
    Call and assert tests run Python programs only."""
    build: BuildOptions = Field(default_factory=BuildOptions)
    """How a program of a compiled language is built (profile, flags, compile limits)."""
    stdin_as_function: bool = False
    """Run stdio programs as the body of a function, as the APPS/TACO harness does (a
    top-level ``return`` then ends the program); see ``execrl.sandbox.wrapping``. The record
    keeps the hash of the program as given."""

    @field_validator("language", mode="before")
    @classmethod
    def _canonical_language(cls, value: object) -> str:
        from execrl.errors import UsageError

        try:
            return _language(value).name  # type: ignore[arg-type]
        except (UsageError, AttributeError, TypeError) as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="after")
    def _python_only_tests(self) -> ExecutionRequest:
        if self.language != "python":
            kinds = sorted({t.kind for t in self.tests if t.kind != "stdio"})
            if kinds:
                raise ValueError(
                    f"{' and '.join(kinds)} tests call a Python program's functions; a "
                    f"{self.language} program is judged on stdin/stdout tests only"
                )
        return self

    @classmethod
    def of(
        cls,
        program: str,
        tests: list[TestCase],
        limits: Limits | None = None,
        *,
        checker: Checker | None = None,
        options: ExecutionOptions | None = None,
        problem_id: str = "",
        language: str = "python",
        build: BuildOptions | None = None,
    ) -> ExecutionRequest:
        """The request ``Executor.run`` makes of its arguments (defaults for what is None)."""
        return cls(
            program=program,
            tests=tests,
            checker=checker or Checker(),
            limits=limits or Limits(),
            options=options or ExecutionOptions(),
            problem_id=problem_id,
            language=language,
            build=build or BuildOptions(),
        )

    @classmethod
    def for_problem(
        cls,
        problem: Problem,
        program: str,
        *,
        tests: list[TestCase] | None = None,
        options: ExecutionOptions | None = None,
        limits: Limits | None = None,
        program_name: str = "",
        language: str = "python",
        build: BuildOptions | None = None,
    ) -> ExecutionRequest:
        """A request with the problem's tests, checker and limits: the problem's time limit
        is the CPU-time limit (the wall-clock limit follows Limits' default rule)."""
        return cls(
            program=program,
            tests=problem.tests if tests is None else tests,
            checker=problem.checker,
            limits=limits or Limits.for_problem(problem),
            options=options or ExecutionOptions(),
            problem_id=problem.id,
            program_name=program_name,
            starter_code=problem.starter_code,
            prelude=problem.prelude,
            stdin_as_function=problem.stdin_as_function,
            language=language,
            build=build or BuildOptions(),
        )


@dataclass(frozen=True)
class Captured:
    """One capture run: the verdict without comparison and what the program wrote."""

    result: TestResult
    stdout: str
    stderr: str
    exit_code: int | None
    """The exit status (``-N`` when a signal ended it; None when it never ran)."""
    files: dict[str, bytes] = field(default_factory=dict)
    """The files asked for (``fetch``) that the program left in its working directory."""
    build: BuildInfo | None = None
    """What building it did (another language than the zygote's Python), else None."""


@runtime_checkable
class Executor(Protocol):
    """Runs ExecutionRequests and returns ExecutionRecords.

    Backends subclass it to inherit ``run`` and the context manager. ``run_batch`` yields
    records in request order as they complete (with a progress bar);
    ``arun_batch`` yields them in completion order. An infrastructure failure is a record
    whose tests are ``inconclusive``, never an exception for one program and never a wrong
    answer.
    """

    backend: str
    workers: int
    """How many requests it runs at once (the batch size worth sending)."""

    @property
    def isolation(self) -> list[str]: ...

    def execute(self, request: ExecutionRequest) -> ExecutionRecord: ...

    def run(
        self,
        program: str,
        tests: list[TestCase],
        limits: Limits | None = None,
        *,
        checker: Checker | None = None,
        options: ExecutionOptions | None = None,
        problem_id: str = "",
        language: str = "python",
        build: BuildOptions | None = None,
    ) -> ExecutionRecord:
        """The common case: one program (in ``language``) on ``tests`` (a backend that
        subclasses ``Executor`` inherits this)."""
        request = ExecutionRequest.of(
            program,
            tests,
            limits,
            checker=checker,
            options=options,
            problem_id=problem_id,
            language=language,
            build=build,
        )
        return self.execute(request)

    def run_batch(
        self,
        requests: Iterable[ExecutionRequest],
        *,
        progress: bool = True,
        description: str = "executing",
    ) -> Iterator[ExecutionRecord]: ...

    async def arun(self, request: ExecutionRequest) -> ExecutionRecord: ...

    def arun_batch(
        self, requests: Iterable[ExecutionRequest]
    ) -> AsyncIterator[ExecutionRecord]: ...

    def capture(
        self, program: str, stdin: str, limits: Limits | None = None
    ) -> tuple[TestResult, str]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@runtime_checkable
class ChatPolicy(Protocol):
    """Anything that continues chats: one completion (the assistant's reply) per conversation.

    Called with every conversation that needs a reply (a group of episodes, or ``n`` copies of
    one prompt for ``n`` samples) so a batch is generated at once; the replies come back in the
    conversations' order."""

    def generate(self, conversations: list[Conversation]) -> list[str]: ...


class CompletionSampler(Protocol):
    """Anything that samples a model: ``n`` independent completions of one conversation
    (``execrl.evaluate.PolicySampler`` around a ChatPolicy, an OpenAI-compatible client,
    completions read from a file)."""

    def sample(self, conversation: Conversation, n: int) -> list[str]: ...


__getattr__ = deprecated_names(__name__, {"Policy": (__name__, "ChatPolicy")})
