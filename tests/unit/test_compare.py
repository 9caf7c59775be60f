from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from execrl.problems import Checker
from execrl.sandbox import outputs_match, values_match

TOKENS = Checker(kind="tokens")
EXACT = Checker(kind="exact")
FLOAT = Checker(kind="float", abs_tol=1e-6, rel_tol=1e-6)


def test_tokens_ignore_whitespace_layout_only():
    assert outputs_match("1  2\n3\n\n", "1 2 3", TOKENS)
    assert outputs_match("1\r\n2\r\n", "1\n2\n", TOKENS)
    assert not outputs_match("1 2", "1 2 3", TOKENS)
    assert not outputs_match("12", "1 2", TOKENS)
    assert not outputs_match("1.0", "1", TOKENS)


def test_exact_keeps_inner_whitespace_but_normalises_line_endings():
    assert outputs_match("a b\r\n", "a b\n", EXACT)
    assert outputs_match("a b", "a b\n", EXACT)
    assert not outputs_match("a  b\n", "a b\n", EXACT)
    assert not outputs_match(" a b\n", "a b\n", EXACT)


def test_float_tolerance_absolute_and_relative():
    assert outputs_match("0.3333333", "0.333333333", FLOAT)
    assert outputs_match("1000000.5", "1000000.0", Checker(kind="float", abs_tol=0, rel_tol=1e-6))
    assert not outputs_match("0.3334", "0.3333", FLOAT)
    assert outputs_match("YES 1.0000001", "YES 1.0", FLOAT)
    assert not outputs_match("NO 1.0", "YES 1.0", FLOAT)
    assert not outputs_match("nan", "1.0", FLOAT)
    assert not outputs_match("inf", "1e308", FLOAT)
    assert not outputs_match("1.0 2.0", "1.0", FLOAT)


@given(
    st.floats(min_value=-1e9, max_value=1e9, allow_nan=False),
    st.floats(min_value=-0.9, max_value=0.9),
)
def test_float_checker_accepts_exactly_within_tolerance(value, fraction):
    shifted = value + fraction * 1e-6
    assert outputs_match(repr(shifted), repr(value), FLOAT)
    far = value + max(1e-6, 1e-6 * abs(value)) * 3
    assert not outputs_match(repr(far), repr(value), FLOAT)


def test_values_compare_plain_json_data():
    assert values_match([1, 2], [1, 2])
    assert values_match((1, 2), [1, 2])
    assert values_match({"a": [1.0000000001]}, {"a": [1.0]})
    assert not values_match(True, 1)
    assert not values_match(1, True)
    assert not values_match(1.0, True)
    assert not values_match("1", 1)
    assert not values_match([1, 2], [1, 2, 3])
    assert not values_match({"a": 1}, {"a": 1, "b": 2})
    assert values_match(None, None)
    assert not values_match(None, 0)


def test_values_never_call_a_rigged_eq():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    assert not values_match(AlwaysEqual(), 3)
    assert not values_match([AlwaysEqual()], [3])
