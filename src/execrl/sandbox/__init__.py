"""Running programs and judging their output.

At this stage execrl ships the interim subprocess runner (no isolation; trusted code only).
"""

from execrl.sandbox.compare import outputs_match, values_match
from execrl.sandbox.records import ExecutionRecord, Status, TestResult
from execrl.sandbox.subprocess_runner import RunLimits, capture_stdout, run_problem, run_test

__all__ = [
    "ExecutionRecord",
    "RunLimits",
    "Status",
    "TestResult",
    "capture_stdout",
    "outputs_match",
    "run_problem",
    "run_test",
    "values_match",
]
