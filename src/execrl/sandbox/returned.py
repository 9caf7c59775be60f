"""A call test's returned value, read in the host without trusting it.

The candidate's process encodes what its function returned (``zygote.codec.encode_value``: a root
item and a flat table of containers). Everything in that encoding is the program's to choose,
so the host reads it with bounded work and memory:

- no hash table of the program's values is ever built: sets, frozensets and dict keys become
  ``SortedSet`` / ``SortedDict`` (members sorted by ``compare.order_key``), so a set of ints
  chosen to share one hash (``k * (2**61 - 1)``) costs O(n log n), not O(n²);
- the value is walked once, iteratively, in table order: nesting deeper than ``MAX_DEPTH``,
  more than ``MAX_ELEMENTS`` elements once shared references are counted each time they are
  reached, or a value that contains itself is a ``ValueRejected`` (the verdict's detail), not
  a RecursionError or an exponential walk;
- it is shown through ``show``, which stops after a fixed number of characters.
"""

from __future__ import annotations

import contextlib
from typing import Any

from execrl.errors import ExecrlError
from execrl.sandbox.compare import SortedDict, SortedSet, _canonical_match, canonical, order_key
from execrl.sandbox.zygote.codec import encoded_table

MAX_DEPTH = 256
"""Deepest nesting of containers a returned value may have."""
MAX_ELEMENTS = 1 << 25
"""Most items a returned value may hold, shared references counted each time they appear."""
MAX_KEY_ELEMENTS = 1 << 22
"""Most items all members of sets and keys of dicts may hold together (sorting compares them)."""

_CONTAINERS = ("list", "tuple", "set", "frozenset", "dict")


class ValueRejected(ExecrlError, ValueError):
    """The returned value is over a limit, or contains itself: it cannot equal an expected
    value (the message says which)."""


def decode_returned(data: Any) -> Any:
    """The value ``encode_value`` encoded, with sets and dicts as ``SortedSet`` /
    ``SortedDict``. ``ValueRejected`` over a limit; ``ValueError`` when malformed."""
    table = encoded_table(data)
    if table is None:  # lists and scalars only: nothing to sort or hash
        return data["plain"]
    for entry in table:
        _check_entry(entry)
    order, size = _post_order(table, data["root"])
    built: dict[int, Any] = {}
    keys: dict[int, tuple] = {}  # order keys of the tuples and frozensets built so far
    key_elements = 0
    for i in order:
        kind, items = table[i]
        if kind == "dict":
            pairs = [(_item(k, built), _item(v, built)) for k, v in items]
            key_elements += sum(_size(k, size) for k, _ in items)
            _check_keys(key_elements)
            pair_keys = [_key(k, p[0], keys) for (k, _), p in zip(items, pairs, strict=True)]
            built[i] = SortedDict(pairs, pair_keys)
            continue
        values = [_item(x, built) for x in items]
        if kind in ("list", "tuple"):
            built[i] = values if kind == "list" else tuple(values)
        else:
            key_elements += sum(_size(x, size) for x in items)
            _check_keys(key_elements)
            member_keys = [_key(x, v, keys) for x, v in zip(items, values, strict=True)]
            built[i] = SortedSet(values, member_keys, frozen=kind == "frozenset")
        if kind == "tuple":
            # a tuple holding a list has no key: fine until something hashes it (and fails)
            with contextlib.suppress(ValueError):
                keys[i] = (7, tuple(_key(x, v, keys) for x, v in zip(items, values, strict=True)))
        elif kind == "frozenset":
            keys[i] = (8, built[i].keys)
    return _item(data["root"], built)


def matches(decoded: Any, expected: Any) -> bool:
    """``values_match`` for a value from ``decode_returned`` (not walked again: the walk
    follows ``expected``, which is trusted)."""
    return _canonical_match(decoded, canonical(expected))


def show(value: Any, limit: int = 120) -> str:
    """A repr of at most ``limit`` characters, in time bounded by ``limit`` too."""
    out: list[str] = []
    length = 0
    stack: list[Any] = [value]
    while stack and length <= limit:
        top = stack.pop()
        if isinstance(top, _Text):
            piece = top.text
        elif isinstance(top, list | tuple | SortedSet | SortedDict):
            open_, close = _brackets(top)
            piece = open_
            stack.append(_Text(close))
            parts = _parts(top)
            for j in range(len(parts) - 1, -1, -1):
                stack.extend(parts[j][::-1])
                if j:
                    stack.append(_Text(", "))
        elif isinstance(top, str | bytes):
            piece = repr(top[: limit + 1])
        elif isinstance(top, int) and not isinstance(top, bool) and top.bit_length() > 4096:
            piece = f"an int of {top.bit_length()} bits"
        else:
            piece = repr(top)[: limit + 1]
        out.append(piece)
        length += len(piece)
    text = "".join(out)
    return text if len(text) <= limit and not stack else text[: limit - 1] + "…"


class _Text:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_COLON = _Text(": ")


