"""Generators for the §9 builder: the call schedule, where generators come from, the prompt,
and running them in the real sandbox (argv, line numbers, hostile generators contained)."""

from __future__ import annotations

import textwrap
import time
import uuid
from pathlib import Path

import pytest

from execrl.datagen.consensus import run_attempt
from execrl.datagen.generators import (
    CALLS_PER_ATTEMPT,
    GENERATOR_LIMITS,
    GeneratorProgram,
    attempt_schedule,
    generator_prompt,
    model_generators,
    run_generator_calls,
    sandboxed_program,
    supplied_generators,
)
from execrl.errors import ProblemFormatError
from execrl.problems.models import (
    Generator,
    GeneratorMode,
    Problem,
    Reference,
    ReferenceLabel,
    StdioTest,
)
from execrl.sandbox.limits import Limits

SMALL, EDGE, LARGE = GeneratorMode.SMALL, GeneratorMode.EDGE, GeneratorMode.LARGE
SHORT = Limits(cpu_time_s=1.0, memory_mb=256, max_output_bytes=1 << 20)

ARGV_ECHO = "import sys\nprint(repr(sys.argv), __name__)\n"
SUM_GENERATOR = (
    "import sys, random\nr = random.Random(int(sys.argv[2]))\nprint(3)\nprint(1, 2, 3)\n"
)


BUILTIN = "input()\nprint(sum(map(int, input().split())))\n"
LOOP = "input()\ns = 0\nfor x in input().split():\n    s += int(x)\nprint(s)\n"


def sum_problem(generator: str | None = SUM_GENERATOR) -> Problem:
    correct = [
        Reference(name="builtin", label=ReferenceLabel.CORRECT, code=BUILTIN),
        Reference(name="loop", label=ReferenceLabel.CORRECT, code=LOOP),
    ]
    return Problem(
        id="sum-list",
        statement="Print the sum of n integers.\n\nInput: n, then n integers on one line.",
        tests=[StdioTest(id="example-1", input="3\n1 2 3\n", output="6\n")],
        references=correct,
        generator=Generator(code=generator) if generator else None,
    )


# -- the schedule --------------------------------------------------------------------------
def test_attempt_schedule_is_15_calls_with_fresh_seeds_per_attempt():
    first = attempt_schedule(0)
    assert len(first) == CALLS_PER_ATTEMPT == 15
    assert first[:5] == [(SMALL, s) for s in range(1, 6)]
    assert first[5:10] == [(EDGE, s) for s in range(1, 6)]
    assert first[10:] == [(LARGE, s) for s in range(1, 6)]
    third = attempt_schedule(2)
    assert [seed for _, seed in third] == list(range(11, 16)) * 3
    assert {seed for _, seed in attempt_schedule(1)}.isdisjoint({seed for _, seed in first})
    with pytest.raises(ValueError):
        attempt_schedule(-1)


# -- where generators come from -------------------------------------------------------------
def test_supplied_generators_read_the_problem_and_both_folder_layouts(tmp_path: Path):
    (tmp_path / "sum-list.py").write_text("print('single')\n")
    (tmp_path / "sum-list").mkdir()
    (tmp_path / "sum-list" / "gen 10.py").write_text("print('ten')\n")
    (tmp_path / "sum-list" / "gen2.py").write_text("print('two')\n")
    (tmp_path / "sum-list" / "notes.txt").write_text("not a generator\n")
    (tmp_path / "other.py").write_text("print('another problem')\n")
    programs = supplied_generators(sum_problem(), tmp_path)
    assert [(p.name, p.origin, p.code) for p in programs] == [
        ("problem", "problem", SUM_GENERATOR),
        ("supplied", "supplied", "print('single')\n"),
        ("supplied-gen2", "supplied", "print('two')\n"),
        ("supplied-gen-10", "supplied", "print('ten')\n"),  # natural order: 2 before 10
    ]
    assert supplied_generators(sum_problem(generator=None), None) == []
    only_folder = supplied_generators(sum_problem(generator=None), tmp_path)
    assert [p.name for p in only_folder] == ["supplied", "supplied-gen2", "supplied-gen-10"]


def test_supplied_generators_bad_folder_and_file_are_one_line_errors(tmp_path: Path):
    with pytest.raises(ProblemFormatError, match="not a directory"):
        supplied_generators(sum_problem(), tmp_path / "missing")
    (tmp_path / "sum-list.py").write_bytes(b"print('\xff')\n")
    with pytest.raises(ProblemFormatError, match=r"sum-list\.py: a generator must be UTF-8"):
        supplied_generators(sum_problem(), tmp_path)


def test_generator_prompt_has_statement_example_and_calling_convention():
    [message] = generator_prompt(sum_problem())
    text = message["content"]
    assert message["role"] == "user"
    assert "Print the sum of n integers." in text
    assert "```\n3\n1 2 3\n```" in text  # the original test's input, verbatim
    assert "python gen.py MODE SEED" in text
    for mode in ("`small`", "`edge`", "`large`"):
        assert mode in text
    assert "deterministic in SEED" in text
    assert "largest inputs the constraints allow" in text


class ListSampler:
    """A real Sampler over fixed completions (as a completions file is): returns them in turn."""

    def __init__(self, completions: list[str]) -> None:
        self.completions = completions
        self.asked: list[tuple[list, int]] = []

    def sample(self, conversation, n):
        self.asked.append((conversation, n))
        return self.completions[:n]


