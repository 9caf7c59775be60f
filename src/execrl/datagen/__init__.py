"""Test generation: the bundled set's builder (``execrl problems build``: a trusted generator,
consensus of every reference) and spec §9's pipeline for any set with labelled solutions
(``execrl build``: verified labels, sandboxed generators accepted by agreement, the filter
rounds and keep rules)."""

from execrl.datagen.build import build_tests, consensus_output, generate_input, plan_tests
from execrl.datagen.consensus import AttemptResult, run_attempt
from execrl.datagen.generators import GENERATOR_LIMITS, GeneratorProgram, supplied_generators
from execrl.datagen.pipeline import BuildResult, BuildSettings, build_problem_set
from execrl.datagen.verify import ProblemReport, ReferenceReport, verify_problem

__all__ = [
    "GENERATOR_LIMITS",
    "AttemptResult",
    "BuildResult",
    "BuildSettings",
    "GeneratorProgram",
    "ProblemReport",
    "ReferenceReport",
    "build_problem_set",
    "build_tests",
    "consensus_output",
    "generate_input",
    "plan_tests",
    "run_attempt",
    "supplied_generators",
    "verify_problem",
]
