"""Problems: the model, the native formats and loaders for public datasets."""

from execrl.problems.folder import read_problem_folder, write_problem_folder
from execrl.problems.models import (
    CORRECTNESS_GROUPS,
    AssertTest,
    CallTest,
    Checker,
    Generator,
    GeneratorMode,
    Problem,
    Reference,
    ReferenceLabel,
    Source,
    StdioTest,
    TestCase,
    TestGroup,
)

__all__ = [
    "CORRECTNESS_GROUPS",
    "AssertTest",
    "CallTest",
    "Checker",
    "Generator",
    "GeneratorMode",
    "Problem",
    "Reference",
    "ReferenceLabel",
    "Source",
    "StdioTest",
    "TestCase",
    "TestGroup",
    "read_problem_folder",
    "write_problem_folder",
]
