"""Test generation from generator programs, consensus outputs, and suite verification."""

from execrl.datagen.build import build_tests, consensus_output, generate_input, plan_tests
from execrl.datagen.verify import ProblemReport, ReferenceReport, verify_problem

__all__ = [
    "ProblemReport",
    "ReferenceReport",
    "build_tests",
    "consensus_output",
    "generate_input",
    "plan_tests",
    "verify_problem",
]
