from __future__ import annotations

import pytest

from execrl.errors import ProblemFormatError
from execrl.problems import CallTest, Problem, StdioTest, TestGroup
from execrl.problems._validation import parse_problem


def make_problem(**overrides) -> Problem:
    data = {
        "id": "p1",
        "tests": [
            {"kind": "stdio", "id": "a", "group": "original", "input": "1\n", "output": "1\n"},
            {"kind": "stdio", "id": "b", "group": "extra", "input": "2\n", "output": "2\n"},
            {
                "kind": "call",
                "id": "c",
                "group": "optimization",
                "fn_name": "f",
                "args": [1],
                "expected": 2,
            },
        ],
        "references": [{"name": "r", "code": "print(1)", "label": "correct"}],
    }
    data.update(overrides)
    return parse_problem(data, where="inline")


def test_groups_split_tests_as_the_spec_defines():
    problem = make_problem()
    assert [t.id for t in problem.correctness_tests] == ["a", "b"]
    assert [t.id for t in problem.optimization_tests] == ["c"]
    assert [t.id for t in problem.tests_in(TestGroup.ORIGINAL)] == ["a"]
    assert [t.id for t in problem.tests_in()] == ["a", "b", "c"]
    assert isinstance(problem.tests[2], CallTest) and isinstance(problem.tests[0], StdioTest)
    assert problem.test_kinds == {"stdio", "call"}


def test_defaults_follow_the_spec_hard_cap():
    problem = make_problem()
    assert problem.time_limit_s == 10.0
    assert problem.checker.kind == "tokens"
    assert problem.difficulty == "unknown"


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"time_limit_s": -1}, "time_limit_s"),
        ({"difficulty": "trivial"}, "difficulty"),
        ({"id": "has space"}, "id"),
        ({"checker": {"kind": "fuzzy"}}, "checker.kind"),
        ({"references": [{"name": "r", "code": "", "label": "maybe"}]}, "references[r].label"),
        ({"tests": [{"kind": "stdio", "id": "a", "input": "1"}]}, "tests[a].output"),
        ({"tests": [{"kind": "shell", "id": "a"}]}, "tests[a]"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_malformed_fields_are_named_in_the_error(overrides, fragment):
    with pytest.raises(ProblemFormatError) as info:
        make_problem(**overrides)
    message = str(info.value)
    assert message.startswith("inline: ")
    assert fragment in message


def test_duplicate_test_ids_are_rejected():
    tests = [{"kind": "stdio", "id": "x", "input": "", "output": ""}] * 2
    with pytest.raises(ProblemFormatError, match="duplicate test id 'x'"):
        make_problem(tests=tests)


def test_duplicate_reference_names_are_rejected():
    refs = [{"name": "r", "code": "", "label": "correct"}] * 2
    with pytest.raises(ProblemFormatError, match="duplicate reference name 'r'"):
        make_problem(references=refs)


def test_non_mapping_is_rejected_with_type_name():
    with pytest.raises(ProblemFormatError, match="got list"):
        parse_problem([1, 2], where="file.jsonl:3")


def test_references_by_label():
    problem = make_problem(
        references=[
            {"name": "good", "code": "", "label": "correct", "tier": "O(n)"},
            {"name": "bad", "code": "", "label": "incorrect", "flaw": "off by one"},
        ]
    )
    assert [r.name for r in problem.references_labelled("correct")] == ["good"]
    assert [r.name for r in problem.references_labelled("incorrect")] == ["bad"]


# -- reference languages --------------------------------------------------------------------


def _reference(language):
    entry = {"name": "r", "code": "x", "label": "correct"}
    if language is not None:
        entry["language"] = language
    return make_problem(references=[entry]).references[0]


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        (None, "python"),
        ("python3", "python"),  # the old default reads as the canonical name
        ("Python3", "python"),
        ("pypy", "pypy"),
        ("C++", "cpp"),
        (".cc", "cpp"),
        (".C", "cpp"),
        (".c", "c"),
        ("golang", "go"),
        ("node", "javascript"),
        ("nodejs", "javascript"),  # SandboxFusion's name
        (2, "cpp"),  # CodeContests' enum
        (1, "python2"),
        ("JAVA", "java"),
    ],
)
def test_reference_language_is_stored_by_its_canonical_name(given, stored):
    reference = _reference(given)
    assert reference.language == stored
    assert reference.model_dump()["language"] == stored


def test_unknown_reference_language_names_the_known_ones():
    with pytest.raises(ProblemFormatError) as caught:
        _reference("cobol")
    message = str(caught.value)
    assert "references[r].language" in message and "unknown `language` 'cobol'" in message
    assert "known: python, python2, pypy, c, cpp, java, rust, go, javascript" in message


def test_language_names_agree_with_the_sandboxs_table():
    """The problem model's names-only table (problems may not import the sandbox) resolves
    every name the sandbox's language table knows to the same language, and nothing else."""
    from execrl.errors import UsageError
    from execrl.problems.language_names import LANGUAGE_NAMES, find_language, source_suffix
    from execrl.sandbox.languages import CODECONTESTS_NAMES, LANGUAGES, language

    assert list(LANGUAGE_NAMES) == list(LANGUAGES)
    names: list[str | int] = [*CODECONTESTS_NAMES, *CODECONTESTS_NAMES.values(), 0, 5]
    for row in LANGUAGES.values():
        assert source_suffix(row.name) == "." + row.source_file.rsplit(".", 1)[1]
        for name in (row.name, *row.aliases, *row.sandboxfusion, *row.kattis_extensions):
            names += [name, name.upper(), name.title(), f" {name} "]
        names += list(row.codecontests)
    names += ["cobol", ".kt", ".py2", ".CPP", "", "python 3", "kotlin"]
    for name in names:
        try:
            expected = language(name).name
        except UsageError:
            expected = None
        assert find_language(name) == expected, name
    for name, entry in LANGUAGE_NAMES.items():
        row = LANGUAGES[name]
        assert (entry.aliases, entry.codecontests, entry.kattis_extensions) == (
            row.aliases,
            row.codecontests,
            row.kattis_extensions,
        )
