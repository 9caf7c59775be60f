"""Execution at cluster scale: ``execrl serve`` (the native API and SandboxFusion-compatible
endpoints), ``RemoteExecutor`` (the §6 fallback policy over several servers) and
``RayExecutor`` (one LocalExecutor per node).

The heavy dependencies are optional extras: ``execrl[serve]`` (fastapi, uvicorn, httpx) and
``execrl[ray]``; importing this package needs neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from execrl.service.open import open_executor, parse_executor_spec

if TYPE_CHECKING:
    from execrl.service.ray import RayExecutor
    from execrl.service.remote import RemoteExecutor

__all__ = ["RayExecutor", "RemoteExecutor", "open_executor", "parse_executor_spec"]


def __getattr__(name: str) -> Any:
    """``RemoteExecutor`` and ``RayExecutor`` import their extras only when asked for."""
    if name == "RemoteExecutor":
        from execrl.service.remote import RemoteExecutor

        return RemoteExecutor
    if name == "RayExecutor":
        from execrl.service.ray import RayExecutor

        return RayExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
