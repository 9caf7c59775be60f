"""The Executor and Policy protocols, each defined once.

``Executor``: what every backend (the local pool, the HTTP service's ``RemoteExecutor``,
``RayExecutor``) offers, and what code that executes programs asks for. ``Policy``: anything
that continues chats (the trainer's model, an OpenAI-compatible endpoint, a scripted policy
in tests), what code that samples programs asks for.

Code outside the sandbox and service packages takes an ``Executor`` as an argument and never
chooses a backend itself; the backend is picked at the edge (a CLI ``--executor`` flag or a
config field) by ``execrl.service.open_executor``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

Message = dict[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": ...}``."""
Conversation = list[Message]

if TYPE_CHECKING:
    from execrl.problems.models import Checker, TestCase
    from execrl.sandbox.executor import ExecutionRequest
    from execrl.sandbox.limits import ExecutionOptions, Limits
    from execrl.sandbox.records import ExecutionRecord, TestResult


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
    ) -> ExecutionRecord:
        """The common case: one program on ``tests`` (a backend that subclasses ``Executor``
        inherits this)."""
        from execrl.sandbox.executor import ExecutionRequest

        request = ExecutionRequest.of(
            program, tests, limits, checker=checker, options=options, problem_id=problem_id
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
class Policy(Protocol):
    """Anything that continues chats: one completion (the assistant's reply) per conversation.

    Called with every conversation that needs a reply (a group of episodes, or ``n`` copies of
    one prompt for ``n`` samples) so a batch is generated at once; the replies come back in the
    conversations' order."""

    def generate(self, conversations: list[Conversation]) -> list[str]: ...
