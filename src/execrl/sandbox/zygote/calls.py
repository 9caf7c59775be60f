"""The call channel of an assert test, both ends: the candidate answers the checker's
requests (calls, attribute reads, conversions) about its own objects; the checker holds
``Remote`` handles to them. Replies are untrusted data on the checker's side."""

from __future__ import annotations

import builtins
import json

from .codec import Handles, NotPlainData, decode_value, encode_value
from .wire import LENGTH_PREFIX, read_exact, read_message, write_message


def serve_calls(namespace: dict, test: dict, classes: dict) -> None:
    """Candidate side of an assert test: announce the program's top-level names, then answer
    the checker's requests (fd 4 in, fd 5 out) until it hangs up. Only exceptions escape a
    call as data; SystemExit and the like end the process, as they would end ``python3``."""
    entry = resolve_entry(namespace, test["entry_point"])
    handles = Handles()
    names = {
        name: _exception_base(value) if isinstance(value, type) else None
        for name, value in list(namespace.items())[:10000]
        if not name.startswith("__") and callable(value)
    }
    write_message(5, {"hello": names})
    # Classes the checker may send objects of: the program's own binding of a prelude name
    # wins, as it would in one concatenated file.
    local = {
        n: namespace[n] if isinstance(namespace.get(n), type) else c for n, c in classes.items()
    }

    def target(key):
        if key is None:
            return entry
        if type(key) is int:
            return handles.objects[key]
        return namespace[key]

    def resolve(key, _type_name):
        try:
            return target(key)
        except (IndexError, KeyError, TypeError):
            raise ValueError(f"unknown remote {key!r}") from None

    while True:
        try:
            header, _ = read_message(4)
        except EOFError:
            return
        write_message(5, _answer(header, target, resolve, local, handles))


def _answer(header: dict, target, resolve, classes: dict, handles: Handles) -> dict:
    try:
        obj = target(header.get("target"))
        if header["op"] == "resolve":
            try:
                return {"value": encode_value(obj, classes=classes)}
            except NotPlainData as exc:
                return {"not_plain_data": str(exc)}
        if header["op"] == "getattr":
            value = getattr(obj, header["name"])
        elif header["op"] == "apply":
            value = _APPLY[header["fn"]](obj)
        else:
            args, *rest = decode_value(header["args"], classes=classes, remote=resolve)
            value = obj(*args, **(rest[0] if rest else {}))
    except Exception as exc:  # the program's own exception travels back as data
        return {"raised": _exception_data(exc)}
    return {"value": encode_value(value, classes=classes, handles=handles)}


_APPLY = {"bool": bool, "len": len, "list": list, "str": str, "int": int, "float": float}


def _exception_base(cls) -> str | None:
    """The nearest built-in exception class a class derives from (None: not an exception)."""
    if not issubclass(cls, Exception):
        return None
    for base in cls.__mro__:
        if base.__module__ == "builtins":
            return base.__name__
    return "Exception"


def _exception_data(exc: Exception) -> dict:
    try:
        args = encode_value(list(exc.args))
    except NotPlainData:
        args = None
    try:
        message = str(exc)
    except Exception:
        message = ""
    return {
        "type": type(exc).__name__[:200],
        "base": _exception_base(type(exc)),
        "args": args,
        "message": message[:2000],
    }


class CandidateFailed(Exception):
    def __init__(self, detail: str, *, stopped: bool = False) -> None:
        super().__init__(detail)
        self.stopped = stopped


class UnsupportedTest(Exception):
    pass


_MAX_REPLY_BYTES = 1 << 28
_STOPPED = "the program stopped while serving a call"


