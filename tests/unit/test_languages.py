"""The language table (execrl.sandbox.languages): every row complete, the names other systems
use, the host probe ("installed" = built and ran its test program), and `execrl languages`."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from execrl.cli.main import main
from execrl.errors import UsageError
from execrl.sandbox.languages import (
    LANGUAGES,
    PLACEHOLDERS,
    PROFILES,
    by_codecontests,
    by_extension,
    by_sandboxfusion_name,
    language,
    probe,
)

ROWS = list(LANGUAGES.values())


@pytest.mark.parametrize("lang", ROWS, ids=lambda lang: lang.name)
def test_every_row_is_complete(lang):
    assert lang is LANGUAGES[lang.name]
    assert lang.title and lang.source_file and lang.version and lang.debian_package
    assert lang.test_program.strip()
    assert tuple(p.name for p in lang.profiles) == PROFILES
    templates = [lang.run, *([lang.compile] if lang.compiled else [])]
    for template in templates:
        named = {n for part in template for n in re.findall(r"\{(\w+)\}", part)}
        assert named <= PLACEHOLDERS, (lang.name, named)
    # {flags} once: in the build of a compiled language, else in the run.
    where = lang.compile if lang.compiled else lang.run
    assert [*where].count("{flags}") == 1
    if lang.compiled:
        assert "{source}" in lang.compile and "{binary}" in "".join(lang.run)
        assert "{flags}" not in lang.run
    else:
        assert "{source}" in lang.run
    for name in PROFILES:
        filled = lang.commands(name, flags=["-DUSER"])
        text = " ".join([*(filled.compile or ()), *filled.run])
        assert "{" not in text and "-DUSER" in text


def test_the_judge_profile_is_the_default_and_the_users_flags_come_last():
    cpp = LANGUAGES["cpp"].commands(flags=["-Wall"])
    assert cpp.compile == (
        "g++", "-O2", "-std=gnu++17", "-DONLINE_JUDGE", "-Wall", "main.cpp", "-o", "main",
    )  # fmt: skip
    assert LANGUAGES["c"].commands().compile[-1] == "-lm"
    assert "-Xss64m" in LANGUAGES["java"].commands().run
    assert "-O" in LANGUAGES["rust"].commands().compile
    sandboxfusion = LANGUAGES["cpp"].commands("sandboxfusion").compile
    assert "-std=c++17" in sandboxfusion and not any(f.startswith("-O") for f in sandboxfusion)
    with pytest.raises(UsageError, match="judge, sandboxfusion"):
        LANGUAGES["cpp"].commands("fast")


def test_the_names_other_systems_use():
    assert by_sandboxfusion_name("nodejs") is by_sandboxfusion_name("js") is LANGUAGES["javascript"]
    assert by_sandboxfusion_name("cpp") is LANGUAGES["cpp"]
    assert by_sandboxfusion_name("cobol") is None
    assert by_codecontests(2) is by_codecontests("CPP") is LANGUAGES["cpp"]
    assert by_codecontests(3) is LANGUAGES["python"] and by_codecontests(4) is LANGUAGES["java"]
    assert by_codecontests(1) is by_codecontests("PYTHON") is LANGUAGES["python2"]
    assert language("C++") is language("cxx") is LANGUAGES["cpp"]
    assert language("Python3") is LANGUAGES["python"] and language("golang") is LANGUAGES["go"]
    for ext in (".cpp", ".cc", ".cxx", ".c++", ".C", "cc"):
        assert by_extension(ext) is LANGUAGES["cpp"], ext
    assert by_extension(".c") is LANGUAGES["c"] and by_extension(".rs") is LANGUAGES["rust"]
    assert by_extension(".xyz") is None


def test_one_lookup_takes_every_kind_of_name():
    assert language("cpp") is language(".cc") is language(2) is language("CPP")
    assert language("nodejs") is LANGUAGES["javascript"]
    assert language(".java") is language(4) is LANGUAGES["java"]


@pytest.mark.parametrize("unknown", ["cobol", ".xyz", 0, 99])
def test_an_unknown_language_lists_the_known_names(unknown):
    with pytest.raises(UsageError) as caught:
        language(unknown)
    assert repr(unknown) in str(caught.value)
    assert all(name in str(caught.value) for name in LANGUAGES)


@pytest.mark.parametrize("name", ["python", "c", "cpp"])
def test_python_c_and_cpp_probe_as_installed(name):
    found = probe(name)
    assert found.installed, found.why_not
    assert found.version and found.path and found.why_not is None
    assert probe(LANGUAGES[name]) is found  # cached per process


def test_a_missing_toolchain_is_not_installed_and_names_its_debian_package():
    cpp = LANGUAGES["cpp"]
    missing = dataclasses.replace(
        cpp, compile=("g++-does-not-exist", *cpp.compile[1:]), debian_package="g++-99"
    )
    found = probe(missing)
    assert not found.installed and found.path is None and found.version is None
    assert "g++-does-not-exist" in found.why_not and "g++-99" in found.why_not


def test_a_toolchain_that_cannot_build_the_test_program_is_not_installed():
    broken = dataclasses.replace(LANGUAGES["c"], test_program="int main(void) { return }\n")
    found = probe(broken)
    assert not found.installed and found.path  # on PATH, yet it built nothing
    assert "build failed" in found.why_not and "Debian package gcc" in found.why_not


def test_a_test_program_that_does_not_echo_is_not_installed():
    silent = dataclasses.replace(LANGUAGES["python"], test_program="print('hi')\n")
    found = probe(silent)
    assert not found.installed and "run failed" in found.why_not


def test_the_cli_lists_the_languages_as_json(capsys):
    assert main(["languages", "--json"]) == 0
    rows = {row["language"]: row for row in json.loads(capsys.readouterr().out)}
    assert list(rows) == list(LANGUAGES)
    for name in ("python", "c", "cpp"):
        assert rows[name]["installed"] is True and rows[name]["version"]
    assert rows["cpp"]["commands"]["judge"]["compile"][:2] == ["g++", "-O2"]
    for row in rows.values():
        assert row["installed"] or LANGUAGES[row["language"]].debian_package in row["why_not"]


def test_the_cli_table_says_what_to_install(capsys):
    assert main(["languages"]) == 0
    out = capsys.readouterr().out
    assert "cpp" in out and "yes" in out
