"""Parsing tagged responses: forgiving extraction, strict format scores (hand-computed)."""

from __future__ import annotations

import pytest

from execrl.rewards.solver.parsing import (
    CODE_NOT_LAST,
    REASONING_NOT_FIRST,
    SECTION_NOT_OPENED,
    binary_format_score,
    graded_format_score,
    parse_response,
)

FENCED = "```python\nprint(1)\n```"
WELL_FORMED = f"<think>why</think>\n<model>max x</model>\n<python>\n{FENCED}\n</python>"


def test_well_formed_response():
    parsed = parse_response(WELL_FORMED)
    assert (parsed.think, parsed.model) == ("why", "max x")
    assert parsed.code == "print(1)\n"
    assert parsed.code_origin == "python-section"
    assert parsed.penalties == {}
    assert parsed.counts == dict.fromkeys(parsed.counts, 1)
    assert (parsed.binary_format, parsed.graded_format) == (1.0, 2.0)


@pytest.mark.parametrize(
    ("text", "penalties"),
    [
        # the reasoning opener is in the prompt (chat templates do this): one missing tag and
        # the think section is not opened
        (
            "why</think><model>m</model><python>print(3)</python>",
            {"<think> appears 0 times": 1 / 8, SECTION_NOT_OPENED: 1 / 3},
        ),
        # a redrafted code section: both python tags twice
        (
            "<think>t</think><model>m</model><python>print(1)</python><python>print(2)</python>",
            {"<python> appears 2 times": 1 / 4, "</python> appears 2 times": 1 / 4},
        ),
        # code before the model
        ("<think>t</think><python>print(1)</python><model>m</model>", {CODE_NOT_LAST: 1 / 3}),
        # the model before the reasoning
        ("<model>m</model><think>t</think><python>print(1)</python>", {REASONING_NOT_FIRST: 1 / 3}),
        # a section closed before it is opened
        (
            "<think>t</think></model>m<model><python>print(1)</python>",
            {SECTION_NOT_OPENED: 1 / 3},
        ),
        # a truncated generation: the code section never closes
        (
            "<think>t</think><model>m</model><python>\n```python\nprint(4)\n",
            {"</python> appears 0 times": 1 / 4, SECTION_NOT_OPENED: 1 / 3},
        ),
    ],
)
def test_graded_penalties(text, penalties):
    parsed = parse_response(text)
    assert parsed.penalties == pytest.approx(penalties)
    assert parsed.graded_format == pytest.approx(2 - sum(penalties.values()))
    assert parsed.binary_format == 0.0
    assert parsed.code is not None  # extraction still works


def test_no_tags_is_the_worst_format_and_penalties_add_up_to_two():
    parsed = parse_response("The answer is 5.")
    assert sum(parsed.penalties.values()) == pytest.approx(2.0)
    assert parsed.graded_format == 0.0
    assert parsed.code is None and parsed.code_origin == "none"


def test_extracted_code_from_each_malformed_response():
    assert parse_response("why</think><model>m</model><python>print(3)</python>").code == (
        "print(3)\n"
    )
    redraft = "<think>t</think><model>m</model><python>print(1)</python><python>print(2)</python>"
    assert parse_response(redraft).code == "print(2)\n"  # the last draft
    truncated = "<think>t</think><model>m</model><python>\n```python\nprint(4)\n"
    assert parse_response(truncated).code == "print(4)\n"
    misordered = parse_response("<python>x = 1</python><model>m</model><think>t</think>")
    assert (misordered.code, misordered.model, misordered.think) == ("x = 1\n", "m", "t")


def test_fenced_block_without_tags_is_found_outside_the_reasoning():
    parsed = parse_response("Here is code:\n```python\nprint(2)\n```\n")
    assert (parsed.code, parsed.code_origin) == ("print(2)\n", "fenced-block")
    only_in_reasoning = parse_response("<think>maybe\n```python\nprint(1)\n```\n</think>")
    assert only_in_reasoning.code is None


def test_python_section_prefers_the_python_fence_and_accepts_plain_code():
    section = "<python>\n```python\nimport x\n```\nOutput:\n```\nobjective: 5\n```\n</python>"
    assert parse_response(section).code == "import x\n"
    assert parse_response("<python>\nimport y\nprint(y)\n</python>").code == "import y\nprint(y)\n"
    assert parse_response("<python>\n   \n</python>").code is None
    assert parse_response("<python>\n```python\n```\n</python>").code is None


def test_tags_are_case_insensitive_and_may_carry_attributes():
    text = "<Think>t</THINK><model kind='milp'>m</model>< python >x = 1</ python>"
    parsed = parse_response(text)
    assert parsed.penalties == {}
    assert (parsed.model, parsed.code) == ("m", "x = 1\n")


def test_module_level_helpers():
    assert binary_format_score(WELL_FORMED) == 1.0
    assert graded_format_score("<think>t</think><python>x</python><model>m</model>") == (
        pytest.approx(2 - 1 / 3)
    )
