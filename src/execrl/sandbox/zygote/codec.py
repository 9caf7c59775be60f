"""The value codec for call-based and assert-style values. Imported by the host too.

A value travels as {"root": item, "table": [entry, ...]}: scalars are inline items; every
container or object is a table entry referenced by {"ref": index}, so shared references and
cycles survive and a 100,000-node linked list is one flat JSON array (encoded and decoded
without recursion).

- item:  None | bool | int | finite float | str | {"int": hex} (big ints: str(int) is capped
  at 4,300 digits, hex is not) | {"float": repr} | {"bytes": hex} | {"complex": [r, i]}
  | {"ref": n} | {"remote": key, "type": name} (an object living in the candidate)
- entry: ["list" | "tuple" | "set" | "frozenset", [item, ...]] | ["dict", [[k, v], ...]]
  | ["obj", class name, [[attribute, item], ...]] (a class the prelude defines)

Containers are read through the base type's own methods (subclasses included), so a returned
object cannot smuggle a rigged __eq__ to the comparer; decoding builds only built-in values,
instances of trusted prelude classes (without running __init__) and remote handles.
"""

from __future__ import annotations

import math


class NotPlainData(TypeError):
    pass


PLAIN_TYPES = "None, bool, int, float, complex, str, bytes, list, tuple, set, frozenset, dict"
_INLINE_INT_BITS = 4096  # larger ints travel as hex
_INLINE_INT_LIMIT = 1 << _INLINE_INT_BITS
_SEQUENCES = {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}


class Handles:
    """Candidate side: the objects it handed to the checker as remote handles."""

    __slots__ = ("ids", "objects")

    def __init__(self) -> None:
        self.objects: list = []  # kept alive, so their ids stay unique
        self.ids: dict[int, int] = {}

    def add(self, obj) -> int:
        key = self.ids.get(id(obj))
        if key is None:
            key = self.ids[id(obj)] = len(self.objects)
            self.objects.append(obj)
        return key


def not_plain_message(value, *, prelude_classes: bool = False) -> str:
    also = " or objects of the prelude's classes" if prelude_classes else ""
    return f"a {type(value).__name__} object; only plain data ({PLAIN_TYPES}){also} can be compared"


_PLAIN_DEPTH = 32
_PLAIN_ITEMS = 4096


def _is_plain(value) -> bool:
    """Whether ``value`` is JSON as it stands, so it can travel as ``{"plain": value}``
    without the object table: exact str, bool, None, ints of at most _INLINE_INT_BITS bits,
    finite floats, and exact lists of them, no list twice, at most _PLAIN_ITEMS items in all
    and _PLAIN_DEPTH deep — the arguments and results of most tests (HumanEval's, say), at
    half the table's cost per call."""
    stack, seen, count = [(value, 0)], set(), 0
    while stack:
        v, depth = stack.pop()
        t = type(v)
        if t is str or v is None or t is bool:
            continue
        if t is int:
            if -_INLINE_INT_LIMIT < v < _INLINE_INT_LIMIT:
                continue
            return False
        if t is float:
            if math.isfinite(v):
                continue
            return False
        if t is not list or depth >= _PLAIN_DEPTH or id(v) in seen:
            return False
        seen.add(id(v))
        count += len(v)
        if count > _PLAIN_ITEMS:
            return False
        stack.extend((x, depth + 1) for x in v)
    return True


def checked_plain(value):
    """``value`` (decoded from untrusted JSON) if it is what ``_is_plain`` lets through:
    only lists, str, int, float, bool and None, within the same depth and item limits.
    ValueError otherwise."""
    stack, count = [(value, 0)], 0
    while stack:
        v, depth = stack.pop()
        t = type(v)
        if t is str or t is int or t is float or t is bool or v is None:
            continue
        if t is not list or depth >= _PLAIN_DEPTH:
            raise ValueError("malformed plain value")
        count += len(v)
        if count > _PLAIN_ITEMS:
            raise ValueError("a plain value over its item limit")
        stack.extend((x, depth + 1) for x in v)
    return value


def encode_value(value, *, classes=(), handles: Handles | None = None, remote_type=None) -> dict:
    """``value`` as JSON-ready data. Instances of classes named in ``classes`` travel by
    attribute state; other objects become remote handles when ``handles`` is given, and raise
    NotPlainData otherwise. ``remote_type`` (the checker's ``calls.Remote``): its objects
    travel as the handles they are."""
    if _is_plain(value):
        return {"plain": value}
    table: list = []
    seen: dict[int, int] = {}
    work: list = []

    def tabled(obj) -> dict:
        slot = seen.get(id(obj))
        if slot is None:
            slot = seen[id(obj)] = len(table)
            table.append(None)
            work.append((slot, obj))
        return {"ref": slot}

    def item(v):
        if v is None or type(v) is bool:  # bool cannot be subclassed
            return v
        if isinstance(v, int):
            n = int.__index__(v)
            return n if n.bit_length() <= _INLINE_INT_BITS else {"int": hex(n)}
        if isinstance(v, float):
            f = float.__float__(v)
            return f if math.isfinite(f) else {"float": float.__repr__(f)}
        if isinstance(v, str):
            return str.__str__(v)
        if isinstance(v, bytes):
            return {"bytes": bytes.hex(v)}
        if isinstance(v, complex):
            real, imag = complex.__getattribute__(v, "real"), complex.__getattribute__(v, "imag")
            return {"complex": [item(real), item(imag)]}
        if isinstance(v, list | tuple | set | frozenset | dict):
            return tabled(v)
        if remote_type is not None and type(v) is remote_type:
            return {"remote": v._key, "type": v._what}
        if type(v).__name__ in classes and hasattr(v, "__dict__"):
            return tabled(v)
        if handles is not None:
            return {"remote": handles.add(v), "type": type(v).__name__}
        raise NotPlainData(not_plain_message(v, prelude_classes=bool(classes)))

    root = item(value)
    while work:
        slot, v = work.pop()
        if isinstance(v, dict):
            table[slot] = ["dict", [[item(k), item(x)] for k, x in dict.items(v)]]
            continue
        for base, tag in _SEQUENCES.items():
            if isinstance(v, base):
                items = base.__iter__(v)
                table[slot] = [tag, [item(x) for x in items]]
                break
        else:
            state = object.__getattribute__(v, "__dict__")
            attributes = [[str.__str__(k), item(x)] for k, x in dict.items(state)]
            table[slot] = ["obj", type(v).__name__, attributes]
    return {"root": root, "table": table}


