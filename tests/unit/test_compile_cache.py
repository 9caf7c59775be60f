"""The worker's compiler process: its cache of compiled sources, and the trusted-code items the
zygote hands to a child (marshalled code, a compile error, or the source without a compiler)."""

from __future__ import annotations

import marshal

import pytest

from execrl.sandbox.zygote import compiler

TEST_CODE = b"NOTE = 'x'\ndef check(candidate):\n    assert candidate(1) == 2\n"


def test_a_repeated_source_is_compiled_once_and_gives_the_same_code():
    cache = compiler.CompileCache()
    first = cache.compile(TEST_CODE, "<test>")
    again = cache.compile(TEST_CODE, "<test>")
    assert again is first and cache.hits == 1
    code = marshal.loads(first)
    assert code.co_filename == "<test>" and "check" in code.co_names


def test_the_filename_is_part_of_the_key():
    cache = compiler.CompileCache()
    as_test = marshal.loads(cache.compile(TEST_CODE, "<test>"))
    as_prelude = marshal.loads(cache.compile(TEST_CODE, "<prelude>"))
    assert (as_test.co_filename, as_prelude.co_filename) == ("<test>", "<prelude>")
    assert cache.hits == 0


def test_the_least_recently_used_entry_goes_first():
    cache = compiler.CompileCache(entries=2)
    sources = [f"x = {i}\n".encode() for i in range(3)]
    cache.compile(sources[0], "<program>")
    cache.compile(sources[1], "<program>")
    cache.compile(sources[0], "<program>")  # 0 is now the most recent
    cache.compile(sources[2], "<program>")  # evicts 1
    assert [key[1] for key in cache.results] == [sources[0], sources[2]]
    assert cache.hits == 1


def test_large_sources_and_compile_errors():
    cache = compiler.CompileCache(max_source=16)
    big = b"x = 1\n" * 10
    cache.compile(big, "<program>")
    assert cache.results == {}  # compiled, not kept
    error = cache.compile(b"def f(:\n", "<program>")
    assert isinstance(error, str) and error.startswith("SyntaxError")
    assert cache.compile(b"def f(:\n", "<program>") == error and cache.hits == 1


def test_a_trusted_item_is_code_an_error_or_source():
    compiled = compiler.compile_source(TEST_CODE, "<test>")
    code = compiler.trusted_code(compiled, "<test>")
    assert code.co_filename == "<test>"
    from_source = compiler.trusted_code(("source", bytearray(TEST_CODE)), "<test>")
    assert from_source.co_filename == "<test>" and from_source.co_names == code.co_names
    error = compiler.compile_source(b"assert (", "<test>")
    with pytest.raises(compiler.CompileFailed) as failed:
        compiler.trusted_code(error, "<test>")
    assert compiler.trusted_failure_line(failed.value) == error
    assert error.startswith("SyntaxError: ")
