"""Output checkers: decide whether a program's output matches the expected one.

All checkers are pure functions of two strings (or two JSON values for call-based tests), so
they behave the same in the parent process of any executor. Each runs in time linear in the
size of the outputs: tokens are compared pairwise as they are split, never searched.

The kinds mirror the judges whose data execrl reads (``Checker`` documents each):

- ``tokens`` / ``float`` with ``case_sensitive`` and ``space_change_sensitive``: the Kattis /
  ICPC default output validator and DeepMind's CodeContests tester;
- ``apps``: the cascade of comparisons in the APPS / TACO harness (``testing_util.run_test``);
- ``livecodebench``: LiveCodeBench's ``grade_stdio``;
- ``custom``: a validator program, run in the sandbox by ``execrl.sandbox.validators``.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from execrl.problems.models import Checker

_WHITESPACE_RUNS = re.compile(r"(\s+)")


def outputs_match(actual: str, expected: str, checker: Checker) -> bool:
    """Whether stdout ``actual`` matches ``expected`` under ``checker``.

    For ``custom`` this is only the preliminary verdict (the Kattis default comparison);
    ``LocalExecutor`` replaces it with the validator's own verdict. ``actual`` is read in
    chunks of about ``_CHUNK`` characters (tokens and lines are never all held at once), so
    a large output costs its own size in memory, not a list of every token in it.
    """
    if checker.kind == "apps":
        return apps_outputs_match(actual, expected)
    if checker.kind == "livecodebench":
        return livecodebench_outputs_match(actual, expected)
    fold = str.lower if not checker.case_sensitive else None
    if checker.kind == "exact":
        return _lines_equal(actual, _normalise_lines(expected), fold)
    tokens_equal = _float_token_rule(checker) if checker.kind == "float" else str.__eq__
    if fold is not None:
        expected = expected.lower()
    if checker.space_change_sensitive:
        return _match_with_spaces(actual, expected, tokens_equal, fold)
    equal = None if tokens_equal is str.__eq__ else tokens_equal
    return _streams_equal(iter_tokens(actual, fold), iter_tokens(expected), equal)


_BATCH = 4096  # even: a batch of space-sensitive parts starts with a token


def _streams_equal(
    actual: Iterator[str], expected: Iterator[str], equal: Callable[[str, str], bool] | None
) -> bool:
    """Whether two token streams have the same length and equal tokens (``==`` when ``equal``
    is None), compared a batch at a time (list comparison runs in C)."""
    while True:
        a, e = list(itertools.islice(actual, _BATCH)), list(itertools.islice(expected, _BATCH))
        if len(a) != len(e):
            return False
        if not a:
            return True
        if (a != e) if equal is None else not all(map(equal, a, e)):
            return False


_CHUNK = 1 << 16
_TOKEN_END = re.compile(r"\S(?=\s)")


def text_chunks(text: str, size: int = _CHUNK) -> Iterator[str]:
    """``text`` in consecutive pieces of about ``size`` characters, each cut where a token
    ends and whitespace begins: no token, whitespace run or ``\\r\\n`` is split between two
    pieces (a piece can be longer when a token is)."""
    start, n = 0, len(text)
    while start < n:
        end = start + size
        if end < n:
            match = _TOKEN_END.search(text, end - 1)
            end = match.end() if match else n
        yield text[start:end]
        start = end


def iter_tokens(text: str, fold: Callable[[str], str] | None = None) -> Iterator[str]:
    """``text.split()`` one token at a time (optionally each passed through ``fold``)."""
    for chunk in text_chunks(text):
        yield from (fold(chunk) if fold else chunk).split()


def values_match(actual: Any, expected: Any) -> bool:
    """Compare plain JSON values (call-based tests); tuples and lists are the same JSON array.

    Both sides must already be plain data (decoded from JSON), so a returned object with a
    rigged ``__eq__`` cannot reach this function. Sets, frozensets and dict keys compare as
    Python compares them (``{1} == {1.0}``), but through their members sorted by a total order
    (``SortedSet`` / ``SortedDict``), never through a hash table: members chosen to share one
    hash cannot make the comparison quadratic.
    """
    return _canonical_match(canonical(actual), canonical(expected))


def _canonical_match(actual: Any, expected: Any) -> bool:
    if isinstance(expected, float) or isinstance(actual, float):
        if isinstance(actual, bool) or isinstance(expected, bool):
            return actual is expected
        if not isinstance(actual, int | float) or not isinstance(expected, int | float):
            return False
        return math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(_canonical_match(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, SortedDict):
        return (
            isinstance(actual, SortedDict)
            and actual.keys == expected.keys
            and all(
                _canonical_match(a, e) for a, e in zip(actual.values, expected.values, strict=True)
            )
        )
    if isinstance(expected, SortedSet):
        return (
            isinstance(actual, SortedSet)
            and actual.frozen == expected.frozen
            and actual.keys == expected.keys
        )
    return type(actual) is type(expected) and actual == expected


# -- sets and dicts without hash tables -----------------------------------------------------


class SortedSet:
    """A set (or frozenset) as its members in the order of ``order_key``, duplicates dropped.

    ``keys`` is what equality compares; ``items`` keeps the members themselves, for display.
    """

    __slots__ = ("frozen", "items", "keys")

    def __init__(self, members: list, keys: list, *, frozen: bool) -> None:
        self.frozen = frozen
        self.items, self.keys = _sorted_unique(members, keys)

    def __repr__(self) -> str:
        inner = ", ".join(map(repr, self.items))
        if self.frozen:
            return f"frozenset({{{inner}}})" if self.items else "frozenset()"
        return f"{{{inner}}}" if self.items else "set()"


class SortedDict:
    """A dict as its (key, value) pairs in the order of the keys' ``order_key``; of equal keys
    the first key and the last value are kept, as ``dict`` does."""

    __slots__ = ("items", "keys", "values")

    def __init__(self, pairs: list[tuple[Any, Any]], keys: list) -> None:
        order = sorted(range(len(pairs)), key=keys.__getitem__)
        kept: list[int] = []
        values: list = []
        for i in order:
            if kept and keys[kept[-1]] == keys[i]:
                values[-1] = pairs[i][1]  # sorted() is stable: i came later than kept[-1]
                continue
            kept.append(i)
            values.append(pairs[i][1])
        self.items = [pairs[i][0] for i in kept]
        self.keys = tuple(keys[i] for i in kept)
        self.values = values

    def __repr__(self) -> str:
        pairs = zip(self.items, self.values, strict=True)
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in pairs) + "}"


def _sorted_unique(members: list, keys: list) -> tuple[list, tuple]:
    order = sorted(range(len(members)), key=keys.__getitem__)
    items, unique = [], []
    for i in order:
        if not unique or unique[-1] != keys[i]:
            items.append(members[i])
            unique.append(keys[i])
    return items, tuple(unique)


_NAN_KEYS = itertools.count()


def order_key(value: Any) -> tuple:
    """A total order over hashable plain values in which two values are equal exactly when
    Python's ``==`` says so (``True == 1 == 1.0``; a NaN equals nothing). ``SortedSet`` and
    ``SortedDict`` members carry their key already; ``TypeError`` for unhashable values."""
    if value is None:
        return (0,)
    if isinstance(value, bool | int):
        return (2, int(value))
    if isinstance(value, float):
        return (3, next(_NAN_KEYS)) if math.isnan(value) else (2, value)
    if isinstance(value, complex):
        if math.isnan(value.real) or math.isnan(value.imag):
            return (3, next(_NAN_KEYS))
        return (2, value.real) if value.imag == 0 else (4, value.real, value.imag)
    if isinstance(value, str):
        return (5, value)
    if isinstance(value, bytes):
        return (6, value)
    if isinstance(value, tuple):
        return (7, tuple(order_key(v) for v in value))
    if isinstance(value, SortedSet) and value.frozen:
        return (8, value.keys)
    if isinstance(value, frozenset):
        return (8, _sorted_unique(list(value), [order_key(v) for v in value])[1])
    if isinstance(value, list | dict | set | SortedSet | SortedDict):
        raise TypeError(f"unhashable type: {type(value).__name__!r}")
    return (9, type(value).__name__, repr(value))  # trusted values only reach this line


def canonical(value: Any) -> Any:
    """A trusted plain value with its sets and dicts as ``SortedSet`` / ``SortedDict``."""
    if isinstance(value, list):
        return [canonical(v) for v in value]
    if isinstance(value, tuple):
        return tuple(canonical(v) for v in value)
    if isinstance(value, set | frozenset):
        members = [canonical(v) for v in value]
        return SortedSet(members, [order_key(m) for m in members], frozen=type(value) is frozenset)
    if isinstance(value, dict):
        pairs = [(canonical(k), canonical(v)) for k, v in value.items()]
        return SortedDict(pairs, [order_key(k) for k, _ in pairs])
    return value


# -- tokens and floats (Kattis default validator, CodeContests tester) ------------------------


def _float_token_rule(checker: Checker) -> Callable[[str, str], bool]:
    def equal(actual: str, expected: str) -> bool:
        return _tokens_close(actual, expected, abs_tol=checker.abs_tol, rel_tol=checker.rel_tol)

    return equal


def _tokens_close(actual: str, expected: str, *, abs_tol: float, rel_tol: float) -> bool:
    if actual == expected:
        return True
    try:
        a, e = float(actual), float(expected)
    except ValueError:
        return False
    if math.isnan(a) or math.isnan(e):
        return False
    return abs(a - e) <= max(abs_tol, rel_tol * abs(e))


def _match_with_spaces(
    actual: str,
    expected: str,
    tokens_equal: Callable[[str, str], bool],
    fold: Callable[[str], str] | None = None,
) -> bool:
    """Kattis ``space_change_sensitive``: tokens by the rule, whitespace runs identical."""
    # re.split with a group alternates token, whitespace, token, ...: odd parts are spaces.
    actual_parts, expected_parts = _space_parts(actual, fold), _space_parts(expected)
    while True:
        a = list(itertools.islice(actual_parts, _BATCH))
        e = list(itertools.islice(expected_parts, _BATCH))
        if len(a) != len(e):
            return False
        if not a:
            return True
        if a[1::2] != e[1::2]:
            return False
        if a[::2] != e[::2] and not all(
            x == y or (bool(x) and bool(y) and tokens_equal(x, y))
            for x, y in zip(a[::2], e[::2], strict=True)
        ):
            return False


def _space_parts(text: str, fold: Callable[[str], str] | None = None) -> Iterator[str]:
    """``_WHITESPACE_RUNS.split(text)`` (after ``\\r\\n`` → ``\\n``) one part at a time."""
    pending = None  # a piece ends with a token; the next piece's first part ("") continues it
    for chunk in text_chunks(text):
        chunk = chunk.replace("\r\n", "\n")
        parts = _WHITESPACE_RUNS.split(fold(chunk) if fold else chunk)
        if pending is not None:
            parts[0] = pending + parts[0]
        pending = parts.pop()
        yield from parts
    yield "" if pending is None else pending


def _lines_equal(actual: str, target: str, fold: Callable[[str], str] | None) -> bool:
    """``_normalise_lines(actual) == target`` (``target`` already normalised), read in
    pieces: trailing newlines past ``target`` are allowed, nothing else."""
    if fold is not None:
        target = target.lower()
    position = 0
    for chunk in text_chunks(actual):
        chunk = chunk.replace("\r\n", "\n")
        if fold is not None:
            chunk = fold(chunk)
        if position < len(target):
            take = min(len(chunk), len(target) - position)
            if chunk[:take] != target[position : position + take]:
                return False
            position += take
            chunk = chunk[take:]
        if chunk.count("\n") != len(chunk):
            return False
    return position == len(target)


def _normalise_lines(text: str) -> str:
    return text.replace("\r\n", "\n").rstrip("\n")


# -- LiveCodeBench ----------------------------------------------------------------------------


def livecodebench_outputs_match(actual: str, expected: str) -> bool:
    """LiveCodeBench's ``grade_stdio``: both texts stripped and split into stripped lines;
    same number of lines; each pair equal as strings or as lists of Decimals."""
    pairs = itertools.zip_longest(_stripped_lines(actual), _stripped_lines(expected))
    return all(
        a is not None and e is not None and (a == e or _decimal_lines_equal(a, e)) for a, e in pairs
    )


def _stripped_lines(text: str) -> Iterator[str]:
    for piece in _line_pieces(text.strip(), keep_break=False):
        yield from (line.strip() for line in piece.split("\n"))


def _line_pieces(text: str, *, keep_break: bool, size: int = _CHUNK) -> Iterator[str]:
    """``text`` in pieces of about ``size`` characters cut at a ``\\n``: with ``keep_break``
    each piece ends with its ``\\n`` (for ``splitlines``), otherwise the ``\\n`` is dropped
    (for ``split("\\n")``, which then gives the same lines piece by piece)."""
    start = 0
    while True:
        cut = text.find("\n", start + size)
        if cut < 0:
            if start < len(text) or not keep_break:
                yield text[start:]
            return
        yield text[start : cut + 1 if keep_break else cut]
        start = cut + 1


def _decimal_lines_equal(actual: str, expected: str) -> bool:
    """Both lines are lists of Decimals, and equal ones (read token by token)."""
    try:
        for a, e in itertools.zip_longest(iter_tokens(actual), iter_tokens(expected)):
            if a is None or e is None or Decimal(a) != Decimal(e):
                return False
    except (InvalidOperation, ValueError):
        return False
    return True


# -- APPS / TACO --------------------------------------------------------------------------------


def apps_outputs_match(actual: str, expected: str) -> bool:
    """The APPS / TACO harness's comparison of a stdio program's output, in its own order.

    The harness captures stdout as a list of lines and accepts the first of these that holds:

    1. the lines joined (each stripped, or not) equal the expected text, both stripped;
    2. the lines equal the expected text's non-empty stripped lines (after dropping empty
       output lines too);
    3. every line is a number and they are all close (numpy ``allclose``: ``|a - e| <= 1e-8 +
       1e-5 * |e|``) to the expected lines, also numbers;
    4. the set of per-line token sets is equal (line order, token order and duplicates
       ignored), or equal after rounding every token as a float to 3 decimals.

    The output's lines are read one piece at a time and rule 4 stops as soon as the output
    holds more distinct (token) sets than the expected text: memory stays near the size of
    the output, whatever it holds.
    """
    if _apps_joined_equal(actual, expected):
        return True
    # As the harness does: drop empty lines, then strip (a line of spaces stays, as "").
    expected_lines = [line.strip() for line in expected.split("\n") if line]
    if _same_lines(_apps_lines(actual), expected_lines):
        return True
    if _same_lines((line for line in _apps_lines(actual) if line), expected_lines):
        return True
    if _apps_floats_close(actual, expected_lines):
        return True
    return _apps_sets_equal(actual, expected_lines)


def _apps_lines(text: str) -> Iterator[str]:
    """``text.splitlines()`` one line at a time."""
    for piece in _line_pieces(text, keep_break=True):
        yield from piece.splitlines()


def _same_lines(lines: Iterator[str], expected: list[str]) -> bool:
    return all(a == e for a, e in itertools.zip_longest(lines, expected))


def _apps_joined_equal(actual: str, expected: str) -> bool:
    target = expected.strip()
    for strip in (False, True):
        pieces = (
            "\n".join(_lines_of(piece, strip)) for piece in _line_pieces(actual, keep_break=True)
        )
        if "\n".join(p for p in pieces if p or not strip).strip() == target:
            return True
    return False


def _lines_of(piece: str, strip: bool) -> list[str]:
    lines = piece.splitlines()
    return [line.strip() for line in lines] if strip else lines


def _apps_floats_close(actual: str, expected: list[str]) -> bool:
    if not expected:
        return False
    pairs = itertools.zip_longest((line for line in _apps_lines(actual) if line), expected)
    try:
        for a, e in pairs:
            if a is None or e is None:
                return False
            x, y = float(a), float(e)
            if not abs(x - y) <= 1e-8 + 1e-5 * abs(y):
                return False
    except ValueError:
        return False
    return True


def _apps_sets_equal(actual: str, expected_lines: list[str]) -> bool:
    """Rule 4, both ways, in one pass that drops a way as soon as it cannot hold: the output
    has more distinct line sets than the expected text, or a line more distinct tokens than
    the widest expected line (so memory is bounded by the expected text, not the output)."""
    expected_sets = {frozenset(line.split()) for line in expected_lines}
    expected_rounded = _rounded_sets(expected_sets)
    widest = max(map(len, expected_sets), default=0)
    plain: set[frozenset] | None = set()
    rounded: set[frozenset] | None = set() if expected_rounded is not None else None
    for line in _apps_lines(actual):
        if plain is None and rounded is None:
            return False
        tokens, line_rounded = _line_sets(line, widest, rounded is not None)
        if plain is not None:
            plain = None if tokens is None else _grown(plain, tokens, len(expected_sets))
        if rounded is not None:
            rounded = (
                None
                if line_rounded is None or expected_rounded is None
                else _grown(rounded, line_rounded, len(expected_rounded))
            )
    return plain == expected_sets or (rounded is not None and rounded == expected_rounded)


def _grown(sets: set[frozenset], line: frozenset, most: int) -> set[frozenset] | None:
    if line:  # the harness skips lines without tokens
        sets.add(line)
    return sets if len(sets) <= most else None


def _line_sets(
    line: str, widest: int, with_rounded: bool
) -> tuple[frozenset[str] | None, frozenset[float] | None]:
    """The line's token set and rounded-token set; either is None once it is wider than
    ``widest`` (then it is in no expected set) or, rounded, when a token is not a number."""
    tokens: set[str] | None = set()
    rounded: set[float] | None = set() if with_rounded else None
    for token in iter_tokens(line):
        if tokens is not None:
            tokens.add(token)
            if len(tokens) > widest:
                tokens = None
        if rounded is not None:
            try:
                rounded.add(round(float(token), 3))
            except (ValueError, OverflowError):
                rounded = None
            else:
                if len(rounded) > widest:
                    rounded = None
        if tokens is None and rounded is None:
            break
    return (
        None if tokens is None else frozenset(tokens),
        None if rounded is None else frozenset(rounded),
    )


def _rounded_sets(sets: set[frozenset[str]]) -> set[frozenset[float]] | None:
    try:
        return {frozenset(round(float(t), 3) for t in tokens) for tokens in sets}
    except (ValueError, OverflowError):
        return None
