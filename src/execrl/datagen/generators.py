"""Input-generator programs for spec §9: where they come from and how they run.

A generator is a Python program run as ``python generator.py MODE SEED`` (MODE one of small,
edge, large) that prints one test input, the same for the same seed. Generators come from the
problem itself, from a folder the user supplies, or from a model; all of them are treated as
untrusted here and run in the sandbox through the executor, never on the host (the bundled
set's builder, ``execrl.datagen.build``, trusts its own generators and runs them on the host;
this module does not).

An attempt is 15 calls: 5 seeds of each mode (``attempt_schedule``); attempt ``k`` uses seeds
``5k+1 .. 5k+5``, so no two attempts of a generator share an input.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from execrl.datagen.reference_runs import capture
from execrl.errors import ProblemFormatError
from execrl.extract import extract_code
from execrl.problems.folder import natural_key
from execrl.problems.models import GeneratorMode, Problem, StdioTest, TestGroup
from execrl.sandbox.batch import parallel_map
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import CompletionSampler, Conversation, Executor
from execrl.sandbox.records import Status, TestResult

SEEDS_PER_MODE = 5
CALLS_PER_ATTEMPT = SEEDS_PER_MODE * len(GeneratorMode)  # 15: 5 seeds x 3 modes

GENERATOR_LIMITS = Limits(cpu_time_s=10.0, memory_mb=1024, max_output_bytes=32 * 1024 * 1024)
"""A generator's own limits (not the problem's): 10 s of CPU, 1 GiB, and up to 32 MiB of
output, more than the largest inputs of CodeContests-style problems (a few MB)."""

EXAMPLE_INPUT_CHARS = 2000
"""How much of the original test input the generator prompt shows as an example."""

Origin = Literal["problem", "supplied", "model"]


@dataclass(frozen=True)
class GeneratorProgram:
    """One generator: its name (used in test ids), its code and where it came from."""

    name: str
    code: str
    origin: Origin


@dataclass(frozen=True)
class GeneratedInput:
    """What one call ``generator.py MODE SEED`` printed, or why it gave nothing usable.

    ``inconclusive``: the sandbox failed (not the generator); the call says nothing about the
    generator and should be retried later."""

    mode: GeneratorMode
    seed: int
    text: str | None
    error: str | None
    inconclusive: bool = False

    @property
    def call(self) -> str:
        """The call as reasons name it: ``large 3``."""
        return f"{self.mode.value} {self.seed}"


# -- the schedule --------------------------------------------------------------------------
def attempt_schedule(attempt: int) -> list[tuple[GeneratorMode, int]]:
    """The 15 (mode, seed) calls of attempt ``attempt`` (0-based): small, edge, large, each
    with seeds ``5 * attempt + 1 .. 5 * attempt + 5``."""
    if attempt < 0:
        raise ValueError(f"attempt must be >= 0, got {attempt}")
    first = SEEDS_PER_MODE * attempt + 1
    seeds = range(first, first + SEEDS_PER_MODE)
    return [(mode, seed) for mode in GeneratorMode for seed in seeds]


def generated_group(mode: GeneratorMode) -> TestGroup:
    """Where a generated test goes: small and edge inputs are extra correctness tests (T+),
    large ones optimization tests (T_O)."""
    return TestGroup.OPTIMIZATION if mode is GeneratorMode.LARGE else TestGroup.EXTRA


# -- where generators come from -------------------------------------------------------------
def supplied_generators(problem: Problem, folder: Path | None) -> list[GeneratorProgram]:
    """The problem's own generator (``problem``) and those supplied in ``folder``:
    ``folder/<problem_id>.py`` (``supplied``) and ``folder/<problem_id>/*.py``
    (``supplied-<stem>``, in natural order)."""
    programs = []
    if problem.generator is not None:
        programs.append(GeneratorProgram("problem", problem.generator.code, "problem"))
    if folder is None:
        return programs
    folder = Path(folder)
    if not folder.is_dir():
        raise ProblemFormatError(f"{folder}: the generators folder is not a directory")
    single = folder / f"{problem.id}.py"
    if single.is_file():
        programs.append(GeneratorProgram("supplied", _read_code(single), "supplied"))
    several = folder / problem.id
    if several.is_dir():
        for path in sorted(several.glob("*.py"), key=lambda p: natural_key(p.name)):
            name = f"supplied-{_id_safe(path.stem)}"
            programs.append(GeneratorProgram(name, _read_code(path), "supplied"))
    return programs


def _read_code(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ProblemFormatError(f"{path}: a generator must be UTF-8 text") from None
    except OSError as exc:
        raise ProblemFormatError(f"{path}: cannot read the generator ({exc.strerror})") from None


def _id_safe(stem: str) -> str:
    """A file stem usable inside a test id (letters, digits, ``_.-``)."""
    return re.sub(r"[^A-Za-z0-9_.\-]+", "-", stem).strip("-.") or "generator"


def generator_prompt(problem: Problem) -> Conversation:
    """The conversation asking a model for a generator: the statement, one original test
    input as an example of the format, and the exact calling convention."""
    parts = [
        "Write an input generator for the programming problem below.",
        f"## Problem\n\n{problem.statement.strip() or problem.title or problem.id}",
    ]
    example = _example_input(problem)
    if example is not None:
        parts.append(f"## Example input (the format every input must follow)\n\n```\n{example}```")
    parts.append(
        "## What to write\n\n"
        "A Python 3 program `gen.py`, run as `python gen.py MODE SEED`, where MODE is one of "
        "`small`, `edge` or `large` (sys.argv[1]) and SEED is an integer (sys.argv[2]). It "
        "prints exactly one valid input for the problem to standard output and nothing else, "
        "and is deterministic in SEED: seed a `random.Random(SEED)` and use only it.\n"
        "- small: small random inputs.\n"
        "- edge: boundary cases (minimum and maximum values, equal elements, empty-ish "
        "cases the constraints allow).\n"
        "- large: the largest inputs the constraints allow, to time solutions.\n"
        "Use only the standard library, read no input and no files. Answer with the program "
        "in one ```python code block."
    )
    return [{"role": "user", "content": "\n\n".join(parts)}]


def _example_input(problem: Problem) -> str | None:
    """The first original stdio test's input (cut to ``EXAMPLE_INPUT_CHARS``), if any."""
    stdio = [t for t in problem.tests if isinstance(t, StdioTest)]
    originals = [t for t in stdio if t.group is TestGroup.ORIGINAL] or stdio
    if not originals:
        return None
    text = originals[0].input
    if len(text) > EXAMPLE_INPUT_CHARS:
        text = text[:EXAMPLE_INPUT_CHARS] + "\n... (cut)\n"
    return text if text.endswith("\n") else text + "\n"


def model_generators(
    problem: Problem, sampler: CompletionSampler, n: int
) -> list[GeneratorProgram]:
    """``n`` generators written by a model: ``n`` samples of ``generator_prompt(problem)``,
    the code of each extracted. A sample gives no code when what is extracted is blank or
    does not parse as Python (prose without a code block); it is dropped, so the result may be
    shorter than ``n``. Names are ``model-<sample index>`` (a dropped sample leaves a gap)."""
    completions = sampler.sample(generator_prompt(problem), n)
    programs = []
    for index, completion in enumerate(completions):
        code = extract_code(completion)
        if _is_python(code):
            programs.append(GeneratorProgram(f"model-{index}", code, "model"))
    return programs


def _is_python(code: str) -> bool:
    """Non-blank and parses (only parsed on the host, never run)."""
    if not code.strip():
        return False
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


# -- running generators, sandboxed ----------------------------------------------------------
_ARGV_PREAMBLE = (
    "import sys as _execrl_sys; "
    "_execrl_sys.argv = ['generator.py', *_execrl_sys.stdin.read().split()]; "
    "del _execrl_sys\n"
    "exec(compile({source!r}, 'generator.py', 'exec'))\n"
)
"""What the sandbox runs for a generator: a trusted preamble sets ``sys.argv`` from the call
written on stdin (``MODE SEED``), then the generator runs in the same module namespace
(``__name__ == "__main__"``), compiled as ``generator.py`` so its tracebacks name its own line
numbers. The program is the same for every call of a generator (one compile per worker)."""


def sandboxed_program(code: str) -> str:
    """The program the sandbox runs for generator ``code`` (see ``_ARGV_PREAMBLE``)."""
    return _ARGV_PREAMBLE.format(source=code)


def run_generator_calls(
    program: GeneratorProgram,
    calls: Sequence[tuple[GeneratorMode, int]],
    *,
    executor: Executor,
    limits: Limits = GENERATOR_LIMITS,
) -> list[GeneratedInput]:
    """Run ``program`` once per (mode, seed) in the sandbox, all of the pool's workers busy,
    as ``python generator.py MODE SEED`` (the program sees ``sys.argv == ["generator.py",
    mode, str(seed)]``). Results are in ``calls`` order; a crash, a limit, or an empty or
    non-UTF-8 output sets ``error``."""
    sandboxed = sandboxed_program(program.code)

    def run_one(call: tuple[GeneratorMode, int]) -> GeneratedInput:
        mode, seed = GeneratorMode(call[0]), int(call[1])
        result, stdout = capture(executor, sandboxed, f"{mode.value} {seed}\n", limits)
        return _generated(mode, seed, result, stdout)

    return list(parallel_map(run_one, calls, jobs=executor.workers, show_progress=False))


def verdict_text(result: TestResult) -> str:
    """A failed run as a reason says it: ``timeout: CPU time limit 10 s exceeded``."""
    return f"{result.status.value}: {result.detail}" if result.detail else result.status.value


def _generated(mode: GeneratorMode, seed: int, result: TestResult, stdout: str) -> GeneratedInput:
    if result.status is Status.INCONCLUSIVE:
        return GeneratedInput(mode, seed, None, f"inconclusive: {result.detail}", True)
    if not result.passed:
        return GeneratedInput(mode, seed, None, verdict_text(result))
    if not stdout.strip():
        return GeneratedInput(mode, seed, None, "printed nothing")
    if "\ufffd" in stdout:  # (capture decodes with replacement characters)
        return GeneratedInput(mode, seed, None, "printed bytes that are not UTF-8")
    return GeneratedInput(mode, seed, stdout, None)
