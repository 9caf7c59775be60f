"""Deprecated: the old home of the local pool, the judge and ``ExecutionRequest``.

This module was split (issue 30): the worker pool is ``execrl.sandbox.pool``
(``LocalExecutor``), the judge is ``execrl.sandbox.judge`` (``judge``,
``apply_intended_limit``), and the request and result types are in
``execrl.sandbox.protocol`` (``ExecutionRequest``, ``Captured``). The names below still
import from here, with a DeprecationWarning, for one release; import them from
``execrl.sandbox`` (``ExecutionRequest``, ``LocalExecutor``) or from their new modules.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_MOVED_TO = {
    "Captured": "execrl.sandbox.protocol",
    "ExecutionRequest": "execrl.sandbox.protocol",
    "LocalExecutor": "execrl.sandbox.pool",
    "SETUP_FAILED_EXIT": "execrl.sandbox.judge",
    "apply_intended_limit": "execrl.sandbox.judge",
    "judge": "execrl.sandbox.judge",
}
"""Each name this module used to define, and the module that defines it now."""


def __getattr__(name: str) -> Any:
    module = _MOVED_TO.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"execrl.sandbox.executor.{name} moved to {module}.{name}; import it from there "
        "(execrl.sandbox.executor goes away in the next release)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(_MOVED_TO)
