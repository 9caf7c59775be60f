"""Reading a tagged response ``<think>…</think><model>…</model><python>…</python>``.

Extraction is forgiving (missing, repeated or misordered tags, fenced code in the python
section, no tags at all); the format scores are not. Two scores, both in units of the
"format weight" (0.5 in both presets of the spec):

- **binary** (the paper): 1 when each of the six tags appears exactly once and in the order
  ``<think> </think> <model> </model> <python> </python>``, else 0.
- **graded** (the authors' code): start at 2 and subtract one penalty per format error, then
  the caller multiplies by the weight (0.5), so it lies in [0, 1]:

  ========================================================  =======
  format error                                              penalty
  ========================================================  =======
  ``<think>``, ``</think>``, ``<model>`` or ``</model>``     1/8 each
  does not appear exactly once
  ``<python>`` or ``</python>`` does not appear exactly      1/4 each
  once
  reasoning not first: ``</think>`` missing, or after the    1/3
  first model or code tag
  a section not opened before it is closed: for some         1/3
  section, a tag is missing or ``</x>`` precedes ``<x>``
  code not last: ``<python>`` missing, or before a think     1/3
  or model tag
  ========================================================  =======

  The penalties add up to exactly 2 (a response without any tag scores 0). Order checks
  use each tag's first occurrence. The count and order penalties are the authors'; how a
  *missing* tag enters the order checks (it fails them) is execrl's choice, so that "no tags"
  is the worst format rather than a vacuously ordered one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from execrl.extract import extract_code

SECTIONS = ("think", "model", "python")
TAGS = ("<think>", "</think>", "<model>", "</model>", "<python>", "</python>")
"""The six tags in their required order."""

COUNT_PENALTY = {
    "<think>": 1 / 8,
    "</think>": 1 / 8,
    "<model>": 1 / 8,
    "</model>": 1 / 8,
    "<python>": 1 / 4,
    "</python>": 1 / 4,
}
ORDER_PENALTY = 1 / 3
GRADED_START = 2.0

REASONING_NOT_FIRST = "reasoning not first"
SECTION_NOT_OPENED = "section not opened before closed"
CODE_NOT_LAST = "code not last"

# A tag, case-insensitive, with spaces and attributes: <python>, </ Model >, <model a="x">
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_PYTHON = {"python", "py", "python3"}
_TAG = re.compile(r"<\s*(/?)\s*(think|model|python)\b[^<>]*>", re.IGNORECASE)


@dataclass(frozen=True)
class _Tag:
    name: str  # "think" | "model" | "python"
    closing: bool
    start: int
    end: int

    @property
    def label(self) -> str:
        return f"</{self.name}>" if self.closing else f"<{self.name}>"


@dataclass(frozen=True)
class ParsedResponse:
    """The sections of one response, the program to run, and its format errors."""

    think: str | None
    model: str | None
    python: str | None
    """The python section as written (may contain a fenced block)."""
    code: str | None
    """The program to run; None when no code could be extracted."""
    code_origin: str
    """Where the code came from: ``python-section``, ``fenced-block`` (no python tags; the
    last fenced block outside the reasoning) or ``none``."""
    counts: dict[str, int] = field(default_factory=dict)
    """Occurrences of each of the six tags."""
    penalties: dict[str, float] = field(default_factory=dict)
    """Graded-format penalty per format error found (empty for a well-formed response)."""

    @property
    def well_formed(self) -> bool:
        """Every tag exactly once, in order (the binary format condition)."""
        return not self.penalties

    @property
    def binary_format(self) -> float:
        """1.0 when well formed, else 0.0 (multiply by the format weight)."""
        return 1.0 if self.well_formed else 0.0

    @property
    def graded_format(self) -> float:
        """``max(0, 2 − Σ penalties)`` in [0, 2] (multiply by the format weight, 0.5)."""
        return max(0.0, round(GRADED_START - sum(self.penalties.values()), 12))

    @property
    def format_errors(self) -> list[str]:
        return list(self.penalties)


def parse_response(text: str) -> ParsedResponse:
    """Split a response into its sections and extract the program (never raises)."""
    tags = [
        _Tag(m.group(2).lower(), bool(m.group(1)), m.start(), m.end()) for m in _TAG.finditer(text)
    ]
    sections = {name: _section(text, tags, name) for name in SECTIONS}
    code, origin = _code(text, tags, sections["python"])
    counts = {label: sum(t.label == label for t in tags) for label in TAGS}
    return ParsedResponse(
        think=sections["think"],
        model=sections["model"],
        python=sections["python"],
        code=code,
        code_origin=origin,
        counts=counts,
        penalties=format_penalties(tags),
    )


def binary_format_score(text: str) -> float:
    """The paper's format term before weighting: 1 if all tags appear once, in order."""
    return parse_response(text).binary_format


