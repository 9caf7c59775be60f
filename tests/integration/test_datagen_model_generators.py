"""Model-written generators end to end with the bundled SmolLM2: prompt, samples, code
extracted (or dropped and counted), each generator run in the sandbox to an AttemptResult.

The quality of SmolLM2's generators is not the point (they are usually rejected); the path is.
"""

from __future__ import annotations

from execrl.datagen.consensus import AttemptResult, reason_kind, run_attempt
from execrl.datagen.generators import generator_prompt, model_generators
from execrl.evaluate.samplers import SamplingSettings, open_sampler
from execrl.problems.models import Problem, Reference, ReferenceLabel, StdioTest
from execrl.sandbox.limits import Limits
from tests.integration._training import TRAINING_MARKS

pytestmark = TRAINING_MARKS

READ = "input()\na = list(map(int, input().split()))\n"
PROBLEM = Problem(
    id="sum-list",
    statement=(
        "Given n integers, print their sum.\n\nInput: the first line holds n (1 <= n <= 10^5), "
        "the second n integers a_i (|a_i| <= 10^9).\nOutput: the sum."
    ),
    time_limit_s=1.0,
    memory_limit_mb=256,
    tests=[StdioTest(id="example-1", input="3\n1 2 3\n", output="6\n")],
    references=[
        Reference(name="builtin", label=ReferenceLabel.CORRECT, code=READ + "print(sum(a))\n"),
        Reference(
            name="loop", label=ReferenceLabel.CORRECT,
            code=READ + "s = 0\nfor x in a:\n    s += x\nprint(s)\n",
        ),
        Reference(
            name="reduce", label=ReferenceLabel.CORRECT,
            code="import functools, operator\n" + READ + "print(functools.reduce(operator.add, a))",
        ),
    ],
)  # fmt: skip
SHORT_GENERATOR = Limits(cpu_time_s=2.0, memory_mb=512, max_output_bytes=8 << 20)


class CountingSampler:
    """The local SmolLM2 sampler, remembering what it was asked and what it answered."""

    def __init__(self, sampler) -> None:
        self.sampler = sampler
        self.completions: list[str] = []
        self.conversations: list = []

    def sample(self, conversation, n):
        self.conversations.append(conversation)
        self.completions = self.sampler.sample(conversation, n)
        return self.completions


def test_smollm2_writes_generators_that_run_sandboxed_to_attempt_results(executor):
    settings = SamplingSettings(max_new_tokens=128, temperature=0.8, seed=0, threads=1)
    sampler, info = open_sampler("local", settings, n=2)
    assert sampler is not None and info.kind == "local"
    counting = CountingSampler(sampler)
    programs = model_generators(PROBLEM, counting, 2)

    assert counting.conversations == [generator_prompt(PROBLEM)]
    assert "python gen.py MODE SEED" in counting.conversations[0][0]["content"]
    assert len(counting.completions) == 2
    dropped = 2 - len(programs)  # what the pipeline counts as samples without code
    assert dropped in (0, 1, 2)
    assert programs, "with seed 0 SmolLM2 writes a code block in at least one of 2 samples"
    assert all(p.origin == "model" and p.name in {"model-0", "model-1"} for p in programs)
    assert all(p.code.strip() for p in programs)

    for program in programs:
        result = run_attempt(
            PROBLEM, program, 0, correct=PROBLEM.references, executor=executor,
            limits=SHORT_GENERATOR, solution_limits=Limits(cpu_time_s=1.0, memory_mb=256),
        )  # fmt: skip
        assert isinstance(result, AttemptResult)
        assert result.generator == program.name and result.attempt == 0
        assert not result.inconclusive, result.reason  # the local sandbox works
        if result.accepted:
            assert len(result.tests) == 15 and result.checked_by is not None
        else:
            assert result.tests == []
            assert reason_kind(result.reason) in {"generator failed", "no two solutions agree"}
