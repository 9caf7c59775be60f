"""Problems: the model, the native formats and loaders for public datasets."""

from execrl.problems.bundled import load_bundled
from execrl.problems.folder import read_problem_folder, write_problem_folder
from execrl.problems.io import load_problem, load_problems, save_problems, select_problems
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
    "load_bundled",
    "load_problem",
    "load_problems",
    "read_problem_folder",
    "save_problems",
    "select_problems",
    "write_problem_folder",
]
