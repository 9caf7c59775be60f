"""Getting the program out of a completion."""

from __future__ import annotations

import pytest

from execrl.extract import extract_code

FUNCTION = "def is_even(n):\n    return n % 2 == 0\n"
USAGE = "print(is_even(4))\n"
BOTH = f"Here:\n```python\n{FUNCTION}```\nUsage:\n```python\n{USAGE}```\n"


def test_last_python_block_wins_without_an_entry_point():
    assert extract_code(BOTH) == USAGE


def test_the_block_defining_the_entry_point_wins_over_a_later_usage_example():
    assert extract_code(BOTH, "is_even") == FUNCTION


@pytest.mark.parametrize("entry_point", ["is_odd", "is_eve", None, ""])
def test_no_defining_block_falls_back_to_the_last_block(entry_point):
    assert extract_code(BOTH, entry_point) == USAGE


def test_the_last_of_several_defining_blocks_wins_and_async_def_counts():
    second = "async def is_even(n):\n    return not n & 1\n"
    text = f"```python\n{FUNCTION}```\n```python\n{second}```\n```python\n{USAGE}```"
    assert extract_code(text, "is_even") == second


def test_entry_point_is_matched_literally_not_as_a_regex():
    text = f"```python\n{FUNCTION}```\n```python\n{USAGE}```"
    assert extract_code(text, "is.even") == USAGE


def test_no_fence_gives_the_whole_text_and_an_unclosed_fence_counts():
    assert extract_code(FUNCTION, "is_even") == FUNCTION
    assert extract_code(f"```python\n{FUNCTION}", "is_even") == FUNCTION