def test_model_generators_extract_code_and_drop_samples_without_code():
    sampler = ListSampler(
        [
            "Here it is:\n```python\nimport sys\nprint(sys.argv[2])\n```\nEnjoy.",
            "I cannot write that generator, sorry.",  # prose: does not parse
            "```python\n\n```",  # an empty block
            "print(1)\n",  # no fence, but code
        ]
    )
    programs = model_generators(sum_problem(), sampler, 4)
    assert sampler.asked == [(generator_prompt(sum_problem()), 4)]
    assert [(p.name, p.origin) for p in programs] == [("model-0", "model"), ("model-3", "model")]
    assert programs[0].code == "import sys\nprint(sys.argv[2])\n"


# -- running generators in the sandbox ------------------------------------------------------
def test_generator_sees_mode_and_seed_in_argv_as_main(executor):
    program = GeneratorProgram("echo", ARGV_ECHO, "model")
    calls = [(SMALL, 1), (EDGE, 7), (LARGE, 12)]
    got = run_generator_calls(program, calls, executor=executor, limits=SHORT)
    assert [(g.mode, g.seed, g.error) for g in got] == [(m, s, None) for m, s in calls]
    assert [g.text for g in got] == [
        "['generator.py', 'small', '1'] __main__\n",
        "['generator.py', 'edge', '7'] __main__\n",
        "['generator.py', 'large', '12'] __main__\n",
    ]


def test_generator_tracebacks_keep_its_own_line_numbers(executor):
    code = "from __future__ import annotations\nimport sys\n\nraise ValueError(sys.argv[1])\n"
    captured = executor.capture_streams(sandboxed_program(code), "edge 3\n", SHORT)
    assert 'File "generator.py", line 4' in captured.stderr
    assert captured.stderr.strip().endswith("ValueError: edge")
    [failed] = run_generator_calls(
        GeneratorProgram("g", code, "model"), [(EDGE, 3)], executor=executor, limits=SHORT
    )
    assert failed.text is None and failed.error == "runtime_error: ValueError: edge"


def test_empty_output_and_bytes_that_are_not_utf8_are_errors(executor):
    code = textwrap.dedent("""\
        import sys
        if sys.argv[1] == "small":
            print("  ")
        else:
            sys.stdout.buffer.write(b"\\xff\\n")
        """)
    got = run_generator_calls(
        GeneratorProgram("g", code, "model"),
        [(SMALL, 1), (EDGE, 1)],
        executor=executor,
        limits=SHORT,
    )
    assert [g.error for g in got] == ["printed nothing", "printed bytes that are not UTF-8"]


NONCE = uuid.uuid4().hex[:12]
HOST_SECRET_FILE = Path(f"/tmp/execrl-gen-secret-{NONCE}")
ESCAPE_FILE = Path(f"/tmp/execrl-gen-escape-{NONCE}")

HOSTILE = {
    "reads-host": f"""
        import sys
        print(open("/etc/shadow").read())          # there is none in the sandbox's /etc
        print(open("{HOST_SECRET_FILE}").read())   # the host's /tmp is not the sandbox's
    """,
    "writes-host": f"""
        open("{ESCAPE_FILE}", "w").write("escaped")
        print(1)
    """,
    "forks": """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """,
    "loops": "while True: pass",
    "floods": """
        import sys
        chunk = "7 " * (1 << 19)
        for _ in range(100):                        # 100 MB
            sys.stdout.write(chunk)
    """,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_generator_is_contained_and_rejected(executor, name):
    HOST_SECRET_FILE.write_text(f"host-secret-{NONCE}\n")
    try:
        code = textwrap.dedent(HOSTILE[name])
        # Hostile on the third large call only: the first 12 calls run as a fine generator.
        guarded = (
            "import sys\nif sys.argv[1:] != ['large', '3']:\n    print(3)\n    print(1, 2, 3)\n"
            "    raise SystemExit\n" + code
        )
        program = GeneratorProgram(f"hostile-{name}", guarded, "model")
        started = time.monotonic()
        result = run_attempt(
            sum_problem(),
            program,
            0,
            correct=sum_problem().references,
            executor=executor,
            limits=SHORT,
        )
        elapsed = time.monotonic() - started
    finally:
        HOST_SECRET_FILE.unlink()
    assert not result.accepted and not result.inconclusive and result.tests == []
    assert result.reason.startswith("generator failed: large 3: "), result.reason
    assert f"host-secret-{NONCE}" not in result.reason
    assert not ESCAPE_FILE.exists()
    assert elapsed < 20, elapsed  # bounded by the generator's limits (1 s CPU, 3 s wall)
    expected = {
        "reads-host": "runtime_error: FileNotFoundError",
        "writes-host": "runtime_error: PermissionError",
        "forks": "timeout: ",  # (CPU time; the wall-clock limit on a loaded machine)
        "loops": "timeout: ",
        "floods": "output_limit: output exceeded max_output_bytes",
    }[name]
    assert result.reason.removeprefix("generator failed: large 3: ").startswith(expected)


def test_default_generator_limits_are_their_own():
    assert GENERATOR_LIMITS.cpu_time_s == 10.0
    assert GENERATOR_LIMITS.memory_mb == 1024
    assert GENERATOR_LIMITS.max_output_bytes == 32 * 1024 * 1024
