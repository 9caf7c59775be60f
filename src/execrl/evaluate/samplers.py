"""The sampler a model spec names (:func:`open_sampler`), and how eval.json describes it.

A spec is one of: ``local`` (the bundled SmolLM2-135M), a transformers model folder, an
OpenAI-compatible base URL (``http://host:port/v1``), or a ``.jsonl[.gz]`` file of completions
sampled elsewhere (no sampler: its rows are the samples, :func:`samples_from_jsonl`). This is
an edge, like :func:`execrl.service.open_executor`: the spec is resolved here, once, and the
rest of evaluation sees only a :class:`~execrl.sandbox.protocol.CompletionSampler`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from execrl.errors import ExecrlError
from execrl.evaluate.completions import COMPLETION_FILES
from execrl.evaluate.folder import ModelInfo
from execrl.evaluate.sampling import PolicySampler
from execrl.integrations.openai import OpenAIChatClient
from execrl.sandbox.protocol import ChatPolicy, CompletionSampler

LOCAL = "local"
"""The spec of the bundled SmolLM2-135M."""
LOCAL_LABEL = "smollm2-135m"
"""The label the bundled model's samples are stored under unless one is given."""


@dataclass(frozen=True)
class SamplingSettings:
    """How a model samples: generation settings (recorded in eval.json) and, for local
    models, where it runs."""

    max_new_tokens: int = 512
    temperature: float = 0.8
    top_p: float = 0.95
    seed: int = 0
    batch_size: int = 8
    """Local models: completions generated per call."""
    threads: int | None = None
    """Local models: torch CPU threads (None: torch's default)."""
    device: str = "cpu"
    """Local models: the torch device."""

    def recorded(self) -> dict[str, object]:
        """The settings eval.json keeps for every sampled model."""
        return {
            "max_new_tokens": self.max_new_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "seed": self.seed,
        }


def is_completions_file(spec: str) -> bool:
    """Whether the spec names a JSONL file of completions (no model to sample)."""
    return spec.endswith(COMPLETION_FILES)


def is_endpoint(spec: str) -> bool:
    """Whether the spec is an OpenAI-compatible endpoint's base URL."""
    return spec.startswith(("http://", "https://"))


def default_label(spec: str) -> str | None:
    """The label known before anything is opened: the bundled model's; None otherwise."""
    return LOCAL_LABEL if spec == LOCAL else None


def slug(text: str) -> str:
    """``text`` as a usable model label (a file name): runs of other characters become '-'."""
    cleaned = re.sub(r"[^A-Za-z0-9_.\-]+", "-", text).strip("-.")
    return cleaned or "model"


def open_sampler(
    spec: str,
    settings: SamplingSettings = SamplingSettings(),
    *,
    n: int,
    label: str | None = None,
    model_name: str | None = None,
    api_key: str | None = None,
) -> tuple[CompletionSampler | None, ModelInfo]:
    """The sampler for ``spec`` and its :class:`ModelInfo` (``n`` samples per problem; the
    label defaults to one derived from the spec). An endpoint without ``model_name`` must
    list exactly one model (asking it also checks that it answers); a completions file gives
    no sampler. A spec that is none of the four forms is a one-line ExecrlError."""
    if is_endpoint(spec):
        return _endpoint(spec, settings, n=n, label=label, model_name=model_name, key=api_key)
    path = Path(spec)
    if is_completions_file(spec):
        if not path.is_file():
            raise ExecrlError(f"`model` {spec}: no such file of completions")
        name = label or slug(path.name.removesuffix(".gz").removesuffix(".jsonl"))
        return None, ModelInfo(label=name, kind="file", model=str(path.resolve()), n=0)
    if spec != LOCAL and not path.is_dir():
        raise ExecrlError(
            f"`model` {spec!r} is not 'local', a model folder, an http(s) URL or a .jsonl "
            "file of completions"
        )
    policy, where = local_policy(spec, settings)
    info = ModelInfo(
        label=label or default_label(spec) or slug(path.name),
        kind="local",
        model=str(where),
        n=n,
        settings={**settings.recorded(), "device": settings.device},
    )
    return PolicySampler(policy, batch_size=settings.batch_size), info


def _endpoint(
    url: str,
    settings: SamplingSettings,
    *,
    n: int,
    label: str | None,
    model_name: str | None,
    key: str | None,
) -> tuple[CompletionSampler, ModelInfo]:
    """An OpenAI-compatible endpoint's client, its model chosen (see :func:`open_sampler`)."""
    client = OpenAIChatClient(
        url,
        model_name or "",
        api_key=key,
        temperature=settings.temperature,
        top_p=settings.top_p,
        max_tokens=settings.max_new_tokens,
        seed=settings.seed,
    )
    if not model_name:
        listed = client.models()
        if len(listed) != 1:
            raise ExecrlError(
                f"{url} serves {len(listed)} models ({', '.join(listed[:5])}); "
                "choose one with `model_name`"
            )
        client.model = listed[0]
    info = ModelInfo(
        label=label or slug(client.model),
        kind="endpoint",
        model=f"{url} {client.model}",
        n=n,
        settings=settings.recorded(),
    )
    return client, info


def local_policy(spec: str, settings: SamplingSettings) -> tuple[ChatPolicy, Path]:
    """The chat policy of ``local`` or a transformers model folder, and the folder it loaded
    from. (torch and transformers are imported here, when a model is wanted: they take
    seconds to import and are not needed to evaluate stored records.)"""
    from execrl.rl.generation import HFChatPolicy, smollm2_path

    path = smollm2_path() if spec == LOCAL else Path(spec)
    policy = HFChatPolicy(
        path,
        max_new_tokens=settings.max_new_tokens,
        temperature=settings.temperature,
        top_p=settings.top_p,
        seed=settings.seed,
        device=settings.device,
        threads=settings.threads,
    )
    return policy, path
