"""Reading a solver program's answer from its own output (docs/solver-rewards.md).

The answer channel is the program's Python ``sys.stdout``. The wrapper execrl runs around the
program sends everything written to file descriptor 1 *below* Python (the C logs of HiGHS,
COPT, SCIP and Gurobi, CBC started by PuLP) to stderr, so a solver's log line such as HiGHS's
``Model status : Infeasible`` or COPT's ``Status: Unbounded`` is never read as an answer. A
program that prints nothing has no answer, whatever the solver logged.

An **answer convention** is the set of line patterns that count as an answer. The last
matching line wins; each pattern matches a whole line (leading and trailing spaces aside).

- ``execrl`` (default): ``objective: <number>``, optionally after one or two words
  (``Optimal objective: 39``, ``Best objective value: 39``), or ``status: infeasible`` /
  ``status: unbounded``;
- ``sirl``: what SIRL-style gurobipy programs print: ``Best objective <number>`` or
  ``Optimal objective <number>`` (with or without a colon), plus the ``execrl`` lines;
- ``orlm``: ORLM-style coptpy programs: ``Optimal objective value: <number>``,
  ``Objective value: <number>``, ``Optimal value: <number>``, ``Total cost: <number>`` (or
  profit, revenue), plus the ``sirl`` and ``execrl`` lines;
- ``marker``: only the harness's own marker line ``EXECRL_ANSWER: <number|infeasible|unbounded>``.

Every convention also accepts the marker line. Sentinels that datasets and evaluation scripts
use for "no valid answer" (−9999, −99999, a line ``No Best Solution``) are read as no answer:
printed last, they cancel an earlier answer line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from execrl.errors import ConfigError
from execrl.problems.optim import Answer

MARKER = "EXECRL_ANSWER"
"""``print("EXECRL_ANSWER:", value)``: the harness's answer line, read by every convention."""
SENTINELS = (-9999.0, -99999.0)
"""Numbers meaning "no valid answer" (SIRL's −9999, ORLM's −99999)."""
NO_ANSWER_WORDS = ("no best solution",)

_NUMBER = (
    r"(?P<number>[-+]?(?:inf(?:inity)?|nan|"
    r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))"
)
_TAIL = r"\s*[.;,)]?\s*(?:\(\w+\))?\s*$"  # "39.0", "39.0.", "39.0 (optimal)"
_STATUS = r"(?P<status>infeasible|unbounded|no\s+best\s+solution)"
_WORD = r"[A-Za-z]+"

_MARKER_LINES = (rf"{MARKER}\s*:?\s*{_NUMBER}{_TAIL}", rf"{MARKER}\s*:?\s*{_STATUS}{_TAIL}")
_NO_ANSWER_LINES = (rf"(?P<status>no\s+best\s+solution){_TAIL}",)
_EXECRL_LINES = (
    rf"(?:{_WORD}\s+){{0,2}}objective\s*:\s*{_NUMBER}{_TAIL}",
    rf"status\s*:\s*{_STATUS}{_TAIL}",
)
_SIRL_LINES = (rf"(?:best|optimal)\s+objective(?:\s+value)?\s*:?\s*{_NUMBER}{_TAIL}",)
_ORLM_LINES = (
    rf"(?:(?:optimal|best|minimum|maximum)\s+(?:objective\s+)?|objective\s+)value(?::|\s+is:?|\s)"
    rf"\s*\$?{_NUMBER}{_TAIL}",
    rf"(?:minimum\s+|maximum\s+|optimal\s+)?total\s+(?:{_WORD}\s+)?(?:cost|profit|revenue)"
    rf"(?::|\s+is:?|\s)\s*\$?{_NUMBER}{_TAIL}",
)


@dataclass(frozen=True)
class AnswerConvention:
    """Which whole lines of a program's stdout are its answer (module docstring)."""

    name: str
    patterns: tuple[str, ...]

    def __post_init__(self) -> None:
        try:
            compiled = tuple(re.compile(rf"^\s*{p}", re.IGNORECASE) for p in self.patterns)
        except re.error as exc:
            raise ConfigError(f"answer convention {self.name!r}: bad pattern: {exc}") from exc
        for pattern in compiled:
            if not {"number", "status"} & set(pattern.groupindex):
                raise ConfigError(
                    f"answer convention {self.name!r}: the pattern {pattern.pattern!r} needs a "
                    "named group 'number' or 'status'"
                )
        object.__setattr__(self, "_compiled", compiled)

    def parse(self, stdout: str) -> Answer | None:
        """The answer: a float, ``"infeasible"``/``"unbounded"``, or None (no answer line, or a
        "no valid answer" sentinel last)."""
        found: Answer | None = None
        seen = False
        for line in stdout.splitlines():
            for pattern in self._compiled:  # type: ignore[attr-defined]
                match = pattern.match(line)
                if match:
                    found, seen = _value(match), True
                    break
        return found if seen else None


def _value(match: re.Match[str]) -> Answer | None:
    groups = match.groupdict()
    if groups.get("status"):
        word = " ".join(groups["status"].lower().split())
        return None if word in NO_ANSWER_WORDS else word  # type: ignore[return-value]
    number = float(groups["number"].replace(",", ""))
    if math.isnan(number) or number in SENTINELS:
        return None
    return number


def _convention(name: str, *groups: Sequence[str]) -> AnswerConvention:
    return AnswerConvention(name, tuple(p for group in groups for p in group))


ANSWER_CONVENTIONS: dict[str, AnswerConvention] = {
    "execrl": _convention("execrl", _MARKER_LINES, _NO_ANSWER_LINES, _EXECRL_LINES),
    "sirl": _convention("sirl", _MARKER_LINES, _NO_ANSWER_LINES, _SIRL_LINES, _EXECRL_LINES),
    "orlm": _convention(
        "orlm", _MARKER_LINES, _NO_ANSWER_LINES, _ORLM_LINES, _SIRL_LINES, _EXECRL_LINES
    ),
    "marker": _convention("marker", _MARKER_LINES),
}
"""The named answer conventions (module docstring)."""
DEFAULT_CONVENTION = "execrl"

AnswerSpec = str | AnswerConvention | Mapping[str, object]


def answer_convention(spec: AnswerSpec = DEFAULT_CONVENTION) -> AnswerConvention:
    """A convention from its name, itself, or ``{"name": ..., "patterns": [...]}`` (your own
    regular expressions, each with a named group ``number`` or ``status``)."""
    if isinstance(spec, AnswerConvention):
        return spec
    if isinstance(spec, str):
        if spec not in ANSWER_CONVENTIONS:
            raise ConfigError(
                f"unknown answer convention {spec!r}; use one of: {', '.join(ANSWER_CONVENTIONS)}"
                " or give your own patterns"
            )
        return ANSWER_CONVENTIONS[spec]
    if not isinstance(spec, Mapping):
        raise ConfigError(
            f"an answer convention is a name ({', '.join(ANSWER_CONVENTIONS)}), a mapping "
            f"{{'name', 'patterns'}} or an AnswerConvention, not {spec!r}"
        )
    patterns = spec.get("patterns")
    if not isinstance(patterns, Sequence) or isinstance(patterns, str) or not patterns:
        raise ConfigError("an answer convention needs a non-empty list 'patterns'")
    return AnswerConvention(str(spec.get("name", "custom")), tuple(str(p) for p in patterns))


def parse_report(stdout: str, convention: AnswerSpec = DEFAULT_CONVENTION) -> Answer | None:
    """What the program reported on its answer channel, under a convention."""
    return answer_convention(convention).parse(stdout)
