"""Checkpoints: a :class:`~execrl.rl.state.TrainState` written down, and read back.

``RUN/checkpoints/step-NNNNN/`` holds the weights (the model, or only its LoRA adapter) and
the tokenizer, as ``save_pretrained`` writes them, and ``trainer_state.pt``: the rest of the
state (``TrainState.to_dict``: step, optimizer, prompt draws, monitor, metrics, evaluations,
RNG states). A folder is written under a temporary name and renamed, so a crash never leaves
a half checkpoint; ``checkpoints/latest`` names the newest.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from execrl.errors import ExecrlError, UsageError
from execrl.rl.generation import train_stack
from execrl.rl.state import TrainState

STATE_FILE = "trainer_state.pt"
LATEST = "latest"


def save_checkpoint(run: Path, state: TrainState, tokenizer: Any) -> Path:
    """Write ``run/checkpoints/step-<step>`` with ``state`` and its weights; returns it."""
    torch, _ = train_stack()
    folder = run / "checkpoints" / f"step-{state.step:05d}"
    staging = folder.with_name(folder.name + ".tmp")
    staging.mkdir(parents=True, exist_ok=True)
    state.model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    torch.save(state.to_dict(), staging / STATE_FILE)
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    (run / "checkpoints" / LATEST).write_text(folder.name)
    return folder


def load_checkpoint(folder: Path, state: TrainState, *, lora: bool) -> TrainState:
    """``state`` as ``folder`` saved it: the weights (the adapter for a LoRA policy) loaded
    into its model, then the rest (:meth:`TrainState.restored`)."""
    torch, _ = train_stack()
    load_weights(folder, state.model, lora=lora)
    return state.restored(torch.load(folder / STATE_FILE, weights_only=False))


def load_weights(folder: Path, model: Any, *, lora: bool) -> None:
    """Load a checkpoint's weights (the adapter for a LoRA policy) into ``model``."""
    from safetensors.torch import load_file  # (comes with the training stack)

    if lora:
        import peft  # (optional: only LoRA runs need it)

        peft.set_peft_model_state_dict(model, load_file(folder / "adapter_model.safetensors"))
        return
    weights = load_file(folder / "model.safetensors")
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if unexpected or any("lm_head" not in k for k in missing):
        raise ExecrlError(f"{folder}: the checkpoint does not match the policy model")
    model.tie_weights()


def latest_checkpoint(run: Path) -> Path:
    """The run's newest checkpoint folder; a UsageError (before any model loads) when it has
    none."""
    latest = run / "checkpoints" / LATEST
    if not latest.is_file():
        raise UsageError(
            f"{run}: no checkpoint to resume from (no checkpoints/{LATEST}); "
            "start a new run instead"
        )
    return run / "checkpoints" / latest.read_text().strip()
