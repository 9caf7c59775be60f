"""The zygote's runner interface (``sandbox/zygote/runner.py``): the one place a language
plugs into the fork server. Python's runner prepares marshalled code and loads it back; a
worker configured for a language the zygote has no runner for fails its set-up by name."""

from __future__ import annotations

import types

import pytest

from execrl.sandbox.zygote import runner
from execrl.sandbox.zygote.compiler import Compiler


def test_python_is_the_default_runner_and_round_trips_a_program():
    python = runner.runner_for({}, Compiler(None))  # no compiler process: compiles here
    assert isinstance(python, runner.PythonRunner) and python.name == "python"
    artifact = python.prepare(bytearray(b"answer = 6 * 7\n"))
    assert isinstance(artifact, bytes)
    program = python.load(artifact)
    assert isinstance(program, types.CodeType)
    namespace: dict = {}
    exec(program, namespace)
    assert namespace["answer"] == 42


def test_a_compile_error_is_the_prepared_verdict():
    python = runner.runner_for({"runner": "python"}, Compiler(None))
    error = python.prepare(bytearray(b"def f(:\n"))
    assert isinstance(error, str) and error.startswith("SyntaxError")


def test_an_unknown_language_is_refused_by_name():
    with pytest.raises(ValueError, match=r"no runner for 'cobol' \(it has \['python'\]\)"):
        runner.runner_for({"runner": "cobol"}, Compiler(None))


def test_a_new_runner_implements_the_interface_or_says_what_is_missing():
    class Half(runner.Runner):
        name = "half"

        def prepare(self, source: bytearray) -> bytes | str:
            return bytes(source)

    half = Half(Compiler(None))
    assert half.prepare(bytearray(b"x")) == b"x"
    with pytest.raises(NotImplementedError):
        half.load(b"x")
    with pytest.raises(NotImplementedError, match="half programs have no assert tests"):
        half.run_checker({}, None, None)


def test_the_launcher_loads_every_module_the_package_lists():
    from pathlib import Path

    from execrl.sandbox.isolation import zygote_script
    from execrl.sandbox.zygote import MODULES

    package = Path(zygote_script()).parent
    on_disk = {p.stem for p in package.glob("*.py")} - {"__init__", "launch"}
    assert set(MODULES) == on_disk  # a module missing from MODULES would not be loaded
    assert len(MODULES) == len(set(MODULES))


def test_every_module_is_listed_after_the_modules_it_imports():
    """launch.py loads MODULES in order; a module imported before it was loaded would be found
    by the import system instead (which reads and writes bytecode caches)."""
    import ast
    from pathlib import Path

    from execrl.sandbox.isolation import zygote_script
    from execrl.sandbox.zygote import MODULES

    package = Path(zygote_script()).parent
    position = {name: i for i, name in enumerate(MODULES)}
    late = []
    for name in MODULES:
        tree = ast.parse((package / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module] if node.module else [a.name for a in node.names]
                late += [(name, t) for t in targets if position[t] > position[name]]
    assert late == []
