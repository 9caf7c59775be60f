"""Checkpoints: the model (or only its LoRA adapter), the tokenizer and the trainer's state.

``RUN/checkpoints/step-NNNNN/`` holds ``save_pretrained`` output and ``trainer_state.pt``
(optimizer state, policy version, prompt-selector state, RNG state, the metrics so far, the
evaluations). A folder is written under a temporary name and renamed, so a crash never leaves
a half checkpoint; ``checkpoints/latest`` names the newest.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from execrl.errors import ExecrlError
from execrl.rl.generation import train_stack

STATE_FILE = "trainer_state.pt"
LATEST = "latest"


def save_checkpoint(run: Path, version: int, model: Any, tokenizer: Any, state: dict) -> Path:
    """Write ``run/checkpoints/step-<version>`` with the weights and ``state``; returns it."""
    torch, _ = train_stack()
    folder = run / "checkpoints" / f"step-{version:05d}"
    staging = folder.with_name(folder.name + ".tmp")
    staging.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    torch.save({**state, "torch_rng": torch.get_rng_state()}, staging / STATE_FILE)
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    (run / "checkpoints" / LATEST).write_text(folder.name)
    return folder


def trainer_state(
    learner: Any, selector: Any, draws: int, history: list, evaluations: dict
) -> dict:
    """What a checkpoint keeps besides the weights: optimizer, version, prompt selection (the
    selector's state and the draw count that seeds sampling) and the logs so far."""
    return {
        "optimizer": learner.optimizer.state_dict(),
        "version": learner.version,
        "selector": selector.state_dict(),
        "draws": draws,
        "history": history,
        "evaluations": evaluations,
    }


def restore(folder: Path, learner: Any, selector: Any, *, lora: bool) -> dict[str, Any]:
    """Load a checkpoint into ``learner`` (weights, optimizer, version) and ``selector``;
    returns the saved state (its ``draws``, ``history`` and ``evaluations``)."""
    state = load_checkpoint(folder, learner.model, lora=lora)
    learner.optimizer.load_state_dict(state["optimizer"])
    learner.version = state["version"]
    selector.load_state_dict(state["selector"])
    return state


def latest_checkpoint(run: Path) -> Path:
    """The run's newest checkpoint folder; an ExecrlError when it has none."""
    latest = run / "checkpoints" / LATEST
    if not latest.is_file():
        raise ExecrlError(f"{run}: no checkpoint to resume from")
    return run / "checkpoints" / latest.read_text().strip()


def load_checkpoint(folder: Path, model: Any, *, lora: bool) -> dict[str, Any]:
    """Load the weights (the adapter for a LoRA policy) into ``model``, restore torch's RNG,
    and return the saved state."""
    torch, _ = train_stack()
    from safetensors.torch import load_file  # (comes with the training stack)

    state = torch.load(folder / STATE_FILE, weights_only=False)
    if lora:
        import peft  # (optional: only LoRA runs need it)

        peft.set_peft_model_state_dict(model, load_file(folder / "adapter_model.safetensors"))
    else:
        weights = load_file(folder / "model.safetensors")
        missing, unexpected = model.load_state_dict(weights, strict=False)
        if unexpected or any("lm_head" not in k for k in missing):
            raise ExecrlError(f"{folder}: the checkpoint does not match the policy model")
        model.tie_weights()
    torch.set_rng_state(state["torch_rng"])
    return state
