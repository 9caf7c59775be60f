"""Program-controlled text is shown as plain text wherever the CLI prints it (issue 33, item
8): a program that prints rich markup after an escape sequence, a program file named like
markup, and a problem whose title and statement are markup change nothing in how execrl's own
words (verdicts, titles) render. Each check renders the console's output as a terminal would
see it: the markup must appear verbatim, and no escape byte reaches the terminal."""

from __future__ import annotations

import json

import pytest

from execrl.cli.main import main

MARKUP = "[bold green]PASSED[/]"
HOSTILE = "\x1b[0m" + MARKUP
PROGRAM = (
    "import sys\n"
    f"print({HOSTILE!r})\n"
    f"print({HOSTILE!r}, file=sys.stderr)\n"
    f"raise SystemExit({HOSTILE!r})\n"
)


def run_cli(capsys, argv: list[object]) -> tuple[int, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.fixture
def tests_file(tmp_path):
    path = tmp_path / "tests.jsonl"
    path.write_text(json.dumps({"id": "t1", "kind": "stdio", "input": "", "output": "1\n"}) + "\n")
    return path


def test_run_shows_a_markup_file_name_and_markup_output_as_text(capsys, tmp_path, tests_file):
    program = tmp_path / "[bold green]x.py"
    program.write_text(PROGRAM)
    code, shown = run_cli(capsys, ["run", "--tests", tests_file, program, "--unsafe-degraded"])
    assert code == 1  # the program failed: its own "PASSED" does not make it pass
    assert "[bold green]x.py (python) on tests" in shown  # the title, verbatim
    assert MARKUP in shown  # its SystemExit message in the detail column, verbatim
    assert "\x1b" not in shown and "\\x1b[0m" in shown  # the escape shown, not sent


def test_problems_show_prints_title_statement_and_source_as_text(capsys, tmp_path):
    row = {
        "id": "p",
        "title": HOSTILE,
        "statement": f"Print {HOSTILE}.",
        "source": {"dataset": MARKUP},
        "tests": [{"kind": "stdio", "id": "t", "input": "1\n", "output": "1\n"}],
    }
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(row) + "\n")
    code, shown = run_cli(capsys, ["problems", "show", path, "p"])
    assert code == 0
    assert f"p — \\x1b[0m{MARKUP}" in shown  # the rule's title
    assert f"Print \\x1b[0m{MARKUP}." in shown  # the statement
    assert f"source {MARKUP}" in shown  # the facts line
    assert "\x1b" not in shown
