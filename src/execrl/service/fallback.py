"""Spec §6: what happens after an inconclusive execution.

The policy (orchestrated by ``RemoteExecutor``; the functions here are pure):

1. **Retry at once**, on the same server, the tests still unresolved
   (:func:`unresolved_request`); a verdict from that retry is a real measurement and is merged
   as it is (:func:`merge_retry`).
2. **Then elsewhere, for the verdict only** (:func:`apply_fallback`): the tests still
   inconclusive are run on another server, whose timings are not comparable with this one's.
   An optimization-test success there becomes a ``timeout`` at the cap (``cpu_s`` = the
   CPU-time cap, ``wall_s`` = the wall-clock cap, ``limit_hit=None`` because no limit stopped
   the program); an optimization-test timeout stays a timeout at the cap; every other verdict
   is kept without its time (times 0, no repeats). Those results carry ``fallback=True``.
   A test inconclusive there too stays ``inconclusive`` (the *unknown* rate).

How a training step is watched (the fallback, unknown and timeout rates, bursts) is the
trainer's: :mod:`execrl.rl.monitor`. Its names, once here, import from here with a
DeprecationWarning for one release.
"""

from __future__ import annotations

from collections.abc import Callable

from execrl.errors import deprecated_names
from execrl.problems.models import TestCase, TestGroup
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

# The step monitor moved to the trainer (execrl.rl.monitor). A string, not an import: the
# service never imports rl (docs/architecture.md). Checkpoints saved before the move pickled
# execrl.service.fallback.StepMonitor and still load through this.
__getattr__ = deprecated_names(
    __name__,
    {
        name: ("execrl.rl.monitor", name)
        for name in (
            "BURST_KINDS",
            "RewardSummary",
            "StepCounts",
            "StepMonitor",
            "StepReport",
            "exposure",
        )
    },
)

FALLBACK_DETAIL = "fallback: verdict from another server, without its time (spec §6)"
CAP_DETAIL = "fallback: passed on another server; recorded as a timeout at the cap (spec §6)"


# -- the policy ------------------------------------------------------------------------------
def unresolved_request(
    request: ExecutionRequest, record: ExecutionRecord
) -> ExecutionRequest | None:
    """``request`` restricted to the tests ``record`` did not resolve: the inconclusive ones and
    those never run after them (``stop_at_first_failure`` stops at an inconclusive test);
    ``None`` when every test has a verdict."""
    resolved = _conclusive(record)
    tests = [t for t in request.tests if t.id not in resolved]
    return request.model_copy(update={"tests": tests}) if tests else None


def merge_retry(
    original: ExecutionRecord, retry: ExecutionRecord, request: ExecutionRequest
) -> ExecutionRecord:
    """The original record with its unresolved tests taken from an immediate retry on the same
    server (real measurements, kept as they are)."""
    return _merge(original, retry, request, lambda result, _test: result)


def apply_fallback(
    original: ExecutionRecord, fallback: ExecutionRecord, request: ExecutionRequest
) -> ExecutionRecord:
    """The original record with its unresolved tests taken from a run on another server, for
    the verdict only (see the module docstring); those results say ``fallback=True``."""
    limits = request.limits
    return _merge(original, fallback, request, lambda r, test: verdict_only(r, test, limits))


def verdict_only(result: TestResult, test: TestCase, limits: Limits) -> TestResult:
    """One test's result from a fallback run, stripped of the time it measured elsewhere."""
    if result.status is Status.INCONCLUSIVE:
        return result
    optimization = test.group is TestGroup.OPTIMIZATION
    if optimization and result.status in (Status.SUCCESS, Status.TIMEOUT):
        at_cap = result.status is Status.TIMEOUT
        return result.model_copy(
            update={
                "status": Status.TIMEOUT,
                "cpu_s": limits.cpu_time_s,
                "wall_s": limits.wall_limit_s,
                "repeats": [],
                "max_rss_mb": 0.0,
                "limit_hit": result.limit_hit if at_cap else None,
                "detail": result.detail if at_cap else CAP_DETAIL,
                "fallback": True,
            }
        )
    return result.model_copy(
        update={
            "cpu_s": 0.0,
            "wall_s": 0.0,
            "repeats": [],
            "max_rss_mb": 0.0,
            "detail": result.detail or FALLBACK_DETAIL,
            "fallback": True,
        }
    )


def _merge(
    original: ExecutionRecord,
    other: ExecutionRecord,
    request: ExecutionRequest,
    adopt: Callable[[TestResult, TestCase], TestResult],
) -> ExecutionRecord:
    """Results in the request's test order: the original's verdicts, then for the tests it left
    unresolved ``adopt(other's result)`` where ``other`` has a verdict, else the original's
    inconclusive result (a test neither ran stays out, as ``stop_at_first_failure`` leaves it)."""
    mine = {r.test_id: r for r in original.results}
    theirs = {r.test_id: r for r in other.results}
    resolved = _conclusive(original)
    results = []
    for test in request.tests:
        if test.id in resolved:
            results.append(mine[test.id])
        elif test.id in theirs and theirs[test.id].status is not Status.INCONCLUSIVE:
            results.append(adopt(theirs[test.id], test))
        elif test.id in mine:
            results.append(mine[test.id])
        elif test.id in theirs:
            results.append(theirs[test.id])
    return original.model_copy(update={"results": results})


def _conclusive(record: ExecutionRecord) -> set[str]:
    return {r.test_id for r in record.results if r.status is not Status.INCONCLUSIVE}
