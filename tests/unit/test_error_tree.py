"""Every exception class execrl defines is under the root, ``execrl.errors.ExecrlError``
(issue 30.6): a caller that catches ExecrlError catches everything execrl raises on purpose.

Exempt, by name:
- ``execrl.sandbox.zygote``, the in-sandbox package: it runs inside the sandbox on the
  standard library only (tests/unit/test_zygote_stdlib.py), so it cannot import execrl.errors;
  its errors never cross to the host as exceptions (they arrive as verdicts on the wire).
- warnings (subclasses of ``Warning``): they are shown, not raised.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

import execrl
from execrl.errors import ExecrlError

EXEMPT_PACKAGES = ("execrl.sandbox.zygote",)
"""Standard-library-only code that cannot import the root (see the module docstring)."""

MIN_MODULES = 150
"""Fewer modules imported than this means the walk broke, not that execrl shrank."""


def _exempt(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in EXEMPT_PACKAGES)


def _modules() -> tuple[list[ModuleType], list[str]]:
    """Every execrl module that imports here, and those skipped for an optional extra."""
    imported, skipped = [], []
    for info in pkgutil.walk_packages(execrl.__path__, "execrl."):
        if _exempt(info.name):
            continue
        try:
            imported.append(importlib.import_module(info.name))
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] == "execrl":
                raise  # a broken import inside execrl is a failure, not a missing extra
            skipped.append(f"{info.name} (needs {exc.name})")
    return imported, skipped


def _exception_classes(module: ModuleType) -> list[type[BaseException]]:
    return [  # (vars, not getattr: a deprecated module's __getattr__ would warn)
        cls
        for cls in vars(module).values()
        if inspect.isclass(cls)
        and cls.__module__ == module.__name__
        and issubclass(cls, BaseException)
        and not issubclass(cls, Warning)
    ]


def _off_the_root(modules: list[ModuleType]) -> list[str]:
    return [
        f"{cls.__module__}.{cls.__qualname__} ({', '.join(b.__name__ for b in cls.__mro__[1:])})"
        for module in modules
        for cls in _exception_classes(module)
        if not issubclass(cls, ExecrlError)
    ]


def test_every_exception_class_derives_from_execrl_error() -> None:
    modules, skipped = _modules()
    assert len(modules) + len(skipped) >= MIN_MODULES, (len(modules), skipped)
    off = _off_the_root(modules)
    assert not off, "derive these from execrl.errors.ExecrlError:\n" + "\n".join(off)


def test_the_walk_finds_a_class_off_the_root() -> None:
    module = ModuleType("execrl.fake")

    class Stray(Exception):
        pass

    class Fine(ExecrlError, ValueError):
        pass

    class Shown(UserWarning):
        pass

    for cls in (Stray, Fine, Shown):
        cls.__module__ = module.__name__
        setattr(module, cls.__name__, cls)
    assert _off_the_root([module]) == [
        "execrl.fake.test_the_walk_finds_a_class_off_the_root.<locals>.Stray "
        "(Exception, BaseException, object)"
    ]


@pytest.mark.parametrize("name", ["execrl.sandbox.zygote", "execrl.sandbox.zygote.wire"])
def test_the_in_sandbox_package_is_exempt_by_name(name: str) -> None:
    assert _exempt(name)
    assert not _exempt("execrl.sandbox.zygotes")


def test_classes_keep_the_builtin_bases_their_callers_catch() -> None:
    from execrl.sandbox.returned import ValueRejected
    from execrl.sandbox.validators import ValidatorBuildError

    assert issubclass(ValueRejected, ValueError)
    assert issubclass(ValidatorBuildError, execrl.errors.ExecutionError)
