"""How a program of one language becomes a child's work: the runner interface, and Python's.

The server (server.py) is the same for every language: it forks a child, sets it up
(descriptors, scratch, limits, uid, seccomp, stdio), supervises it and reports what it did.
What it does not know is what a program is. A runner says, in three steps:

1. ``prepare(source)``, in the zygote, once per program: the artifact every child of this
   program is given (bytes), or the compile error (str) that is the run's verdict. Python's:
   the marshalled code, compiled by the worker's compiler process.
2. ``load(artifact)``, in a child, before it drops its privileges: what ``run`` needs (Python:
   the code object). A failure here is the sandbox's (set-up failed), not the program's.
3. ``run(program, test, prelude)``, in the child: run the program as the language's own
   launcher would — stdin on fd 0, stdout on 1, stderr on 2, a call test's encoded result on
   fd 3 — and exit with its status. Never returns.

An assert test (trusted test code that calls the program's functions) is Python's alone: its
checker process is the Python runner's ``run_checker``.

A second language implements ``Runner`` in a module of its own and adds itself to
``RUNNERS``; the server takes the worker's runner from its configuration (``"runner"``,
Python by default). Nothing else in the zygote changes.
"""

from __future__ import annotations

import marshal

from .checker import run_checker
from .child import run_program
from .compiler import Compiler


class Runner:
    """The interface: one instance per zygote, made from its compiler (see the module)."""

    name = ""

    def __init__(self, compiler: Compiler) -> None:
        self.compiler = compiler

    def prepare(self, source: bytearray) -> bytes | str:
        """In the zygote: the program's artifact, or its compile error."""
        raise NotImplementedError

    def load(self, artifact):
        """In a child, still privileged: what ``run`` runs."""
        raise NotImplementedError

    def run(self, program, test: dict, prelude) -> None:
        """In the child: run ``program`` on ``test`` and exit with its status."""
        raise NotImplementedError

    def run_checker(self, test: dict, prelude, test_code) -> None:
        """In an assert test's checker process: run the test code against the candidate."""
        raise NotImplementedError(f"{self.name} programs have no assert tests")


class PythonRunner(Runner):
    """``python3 program.py`` in a fork of the warm interpreter."""

    name = "python"

    def prepare(self, source: bytearray) -> bytes | str:
        return self.compiler.compile(source)

    def load(self, artifact):
        return marshal.loads(artifact)

    def run(self, program, test: dict, prelude) -> None:
        run_program(program, test, prelude)

    def run_checker(self, test: dict, prelude, test_code) -> None:
        run_checker(test, prelude, test_code)


RUNNERS: dict[str, type[Runner]] = {PythonRunner.name: PythonRunner}
"""Every runner this zygote has, by the name a worker's configuration gives."""


def runner_for(config: dict, compiler: Compiler) -> Runner:
    """The runner the worker's configuration names (Python when it names none)."""
    name = config.get("runner", PythonRunner.name)
    if name not in RUNNERS:
        raise ValueError(f"this sandbox has no runner for {name!r} (it has {sorted(RUNNERS)})")
    return RUNNERS[name](compiler)
