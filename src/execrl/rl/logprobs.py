"""Per-token log-probabilities of completions under a model, and the tensors they need.

A batch of rollouts becomes right-padded ``input_ids`` (B, L) and, aligned with the next-token
predictions (B, L−1), ``targets`` and a completion ``mask``; :func:`token_logps` gives the
(B, L−1) log-probability of each completion token (0 elsewhere). Rows are anything with
``prompt_ids`` and ``completion_ids`` (token id lists).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, Protocol

from execrl.rl.generation import train_stack


class TokenRow(Protocol):
    """A prompt and its completion, as token ids."""

    prompt_ids: list[int]
    completion_ids: list[int]


def batch_tensors(
    rollouts: Sequence[TokenRow], pad_id: int, share_prompt: bool = False
) -> dict[str, Any]:
    """Right-padded ``input_ids`` (B, L) and, aligned with the next-token predictions (B, L−1):
    ``targets`` and ``mask`` (completion tokens). With ``share_prompt``, also
    ``prompt_groups``: each distinct prompt with the rows that continue it."""
    torch, _ = train_stack()
    width = max(len(r.prompt_ids) + len(r.completion_ids) for r in rollouts)
    ids = torch.full((len(rollouts), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rollouts), width), dtype=torch.long)
    mask = torch.zeros((len(rollouts), width - 1), dtype=torch.bool)
    for row, r in enumerate(rollouts):
        seq = r.prompt_ids + r.completion_ids
        ids[row, : len(seq)] = torch.tensor(seq)
        attention[row, : len(seq)] = 1
        start = len(r.prompt_ids) - 1  # the logit at position p predicts token p + 1
        mask[row, start : start + len(r.completion_ids)] = True
    tensors = {"input_ids": ids, "attention_mask": attention, "targets": ids[:, 1:], "mask": mask}
    if share_prompt:
        groups: dict[tuple[int, ...], list[int]] = {}
        for row, r in enumerate(rollouts):
            groups.setdefault(tuple(r.prompt_ids), []).append(row)
        tensors["prompt_groups"] = [(list(key), rows) for key, rows in groups.items()]
        tensors["completions"] = [r.completion_ids for r in rollouts]
    return tensors


def token_logps(model: Any, tensors: dict[str, Any]) -> Any:
    """(B, L−1) log-probability of each completion token under ``model`` (0 elsewhere).

    The output layer runs only on the completion positions: prompts are most of the tokens,
    and their (B, L, vocabulary) logits would be most of the memory traffic of a step."""
    torch, _ = train_stack()
    if "prompt_groups" in tensors:
        return _shared_prompt_logps(model, tensors)
    out = model(
        input_ids=tensors["input_ids"],
        attention_mask=tensors["attention_mask"],
        output_hidden_states=True,
        logits_to_keep=1,  # the logits we need are computed below, from the hidden states
    )
    mask = tensors["mask"]
    hidden = out.hidden_states[-1][:, :-1][mask]  # (completion tokens, H), after the final norm
    logits = model.get_output_embeddings()(hidden).float()
    picked = -torch.nn.functional.cross_entropy(logits, tensors["targets"][mask], reduction="none")
    logp = torch.zeros(mask.shape, dtype=picked.dtype)
    return logp.masked_scatter(mask, picked)


def _shared_prompt_logps(model: Any, tensors: dict[str, Any]) -> Any:
    """``token_logps`` with each distinct prompt computed once: the prompt's forward pass
    fills a key/value cache, the cache is repeated for the group's rollouts (a differentiable
    copy: their gradients add up in the prompt's pass), and the completions run on top of it.
    The first completion token is predicted by the prompt's last position."""
    torch, _ = train_stack()
    completions = tensors["completions"]
    head = model.get_output_embeddings()
    per_row: list[Any] = [None] * len(completions)
    argument = _cache_argument(model)
    for prompt, rows in tensors["prompt_groups"]:
        width = max(len(completions[row]) for row in rows)
        if width == 0:
            continue
        first = model(
            input_ids=torch.tensor([prompt]),
            use_cache=True,
            output_hidden_states=True,
            logits_to_keep=1,
        )
        cache = first[argument]  # the output field has the argument's name in each version
        if len(rows) > 1:
            cache.batch_repeat_interleave(len(rows))
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        valid = torch.zeros((len(rows), width), dtype=torch.bool)
        for i, row in enumerate(rows):
            ids[i, : len(completions[row])] = torch.tensor(completions[row], dtype=torch.long)
            valid[i, : len(completions[row])] = True
        attention = torch.cat(
            [torch.ones((len(rows), len(prompt)), dtype=torch.long), valid.long()], dim=1
        )
        positions = torch.arange(len(prompt), len(prompt) + width).expand(len(rows), width)
        out = model(
            **{argument: cache},
            input_ids=ids,
            attention_mask=attention,
            position_ids=positions,
            output_hidden_states=True,
            logits_to_keep=1,
        )
        last = first.hidden_states[-1][:, -1:]  # (1, 1, H): predicts each completion's first
        hidden = torch.cat([last.expand(len(rows), 1, -1), out.hidden_states[-1][:, :-1]], 1)
        logits = head(hidden[valid]).float()
        picked = -torch.nn.functional.cross_entropy(logits, ids[valid], reduction="none")
        counts = valid.sum(dim=1).tolist()
        for row, values in zip(rows, picked.split(counts), strict=True):
            per_row[row] = values
    mask = tensors["mask"]
    pieces = [values for values in per_row if values is not None]
    logp = torch.zeros(mask.shape, dtype=torch.float32)
    if not pieces:
        return logp
    return logp.masked_scatter(mask, torch.cat(pieces))


def _cache_argument(model: Any) -> str:
    """The forward argument that takes a key/value cache: ``cache`` from transformers 5.x
    (which deprecates ``past_key_values``), ``past_key_values`` before."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    parameters = inspect.signature(base.forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


def scatter(rows: Sequence[list[float]], mask: Any) -> Any:
    """Per-completion-token values into the (B, L−1) layout of ``mask``."""
    torch, _ = train_stack()
    out = torch.zeros(mask.shape, dtype=torch.float32)
    for row, values in enumerate(rows):
        out[row, mask[row]] = torch.tensor(values, dtype=torch.float32)
    return out


def sampled_logps(
    model: Any, tokenizer: Any, rows: Sequence[TokenRow], *, micro_batch: int, share_prompt: bool
) -> list[list[float]]:
    """Each row's per-token log-probabilities under ``model`` (no gradient): what the async
    rollout worker records of its own samples, so the ratio π_θ / π_old corrects the lag."""
    torch, _ = train_stack()
    out: list[list[float]] = []
    with torch.no_grad():
        for i in range(0, len(rows), micro_batch):
            chunk = rows[i : i + micro_batch]
            tensors = batch_tensors(chunk, tokenizer.pad_token_id, share_prompt)
            logp = token_logps(model, tensors)  # (B, L−1)
            out += [logp[row][tensors["mask"][row]].tolist() for row in range(len(chunk))]
    return out
