"""The policy: loading the model (optionally LoRA-wrapped) and sampling completions from it.

torch and transformers are reached through :func:`execrl.rl.generation.train_stack` only:
they are an optional extra (``execrl[train]``) and slow to import, so ``execrl train
--show-config`` and the config checks run without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execrl.envs.multiturn import default_prompt
from execrl.errors import ExecrlError
from execrl.problems.optim import OptimProblem
from execrl.rewards.solver import solver_messages
from execrl.rl.config import PolicyConfig
from execrl.rl.generation import smollm2_path, train_stack
from execrl.sandbox.protocol import Conversation


@dataclass(frozen=True)
class Sample:
    """One sampled completion: its prompt's token ids, its own, and its text."""

    prompt_ids: list[int]
    completion_ids: list[int]
    text: str


def load_policy(config: PolicyConfig) -> tuple[Any, Any]:
    """(model, tokenizer) in train mode, LoRA-wrapped when configured."""
    torch, transformers = train_stack()
    path = smollm2_path() if config.model == "smollm2" else Path(config.model)
    if not (path / "config.json").is_file():
        raise ExecrlError(f"policy.model {path} is not a transformers folder (no config.json)")
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, dtype=torch.float32
    )
    if config.lora is not None:
        model = _with_lora(model, config)
    model.train()
    return model, tokenizer


def _with_lora(model: Any, config: PolicyConfig) -> Any:
    try:
        import peft  # (optional: only LoRA runs need it)
    except ImportError:
        raise ExecrlError("policy.lora needs peft: pip install 'execrl[train]'") from None
    lora = peft.LoraConfig(
        r=config.lora.r,
        lora_alpha=config.lora.alpha,
        lora_dropout=config.lora.dropout,
        target_modules=config.lora.target_modules,
        task_type="CAUSAL_LM",
    )
    return peft.get_peft_model(model, lora)


def prompt_messages(problem: Any) -> Conversation:
    """The turn-1 conversation: execrl's default prompt (statement, calling convention, starter
    code), or the solver prompt (response format and program convention) for an optimisation
    word problem."""
    if isinstance(problem, OptimProblem):
        return solver_messages(problem)
    return default_prompt(problem)


class _CodeBlockClosed:
    """Stopping criterion: a row is done once its completion holds a closed fenced block."""

    def __init__(self, tokenizer: Any, prompt_width: int) -> None:
        self.tokenizer = tokenizer
        self.prompt_width = prompt_width

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        torch, _ = train_stack()
        texts = self.tokenizer.batch_decode(input_ids[:, self.prompt_width :])
        return torch.tensor([t.count("```") >= 2 for t in texts], device=input_ids.device)


def sample(
    model: Any,
    tokenizer: Any,
    conversations: Sequence[Conversation],
    config: PolicyConfig,
    *,
    temperature: float | None = None,
    seed: int,
) -> list[Sample]:
    """One completion per conversation, generated in one batch (left-padded prompts)."""
    torch, transformers = train_stack()
    texts = [
        tokenizer.apply_chat_template(c, tokenize=False, add_generation_prompt=True)
        for c in conversations
    ]
    tokenizer.padding_side = "left"
    batch = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    width = batch["input_ids"].shape[1]
    stopping = transformers.StoppingCriteriaList(
        [_CodeBlockClosed(tokenizer, width)] if config.stop_at_code_end else []
    )
    torch.manual_seed(seed)
    was_training = model.training
    model.eval()
    with torch.inference_mode():
        out = model.generate(  # (B, width + new tokens)
            **batch,
            do_sample=True,
            temperature=temperature or config.temperature,
            top_p=config.top_p,
            max_new_tokens=config.max_new_tokens,
            stopping_criteria=stopping,
            pad_token_id=tokenizer.pad_token_id,
        )
    model.train(was_training)
    samples = []
    for row, mask in enumerate(batch["attention_mask"]):
        prompt_ids = batch["input_ids"][row][mask.bool()].tolist()
        completion = out[row, width:].tolist()
        completion = completion[: completion_length(completion, tokenizer, config.stop_at_code_end)]
        text = tokenizer.decode(completion, skip_special_tokens=True)
        samples.append(Sample(prompt_ids, completion, text))
    return samples


def sample_in_chunks(
    model: Any,
    tokenizer: Any,
    conversations: Sequence[Conversation],
    config: PolicyConfig,
    *,
    batch: int,
    temperature: float | None = None,
    seed: int,
) -> list[Sample]:
    """``sample`` on ``batch`` conversations at a time, chunk k with ``seed + k``, returned in
    the conversations' order. Memory stays that of one chunk (one call for 328 long prompts
    held 15 GB). More than ``batch`` conversations are chunked shortest prompt first, so that
    a chunk pads its prompts to a similar length (HumanEval's run from 146 to 854 tokens); a
    set of at most ``batch`` conversations samples exactly as one ``sample`` call."""
    order = list(range(len(conversations)))
    if len(conversations) > batch:
        order.sort(key=lambda i: prompt_length(tokenizer, conversations[i]))
    by_position: dict[int, Sample] = {}
    for k, start in enumerate(range(0, len(order), batch)):
        chunk = order[start : start + batch]
        drawn = sample(
            model,
            tokenizer,
            [conversations[i] for i in chunk],
            config,
            temperature=temperature,
            seed=seed + k,
        )
        by_position.update(zip(chunk, drawn, strict=True))
    return [by_position[i] for i in range(len(conversations))]


def prompt_length(tokenizer: Any, conversation: Conversation) -> int:
    """Tokens of the conversation's prompt as ``sample`` feeds it (chat template applied)."""
    text = tokenizer.apply_chat_template(conversation, tokenize=False, add_generation_prompt=True)
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def completion_length(ids: list[int], tokenizer: Any, stopped_at_code_end: bool) -> int:
    """Tokens up to and including the first end-of-sequence, or (when generation stops there)
    up to the end of the closed code block; the padding after either is not part of the
    completion."""
    eos = tokenizer.eos_token_id
    pad = tokenizer.pad_token_id
    text_len = len(ids)
    if eos in ids:
        text_len = ids.index(eos) + 1
    if stopped_at_code_end:  # such a row is padded after its last real token
        decoded = ""
        for i, token in enumerate(ids[:text_len]):
            decoded += tokenizer.decode([token])
            if decoded.count("```") >= 2:
                return i + 1
    if pad != eos and pad in ids[:text_len]:
        return ids.index(pad)
    return text_len


class threads:
    """Temporarily set torch's CPU thread count (None: leave it)."""

    def __init__(self, n: int | None) -> None:
        self.n = n

    def __enter__(self) -> None:
        if self.n is not None:
            torch, _ = train_stack()
            self.previous = torch.get_num_threads()
            torch.set_num_threads(self.n)

    def __exit__(self, *exc: object) -> None:
        if self.n is not None:
            torch, _ = train_stack()
            torch.set_num_threads(self.previous)


def state_copy(model: Any) -> dict[str, Any]:
    """A detached copy of every weight (what the async worker loads)."""
    return {k: v.detach().clone() for k, v in model.state_dict().items()}