def graded_format_score(text: str) -> float:
    """The authors' format term before weighting, in [0, 2]."""
    return parse_response(text).graded_format


def format_penalties(tags: list[_Tag]) -> dict[str, float]:
    """The graded-format penalties (module docstring) of a response's tags."""
    penalties: dict[str, float] = {}
    first: dict[str, int] = {}
    counts: dict[str, int] = dict.fromkeys(TAGS, 0)
    for tag in tags:
        counts[tag.label] += 1
        first.setdefault(tag.label, tag.start)
    for label in TAGS:
        if counts[label] != 1:
            penalties[f"{label} appears {counts[label]} times"] = COUNT_PENALTY[label]
    later = [first[t] for t in ("<model>", "</model>", "<python>") if t in first]
    if "</think>" not in first or any(p < first["</think>"] for p in later):
        penalties[REASONING_NOT_FIRST] = ORDER_PENALTY
    for name in SECTIONS:
        opening, closing = first.get(f"<{name}>"), first.get(f"</{name}>")
        if opening is None or closing is None or closing < opening:
            penalties[SECTION_NOT_OPENED] = ORDER_PENALTY
            break
    earlier = [first[t] for t in TAGS[:4] if t in first]
    if "<python>" not in first or any(p > first["<python>"] for p in earlier):
        penalties[CODE_NOT_LAST] = ORDER_PENALTY
    return penalties


def _section(text: str, tags: list[_Tag], name: str) -> str | None:
    """One section's text. The reasoning is the first span; model and code the last one (a
    redrafted section supersedes the earlier draft). An unclosed section runs to the next tag
    of another section (or the end); a closing tag without an opening one takes the text
    since the previous tag (or the start)."""
    spans = _spans(text, tags, name)
    if not spans:
        return None
    start, end = spans[0] if name == "think" else spans[-1]
    return text[start:end].strip("\n")


def _spans(text: str, tags: list[_Tag], name: str) -> list[tuple[int, int]]:
    spans = []
    i = 0
    while i < len(tags):
        tag = tags[i]
        if tag.name != name:
            i += 1
            continue
        if not tag.closing:
            j = i + 1
            while j < len(tags) and tags[j].name == name and not tags[j].closing:
                j += 1  # a repeated opening tag: the section starts at the last one
            if j < len(tags) and tags[j].name == name:
                spans.append((tags[j - 1].end, tags[j].start))
                i = j + 1
                continue
            nxt = next((t.start for t in tags[j:] if t.name != name), len(text))
            spans.append((tags[j - 1].end, nxt))
            i = j
            continue
        previous = tags[i - 1].end if i > 0 else 0
        spans.append((previous, tag.start))
        i += 1
    return spans


def _code(text: str, tags: list[_Tag], python: str | None) -> tuple[str | None, str]:
    if python is not None and python.strip():
        code = _fenced_code(python) if "```" in python else python
        return (_clean(code), "python-section") if code.strip() else (None, "none")
    outside = _without_reasoning(text, tags)
    if "```" not in outside:
        return None, "none"
    code = _fenced_code(outside)
    return (_clean(code), "fenced-block") if code.strip() else (None, "none")


def _fenced_code(text: str) -> str:
    """The last non-empty block labelled python (``python``, ``py``, ``python3``), else what
    :func:`execrl.extract.extract_code` picks (the last unlabelled or any block): a program is
    often followed by an unlabelled block of its expected output."""
    labelled = [
        body for label, body in _FENCE.findall(text) if label.lower() in _PYTHON and body.strip()
    ]
    return labelled[-1] if labelled else extract_code(text)


def _without_reasoning(text: str, tags: list[_Tag]) -> str:
    for start, end in reversed(_spans(text, tags, "think")):
        text = text[:start] + text[end:]
    return text


def _clean(code: str) -> str:
    return code.strip("\n") + "\n"
