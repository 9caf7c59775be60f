"""The ``execrl-code`` verifiers environment: ``vf-eval execrl-code -m MODEL ...``.

verifiers 0.4 imports a taskset id (``execrl-code``) as this module and takes the Taskset,
Harness and Env subclasses it exports through ``__all__``; they live in
``execrl.integrations.verifiers``. ``load_environment(**kwargs)`` builds the same environment
from Python (``problems``, ``multi_turn``, ``max_turns``, ``env``, ``reward``, ``executor``...).
"""

from typing import Any

from execrl.integrations.verifiers import (
    ExecrlEnv,
    ExecrlHarness,
    ExecrlTaskset,
)
from execrl.integrations.verifiers import load_environment as _load_environment


def load_environment(**kwargs: Any) -> ExecrlEnv:
    """``execrl.integrations.verifiers.load_environment`` (same keywords)."""
    return _load_environment(**kwargs)


__all__ = ["ExecrlEnv", "ExecrlHarness", "ExecrlTaskset", "load_environment"]
