"""The sandbox's value codec: what crosses between host, checker and candidate."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from execrl.sandbox.zygote.codec import NotPlainData, decode_value, encode_value

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary()
big_ints = st.integers(min_value=-(10**12000), max_value=10**12000)
keys = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
hashables = st.recursive(keys | big_ints, lambda inner: st.tuples(inner, inner), max_leaves=8)
values = st.recursive(
    scalars | big_ints | st.complex_numbers(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(hashables, inner, max_size=3)
        | st.frozensets(hashables, max_size=3)
    ),
    max_leaves=20,
)


def round_trip(value, **kwargs):
    return decode_value(json.loads(json.dumps(encode_value(value, **kwargs))), **kwargs)


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return type(b) is dict and len(a) == len(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@given(values)
def test_plain_values_round_trip_with_their_types(value):
    assert same(round_trip(value), value)


def test_big_ints_travel_beyond_the_4300_digit_limit():
    big = -(10**100_000) - 7
    text = json.dumps(encode_value([big, 5]))
    assert len(text) < 100_000  # hex, not decimal
    assert decode_value(json.loads(text)) == [big, 5]


def test_shared_references_and_cycles_survive():
    shared = [1]
    cyclic: list = [shared, shared]
    cyclic.append(cyclic)
    holder = ([],)
    holder[0].append(holder)
    out = round_trip([cyclic, holder])
    assert out[0][0] is out[0][1] and out[0][2] is out[0]
    assert out[1][0][0] is out[1]


class Node:
    def __init__(self, val=0, next=None):
        self.val, self.next = val, next


def test_objects_of_known_classes_cross_by_state_without_recursion():
    head = None
    for i in range(200_000):
        head = Node(i, head)
    out = round_trip(head, classes={"Node": Node})
    for expected in range(199_999, -1, -1):
        assert type(out) is Node and out.val == expected
        out = out.next
    assert out is None


def test_unknown_objects_are_not_plain_data():
    with pytest.raises(NotPlainData, match="Node object; only plain data"):
        encode_value([Node()])


def test_subclasses_are_read_through_the_base_type():
    class Liar(int):
        def __eq__(self, other):
            return True

    class Sneaky(list):
        def __iter__(self):
            return iter([99])

    assert round_trip([Liar(7), Sneaky([1, 2])]) == [7, [1, 2]]


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {"root": 1},
        {"root": {"ref": 0}, "table": []},
        {"root": {"ref": -1}, "table": [["list", []]]},
        {"root": {"ref": 0}, "table": [["tuple", [{"ref": 0}]]]},
        {"root": {"ref": 0}, "table": [["obj", "Node", []]]},
        {"root": {"ref": 0}, "table": [["set", [{"ref": 0}]]]},
        {"root": {"ref": 0}, "table": [["exec", "print(1)"]]},
        {"root": {"remote": 3, "type": "X"}, "table": []},
        {"root": {"int": "zz"}, "table": []},
        {"root": [1, 2], "table": []},
    ],
)
def test_malformed_data_is_a_value_error(data):
    with pytest.raises(ValueError):
        decode_value(data)


# --- the plain fast path: JSON-as-it-stands values skip the object table -------------------

plain_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**4000), max_value=2**4000)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=5),
    max_leaves=30,
)


@given(plain_values)
def test_plain_values_travel_without_the_table_and_come_back_equal(value):
    from execrl.sandbox.returned import decode_returned

    encoded = encode_value(value)
    assert set(encoded) == {"plain"}
    wire = json.loads(json.dumps(encoded))
    assert decode_value(wire) == value and decode_returned(wire) == value


def test_what_is_not_plain_keeps_the_table():
    shared = [1]
    for value in ((1, 2), [(1,)], {"a": 1}, {1}, [shared, shared], 2**5000, math.inf, [b"x"]):
        assert set(encode_value(value)) == {"root", "table"}, value
    deep = []
    for _ in range(40):
        deep = [deep]
    assert set(encode_value(deep)) == {"root", "table"}
    assert set(encode_value(list(range(5000)))) == {"root", "table"}
    decoded = decode_value(json.loads(json.dumps(encode_value([shared, shared]))))
    assert decoded[0] is decoded[1]  # identity kept where it exists


@pytest.mark.parametrize(
    "forged",
    [{"a": 1}, [[{"a": 1}]], [1, [2, {}]], list(range(5000)), "nested"],
)
def test_a_forged_plain_value_outside_the_rules_is_refused(forged):
    from execrl.sandbox.returned import decode_returned

    if forged == "nested":
        forged = []
        for _ in range(40):
            forged = [forged]
    for decode in (decode_value, decode_returned):
        with pytest.raises(ValueError):
            decode({"plain": forged})
