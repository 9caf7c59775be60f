"""Deprecated: the old home of the local pool, the judge and ``ExecutionRequest``.

This module was split (issue 30): the worker pool is ``execrl.sandbox.pool``
(``LocalExecutor``), the judge is ``execrl.sandbox.judge`` (``judge``,
``apply_intended_limit``), and the request and result types are in
``execrl.sandbox.protocol`` (``ExecutionRequest``, ``Captured``). The names below still
import from here, with a DeprecationWarning, for one release; import them from
``execrl.sandbox`` (``ExecutionRequest``, ``LocalExecutor``) or from their new modules.
"""

from __future__ import annotations

from execrl.errors import deprecated_names

_MOVED_TO = {
    "Captured": "execrl.sandbox.protocol",
    "ExecutionRequest": "execrl.sandbox.protocol",
    "LocalExecutor": "execrl.sandbox.pool",
    "SETUP_FAILED_EXIT": "execrl.sandbox.judge",
    "apply_intended_limit": "execrl.sandbox.judge",
    "judge": "execrl.sandbox.judge",
}
"""Each name this module used to define, and the module that defines it now."""

__getattr__ = deprecated_names(__name__, {name: (home, name) for name, home in _MOVED_TO.items()})


def __dir__() -> list[str]:
    return sorted(_MOVED_TO)