def _brackets(value: Any) -> tuple[str, str]:
    if isinstance(value, list):
        return "[", "]"
    if isinstance(value, tuple):
        return "(", ",)" if len(value) == 1 else ")"
    if isinstance(value, SortedSet) and not value.items:
        return ("frozenset(" if value.frozen else "set("), ")"
    if isinstance(value, SortedSet) and value.frozen:
        return "frozenset({", "})"
    return "{", "}"


def _parts(value: Any) -> list[tuple]:
    """Up to 64 members (more cannot fit in a short repr), each as the pieces it shows as."""
    if isinstance(value, SortedDict):
        return [(k, _COLON, v) for k, v in zip(value.items[:64], value.values[:64], strict=True)]
    items = value.items if isinstance(value, SortedSet) else value
    return [(v,) for v in items[:64]]


def _check_entry(entry: Any) -> None:
    if not isinstance(entry, list) or len(entry) != 2 or entry[0] not in _CONTAINERS:
        kind = entry[0] if isinstance(entry, list) and entry else entry
        raise ValueError(f"unknown entry {str(kind)[:40]!r}")
    if not isinstance(entry[1], list):
        raise ValueError("malformed entry")
    if entry[0] == "dict" and not all(isinstance(p, list) and len(p) == 2 for p in entry[1]):
        raise ValueError("malformed dict entry")


def _children(entry: list) -> list:
    if entry[0] == "dict":
        return [x for pair in entry[1] for x in pair]
    return entry[1]


def _ref(x: Any, size: int) -> int | None:
    if not isinstance(x, dict) or "ref" not in x:
        return None
    ref = x["ref"]
    if type(ref) is not int or not 0 <= ref < size:
        raise ValueError(f"a reference out of range: {str(ref)[:40]}")
    return ref


def _post_order(table: list, root: Any) -> tuple[list[int], list[int]]:
    """Entries reachable from ``root``, children first, and each entry's element count (shared
    references counted each time). Iterative; checks depth, size and cycles."""
    n = len(table)
    size = [0] * n
    depth = [0] * n
    state = [0] * n  # 0 unseen, 1 on the path, 2 done
    order: list[int] = []
    start = _ref(root, n)
    if start is None:
        return order, size
    stack: list[tuple[int, int, list]] = [(start, 0, _children(table[start]))]
    state[start] = 1
    while stack:
        i, next_child, children = stack[-1]
        while next_child < len(children):
            j = _ref(children[next_child], n)
            next_child += 1
            if j is None:
                continue
            if state[j] == 1:
                raise ValueRejected("the returned value contains itself")
            if state[j] == 0:
                if len(stack) >= MAX_DEPTH:
                    raise ValueRejected(f"the returned value is nested over {MAX_DEPTH} deep")
                stack[-1] = (i, next_child, children)
                stack.append((j, 0, _children(table[j])))
                state[j] = 1
                break
        else:
            stack.pop()
            state[i] = 2
            refs = [j for j in (_ref(x, n) for x in children) if j is not None]
            size[i] = len(children) + sum(size[j] for j in refs)
            depth[i] = 1 + max((depth[j] for j in refs), default=0)
            if size[i] > MAX_ELEMENTS:
                raise ValueRejected(f"the returned value holds over {MAX_ELEMENTS:,} items")
            if depth[i] > MAX_DEPTH:
                raise ValueRejected(f"the returned value is nested over {MAX_DEPTH} deep")
            order.append(i)
    return order, size


def _size(x: Any, size: list[int]) -> int:
    return 1 + size[x["ref"]] if isinstance(x, dict) and "ref" in x else 1


def _check_keys(count: int) -> None:
    if count > MAX_KEY_ELEMENTS:
        raise ValueRejected(
            f"the returned sets and dict keys hold over {MAX_KEY_ELEMENTS:,} items together"
        )


def _key(x: Any, value: Any, keys: dict[int, tuple]) -> tuple:
    if isinstance(x, dict) and "ref" in x:
        key = keys.get(x["ref"])
        if key is None:  # a list, dict or set: what Python's set() would refuse
            raise ValueError(f"unhashable type: {type(value).__name__!r}")
        return key
    return order_key(value)


def _item(x: Any, built: dict[int, Any]) -> Any:
    if x is None or isinstance(x, bool | int | float | str):
        return x
    if not isinstance(x, dict) or len(x) != 1:
        raise ValueError(f"malformed item {type(x).__name__}")
    ((tag, body),) = x.items()
    if tag == "ref":
        return built[body]
    if tag == "int" and isinstance(body, str):
        return int(body, 16)
    if tag == "float" and isinstance(body, str):
        return float(body)
    if tag == "bytes" and isinstance(body, str):
        return bytes.fromhex(body)
    if tag == "complex" and isinstance(body, list) and len(body) == 2:
        real, imag = (_item(v, built) for v in body)
        return complex(float(real), float(imag))
    raise ValueError(f"unknown item {str(tag)[:40]!r}")
