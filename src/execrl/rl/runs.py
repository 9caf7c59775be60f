"""Run folders from the outside: where a new run goes, its ``config.yaml``, and the settings
of a run to resume (its own, checked to have a checkpoint before any model loads).

``execrl train`` calls these and :func:`execrl.rl.train.run_training`; so can a library user.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import yaml

from execrl.errors import UsageError
from execrl.rl.checkpoint import latest_checkpoint
from execrl.rl.config import TrainConfig, load_config

CONFIG_FILE = "config.yaml"
"""The resolved settings of a run, in its folder (what a resume reads)."""


def config_yaml(config: TrainConfig) -> str:
    """Every resolved setting as YAML (what ``config.yaml`` holds)."""
    return yaml.safe_dump(config.model_dump(mode="json", by_alias=True), sort_keys=False)


def write_run_config(run: Path, config: TrainConfig) -> Path:
    """Write the run's ``config.yaml``; returns its path."""
    path = run / CONFIG_FILE
    path.write_text(config_yaml(config))
    return path


def new_run_folder(root: Path = Path("runs")) -> Path:
    """Where a run with no folder given goes: ``root/train-<UTC time>``."""
    return root / f"train-{datetime.now(UTC):%Y%m%d-%H%M%S}"


def resume_config(run: Path, overrides: Sequence[str] = ()) -> TrainConfig:
    """The settings of ``run`` to resume it: its own ``config.yaml`` (plus ``overrides``,
    e.g. where its programs run). A UsageError, before any model loads, when ``run`` is not a
    training run or has no checkpoint."""
    saved = run / CONFIG_FILE
    if not saved.is_file():
        raise UsageError(f"{run}: not a training run (no {CONFIG_FILE})")
    latest_checkpoint(run)  # (raises when there is none)
    return load_config(None, saved, overrides)