class CallChannel:
    """Checker side of an assert test: requests to the candidate process (fd 5 out, fd 4 in).
    Replies are untrusted data: read with a size cap, decoded into plain values, trusted
    prelude objects and Remote handles; nothing the candidate sends runs as code here."""

    def __init__(self, classes: dict) -> None:
        self.requests = 0
        self.classes = classes
        self.entry_calls = 0
        self.stand_ins: dict[tuple[str, str], type] = {}

    def hello(self) -> dict:
        header = self.read()
        names = header.get("hello")
        if not isinstance(names, dict):
            raise CandidateFailed("the program broke the call protocol (no greeting)")
        return names

    def request(self, message: dict):
        self.requests += 1  # (reported: a counted run subtracts the harness's part of each)
        try:
            write_message(5, message)
        except OSError:
            raise CandidateFailed(_STOPPED, stopped=True) from None
        reply = self.read()
        if "raised" in reply:
            raise self.program_exception(reply["raised"])
        if "not_plain_data" in reply:
            raise CandidateFailed(f"the program returned {str(reply['not_plain_data'])[:300]}")
        if "value" not in reply:
            raise CandidateFailed("the program broke the call protocol (no value)")
        try:
            return decode_value(reply["value"], classes=self.classes, remote=self.remote)
        except (ValueError, RecursionError, MemoryError) as exc:
            raise CandidateFailed(f"unreadable return value: {exc}") from None

    def read(self) -> dict:
        try:
            (size,) = LENGTH_PREFIX.unpack(read_exact(4, LENGTH_PREFIX.size))
            if size > _MAX_REPLY_BYTES:
                raise CandidateFailed(f"the program sent a {size}-byte reply (over 256 MiB)")
            header = json.loads(read_exact(4, size))
        except (EOFError, OSError):
            raise CandidateFailed(_STOPPED, stopped=True) from None
        except (ValueError, RecursionError) as exc:
            raise CandidateFailed(f"the program broke the call protocol ({exc})") from None
        if not isinstance(header, dict) or header.get("payload_sizes"):
            raise CandidateFailed("the program broke the call protocol (bad header)")
        return header

    def remote(self, key, type_name: str) -> Remote:
        if not (key is None or type(key) in (int, str)):
            raise ValueError("malformed remote key")
        return Remote(self, key, type_name)

    def call(self, key, args: tuple, kwargs: dict):
        if key is None:
            self.entry_calls += 1
        try:
            # [args] alone without keywords: often plain, so it skips the object table
            envelope = [list(args), kwargs] if kwargs else [list(args)]
            encoded = encode_value(envelope, classes=self.classes, remote_type=Remote)
        except NotPlainData as exc:
            raise UnsupportedTest(f"the test passes {exc}") from None
        return self.request({"op": "call", "target": key, "args": encoded})

    def stand_in(self, name: str, base_name) -> type:
        """The checker's class for an exception class of the program: the built-in itself,
        or a class of the same name deriving from its nearest built-in base."""
        base = getattr(builtins, str(base_name), None)
        if not (isinstance(base, type) and issubclass(base, Exception)):
            base = Exception
        if name == base.__name__:
            return base
        key = (name, base.__name__)
        if key not in self.stand_ins:
            self.stand_ins[key] = type(name, (base,), {"__module__": "program"})
        return self.stand_ins[key]

    def program_exception(self, info) -> BaseException:
        if not isinstance(info, dict):
            return CandidateFailed("the program broke the call protocol (bad exception)")
        name, message = str(info.get("type", "Exception")), str(info.get("message", ""))
        cls = self.stand_in(name, info.get("base"))
        try:
            exc = cls(*decode_value(info.get("args")))
        except Exception:
            try:
                exc = cls(message)
            except Exception:  # a built-in with a fixed signature (UnicodeDecodeError)
                exc = self.stand_in(name, "Exception")(message)
        exc._execrl_from_program = True
        return exc


class Remote:
    """Checker side: a value that lives in the candidate process (an object of a class the
    program defines, or one of the program's top-level names, such as a class the test code
    instantiates). Calls, attribute reads and conversions whose result is checked here (bool,
    len, iteration, str, int, float) are forwarded; comparisons and other operators, which
    would need the expected value, ask the candidate for the value as plain data and run here:
    nothing the test compares with is ever sent to the candidate."""

    __slots__ = ("_channel", "_key", "_what")

    def __init__(self, channel: CallChannel, key, what: str) -> None:
        self._channel, self._key, self._what = channel, key, what

    def __call__(self, *args, **kwargs):
        return self._channel.call(self._key, args, kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._channel.request({"op": "getattr", "target": self._key, "name": name})

    def _plain(self):
        return self._channel.request({"op": "resolve", "target": self._key})

    def _apply(self, function: str, result_type: type):
        value = self._channel.request({"op": "apply", "target": self._key, "fn": function})
        if type(value) is not result_type:
            kind = type(value).__name__
            raise CandidateFailed(f"the program's {function}() of a {self._what} gave a {kind}")
        return value

    def __bool__(self) -> bool:
        return self._apply("bool", bool)

    def __len__(self) -> int:
        return self._apply("len", int)

    def __iter__(self):
        return iter(self._apply("list", list))

    def __str__(self) -> str:
        return self._apply("str", str)

    def __int__(self) -> int:
        return self._apply("int", int)

    def __float__(self) -> float:
        return self._apply("float", float)

    def __repr__(self) -> str:
        return f"<{self._what} of the program>"

    def __hash__(self) -> int:
        return hash(self._plain())

    def __eq__(self, other):
        return self._plain() == other

    def __ne__(self, other):
        return self._plain() != other


_OPERATORS = {
    "__lt__": lambda v, o: v < o,
    "__le__": lambda v, o: v <= o,
    "__gt__": lambda v, o: v > o,
    "__ge__": lambda v, o: v >= o,
    "__getitem__": lambda v, k: v[k],
    "__contains__": lambda v, x: x in v,
    "__add__": lambda v, o: v + o,
    "__radd__": lambda v, o: o + v,
    "__sub__": lambda v, o: v - o,
    "__mul__": lambda v, o: v * o,
    "__neg__": lambda v: -v,
    "__abs__": abs,
    "__round__": round,
}


def _on_plain(operator):
    return lambda self, *args: operator(self._plain(), *args)


for _name, _operator in _OPERATORS.items():
    setattr(Remote, _name, _on_plain(_operator))


def prelude_classes(namespace: dict) -> dict:
    """The classes a prelude defined itself (not ones it imported): known on both sides."""
    return {
        name: value
        for name, value in namespace.items()
        if isinstance(value, type) and value.__module__ == namespace["__name__"]
    }


def resolve_entry(namespace: dict, name: str):
    """The function under test: a top-level name, ``Solution().method`` as LeetCode writes
    it, or a method of ``Solution`` named ``name``."""
    if "()." in name:
        cls_name, method = name.split("().", 1)
        cls = namespace.get(cls_name)
        if isinstance(cls, type):
            return getattr(cls(), method)
    fn = namespace.get(name)
    if fn is None and isinstance(namespace.get("Solution"), type):
        fn = getattr(namespace["Solution"](), name, None)
    if fn is None:
        raise NameError(f"the program does not define {name!r}")
    return fn