def decode_value(data, *, classes=None, remote=None):
    """The value ``encode_value`` encoded; ValueError for anything malformed. ``classes`` maps
    class names to (trusted) classes; ``remote(key, type_name)`` resolves a remote handle."""
    try:
        return _decode(data, classes or {}, remote)
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        raise ValueError(f"malformed value: {type(exc).__name__}: {exc}") from None


def _index(ref, size: int) -> int:
    if type(ref) is not int or not 0 <= ref < size:
        raise ValueError(f"a reference out of range: {ref!r}")
    return ref


def encoded_table(data) -> list | None:
    """The table of what ``encode_value`` wrote, or None when it is a plain value (then
    ``data["plain"]`` is checked and can be used as it is); ValueError when it is neither."""
    if isinstance(data, dict) and len(data) == 1 and "plain" in data:
        checked_plain(data["plain"])
        return None
    if not isinstance(data, dict) or set(data) != {"root", "table"}:
        raise ValueError("not an encoded value")
    if not isinstance(data["table"], list):
        raise ValueError("malformed table")
    return data["table"]


def _decode(data, classes: dict, remote):
    table = encoded_table(data)
    if table is None:
        return data["plain"]
    built: list = [None] * len(table)
    done = [False] * len(table)
    immutable = []
    for i, entry in enumerate(table):  # 1. shells of mutable values: references can point here
        kind = entry[0]
        if kind == "list":
            built[i] = []
        elif kind == "dict":
            built[i] = {}
        elif kind == "set":
            built[i] = set()
        elif kind == "obj":
            cls = classes.get(entry[1])
            if cls is None:
                raise ValueError(f"an object of an unknown class {entry[1]!r}")
            built[i] = cls.__new__(cls)
        elif kind in ("tuple", "frozenset"):
            immutable.append(i)
            continue
        else:
            raise ValueError(f"unknown entry {kind!r}")
        done[i] = True

    def item(x):
        if x is None or isinstance(x, bool | int | float | str):
            return x
        if not isinstance(x, dict) or len(x) not in (1, 2):
            raise ValueError(f"malformed item {type(x).__name__}")
        if "ref" in x:
            if not done[_index(x["ref"], len(table))]:
                raise ValueError("a reference to an unbuilt value")
            return built[x["ref"]]
        if "int" in x:
            return int(x["int"], 16)
        if "float" in x:
            return float(x["float"])
        if "bytes" in x:
            return bytes.fromhex(x["bytes"])
        if "complex" in x:
            real, imag = x["complex"]
            return complex(float(item(real)), float(item(imag)))
        if "remote" in x and remote is not None:
            return remote(x["remote"], str(x.get("type", "object")))
        raise ValueError(f"unknown item {sorted(x)!r}")

    # 2. tuples and frozensets, each after the tuples and frozensets it holds
    visiting: set[int] = set()
    for start in immutable:
        stack = [start]
        while stack:
            i = stack[-1]
            if done[i]:
                stack.pop()
                continue
            visiting.add(i)
            waiting = [
                x["ref"]
                for x in table[i][1]
                if isinstance(x, dict) and "ref" in x and not done[_index(x["ref"], len(table))]
            ]
            if waiting:
                if any(j in visiting for j in waiting):
                    raise ValueError("a cycle of tuples")
                stack.extend(waiting)
                continue
            values = [item(x) for x in table[i][1]]
            built[i] = tuple(values) if table[i][0] == "tuple" else frozenset(values)
            done[i] = True
            visiting.discard(i)
            stack.pop()
    # 3. fill the mutable values: objects and lists first, then what hashes its members
    for order in (("obj", "list"), ("dict", "set")):
        for i, entry in enumerate(table):
            kind = entry[0]
            if kind not in order:
                continue
            if kind == "obj":
                state = vars(built[i])
                for name, x in entry[2]:
                    state[str(name)] = item(x)
            elif kind == "list":
                built[i].extend(item(x) for x in entry[1])
            elif kind == "set":
                built[i].update(item(x) for x in entry[1])
            else:
                for k, x in entry[1]:
                    built[i][item(k)] = item(x)
    return item(data["root"])
