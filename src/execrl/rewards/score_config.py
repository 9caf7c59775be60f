"""The environment and reward a scoring run uses: given directly, or read from a YAML file
with ``env:`` and/or ``reward:`` keys (``execrl score --config FILE``), else the defaults.

A spec given directly wins over the file's; an error in a spec that came from the file names
the file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from execrl.envs.environment import Environment
from execrl.envs.presets import environment, load_yaml
from execrl.errors import ConfigError, ExecrlError
from execrl.rewards.compositions import RewardFn, reward

DEFAULT_ENV = "mc"
DEFAULT_REWARD = "collapsed"


def env_and_reward(
    env_spec: str | None = None, reward_spec: str | None = None, config: Path | None = None
) -> tuple[Environment, RewardFn]:
    """The Environment and RewardFn of ``env_spec`` / ``reward_spec``, falling back on the
    ``config`` file's ``env:`` / ``reward:`` keys, then on ``mc`` and ``collapsed``. A file
    with neither key, or a reward that is neither a name nor a mapping, is a ConfigError."""
    data = load_yaml(config) if config is not None else {}
    where = f"{config}: " if config is not None else ""
    if config is not None and not {"env", "reward"} & data.keys():
        raise ConfigError(f"{where}no 'env:' or 'reward:' key (found: {', '.join(data)})")
    env_value = env_spec if env_spec is not None else data.get("env", DEFAULT_ENV)
    reward_value = reward_spec if reward_spec is not None else data.get("reward", DEFAULT_REWARD)
    if not isinstance(reward_value, str | dict):
        raise ConfigError(f"{where}reward: expected a name or a mapping, got {reward_value!r}")
    env = build_named("environment", environment, env_value, "" if env_spec else where)
    return env, build_named("reward", reward, reward_value, "" if reward_spec else where)


def build_named(what: str, build: Callable[[Any], Any], spec: Any, where: str = "") -> Any:
    """``build(spec)``, its errors prefixed with ``where`` (the config file the spec came
    from). The preset language raises ConfigError for what it checks; a malformed value can
    still escape it as another error, which becomes a ConfigError too."""
    try:
        return build(spec)
    except ExecrlError as exc:
        if not where:
            raise
        raise ConfigError(f"{where}{exc}") from None
    except (ValueError, TypeError, yaml.YAMLError) as exc:
        detail = " ".join(str(exc).split())
        raise ConfigError(f"{where}cannot build {what} {spec!r}: {detail}") from None


def with_timing(env: Environment, timing: str | None, count_rate: float | None) -> Environment:
    """``env`` with ``timing`` and ``count_rate``, where given, over its own settings."""
    update = {k: v for k, v in (("timing", timing), ("count_rate", count_rate)) if v is not None}
    return Environment(env.config.model_copy(update=update)) if update else env
