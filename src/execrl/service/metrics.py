"""The counters behind ``GET /metrics``, written as Prometheus text by hand (no dependency).

Series (all prefixed ``execrl_``):

- ``queue_limit``, ``queue_depth`` (admitted, waiting for a worker), ``in_flight`` (running),
  ``workers`` — gauges.
- ``executions_total`` — requests finished; ``tests_total{status=...}`` — per-test verdicts;
  ``rejected_total`` — batches refused with 429; ``idempotent_replays_total``;
  ``requests_cancelled_total{reason="abandoned"|"cancelled"}`` — requests stopped because
  their client went away or asked (``execrl.service.cancel``).
- ``inconclusive_ratio`` — share of all tests so far that were ``inconclusive``.
- ``execution_seconds`` — histogram of one request's time from admission to its record.
- ``window_tests{window="60s"}`` and ``window_rate{window="60s",kind=...}`` — over the last
  60 s of tests, spec §6's rates: ``resolved`` (a verdict without fallback), ``fallback``,
  ``unknown`` (inconclusive) and ``timeout``.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from dataclasses import dataclass

from execrl.sandbox.records import ExecutionRecord, Status
from execrl.service.cancel import REASONS, reason_label

LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
WINDOW_S = 60.0
"""The window of the §6 rates."""
MEAN_OVER = 256
"""Executions the recent mean execution time (for Retry-After) is taken over."""


@dataclass(frozen=True)
class _TestEvent:
    """One test's outcome as the window counts it."""

    at: float
    status: Status
    fallback: bool


class Metrics:
    """Counts of what the service did, and the last minute of test outcomes."""

    def __init__(self) -> None:
        self.executions = 0
        self.rejected = 0
        self.replays = 0
        self.cancelled: Counter[str] = Counter(dict.fromkeys(REASONS, 0))
        """Requests stopped by their abort, by ``reason_label``."""
        self.tests: Counter[Status] = Counter({status: 0 for status in Status})
        self._buckets = [0] * len(LATENCY_BUCKETS_S)
        self._latency_sum = 0.0
        self._recent: deque[float] = deque(maxlen=MEAN_OVER)
        self._window: deque[_TestEvent] = deque()

    def observe(self, record: ExecutionRecord, seconds: float) -> None:
        """Count one finished request that took ``seconds`` from admission."""
        self.executions += 1
        self._latency_sum += seconds
        self._recent.append(seconds)
        for i, bound in enumerate(LATENCY_BUCKETS_S):
            if seconds <= bound:
                self._buckets[i] += 1
        now = time.monotonic()
        for result in record.results:
            self.tests[result.status] += 1
            self._window.append(_TestEvent(now, result.status, result.fallback))
        self._trim(now)

    def count_cancelled(self, reason: str) -> None:
        """Count one request stopped for ``reason`` (an abort's)."""
        self.cancelled[reason_label(reason)] += 1

    def mean_execution_s(self) -> float | None:
        return sum(self._recent) / len(self._recent) if self._recent else None

    def inconclusive_ratio(self) -> float:
        total = sum(self.tests.values())
        return self.tests[Status.INCONCLUSIVE] / total if total else 0.0

    def window_rates(self) -> tuple[int, dict[str, float]]:
        """(tests in the last ``WINDOW_S``, spec §6's rates over them)."""
        self._trim(time.monotonic())
        events = list(self._window)
        n = len(events)
        unknown = sum(e.status is Status.INCONCLUSIVE for e in events)
        fallback = sum(e.fallback for e in events)
        counts = {
            "resolved": sum(not e.fallback and e.status is not Status.INCONCLUSIVE for e in events),
            "fallback": fallback,
            "unknown": unknown,
            "timeout": sum(e.status is Status.TIMEOUT for e in events),
        }
        return n, {kind: (count / n if n else 0.0) for kind, count in counts.items()}

    def _trim(self, now: float) -> None:
        while self._window and now - self._window[0].at > WINDOW_S:
            self._window.popleft()

    def render(self, gauges: dict[str, int]) -> str:
        """The Prometheus text exposition, with the service's current ``gauges``."""
        lines: list[str] = []
        for name, value in gauges.items():
            _series(lines, name, "gauge", _GAUGE_HELP.get(name, name), [("", value)])
        _series(lines, "executions_total", "counter", "requests finished", [("", self.executions)])
        _series(
            lines,
            "tests_total",
            "counter",
            "per-test verdicts",
            [(f'{{status="{s.value}"}}', n) for s, n in sorted(self.tests.items())],
        )
        _series(
            lines, "rejected_total", "counter", "batches refused with 429", [("", self.rejected)]
        )
        _series(
            lines,
            "idempotent_replays_total",
            "counter",
            "batches answered from the Idempotency-Key store",
            [("", self.replays)],
        )
        _series(
            lines,
            "requests_cancelled_total",
            "counter",
            "requests stopped: their client went away (abandoned) or cancelled them",
            [(f'{{reason="{reason}"}}', n) for reason, n in sorted(self.cancelled.items())],
        )
        _series(
            lines,
            "inconclusive_ratio",
            "gauge",
            "share of tests inconclusive",
            [("", self.inconclusive_ratio())],
        )
        self._render_histogram(lines)
        self._render_window(lines)
        return "\n".join(lines) + "\n"

    def _render_histogram(self, lines: list[str]) -> None:
        name = "execrl_execution_seconds"
        lines += [
            f"# HELP {name} one request's time from admission to its record",
            f"# TYPE {name} histogram",
        ]
        for bound, count in zip(LATENCY_BUCKETS_S, self._buckets, strict=True):
            lines.append(f'{name}_bucket{{le="{bound:g}"}} {count}')
        lines += [
            f'{name}_bucket{{le="+Inf"}} {self.executions}',
            f"{name}_sum {self._latency_sum:.6f}",
            f"{name}_count {self.executions}",
        ]

    def _render_window(self, lines: list[str]) -> None:
        n, rates = self.window_rates()
        window = f'window="{WINDOW_S:g}s"'
        _series(
            lines, "window_tests", "gauge", "tests finished in the window", [(f"{{{window}}}", n)]
        )
        _series(
            lines,
            "window_rate",
            "gauge",
            "spec §6 rates over the window: resolved without fallback, fallback, "
            "unknown (inconclusive), timeout",
            [(f'{{{window},kind="{kind}"}}', rate) for kind, rate in rates.items()],
        )


_GAUGE_HELP = {
    "queue_limit": "most requests admitted at once",
    "queue_depth": "admitted requests waiting for a worker",
    "in_flight": "requests running on a worker",
    "workers": "sandbox workers (one per isolated core)",
}


def _series(
    lines: list[str], name: str, kind: str, help_text: str, samples: list[tuple[str, float]]
) -> None:
    """One metric family: HELP, TYPE and its samples (``labels`` already in braces)."""
    full = f"execrl_{name}"
    lines += [f"# HELP {full} {help_text}", f"# TYPE {full} {kind}"]
    lines += [f"{full}{labels} {_number(value)}" for labels, value in samples]


def _number(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:.6g}"
