"""Sampling for evaluation: n completions per problem from a model, and the programs in them.

Any :class:`~execrl.sandbox.protocol.CompletionSampler` works — ``sample(conversation, n) ->
n completions`` (its old name here, ``Sampler``, is kept for one release). Two come with
execrl: :class:`PolicySampler` around any chat policy with ``generate(conversations)`` (such
as :class:`execrl.rl.generation.HFChatPolicy`, a local transformers model), and
:class:`execrl.integrations.openai.OpenAIChatClient` (any OpenAI-compatible endpoint).
Completions already sampled elsewhere are read from JSONL with :func:`samples_from_jsonl`.
Programs are taken out of completions by :func:`execrl.extract.extract_code`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from execrl.envs.multiturn import default_prompt
from execrl.errors import ExecrlError, LoaderError, deprecated_names
from execrl.evaluate.completions import read_completions
from execrl.evaluate.folder import Sample
from execrl.extract import extract_code
from execrl.problems.models import Problem
from execrl.sandbox.batch import progress_bar
from execrl.sandbox.protocol import ChatPolicy, CompletionSampler, Conversation


class PolicySampler:
    """n completions of a conversation from a chat policy, ``batch_size`` copies per call
    (each copy is sampled independently; a policy with temperature 0 repeats itself)."""

    def __init__(self, policy: ChatPolicy, *, batch_size: int = 8) -> None:
        if batch_size < 1:
            raise ExecrlError(f"batch_size must be >= 1, got {batch_size}")
        self.policy = policy
        self.batch_size = batch_size

    def sample(self, conversation: Conversation, n: int) -> list[str]:
        out: list[str] = []
        while len(out) < n:
            size = min(self.batch_size, n - len(out))
            out.extend(self.policy.generate([conversation] * size))
        return out


def sample_problems(
    problems: Sequence[Problem],
    sampler: CompletionSampler,
    *,
    model: str,
    n: int,
    prompt: Callable[[Problem], Conversation] = default_prompt,
    progress: bool = True,
) -> list[Sample]:
    """``n`` samples per problem, with the program extracted from each completion."""
    if n < 1:
        raise ExecrlError(f"n (samples per problem) must be >= 1, got {n}")
    out = []
    with progress_bar(progress) as bar:
        task = bar.add_task(f"sampling {model}", total=n * len(problems))
        for problem in problems:
            completions = sampler.sample(prompt(problem), n)
            if len(completions) != n:
                raise ExecrlError(
                    f"{model}: asked for {n} completions of {problem.id}, got {len(completions)}"
                )
            for i, completion in enumerate(completions):
                program = extract_code(completion, problem.entry_point)
                out.append(
                    Sample(
                        model=model,
                        problem_id=problem.id,
                        index=i,
                        completion=completion,
                        program=program,
                    )
                )
            bar.advance(task, n)
    return out


def samples_from_programs(model: str, programs: Mapping[str, Sequence[str]]) -> list[Sample]:
    """Samples from ready programs, ``{problem id: [program, ...]}`` (no extraction)."""
    return [
        Sample(model=model, problem_id=pid, index=i, completion=code, program=code)
        for pid, codes in programs.items()
        for i, code in enumerate(codes)
    ]


def samples_from_jsonl(path: str | Path, model: str) -> list[Sample]:
    """Samples from a JSONL file of completions (:func:`read_completions`: ``problem_id`` and
    ``completion``, extracted, or ``program`` / ``code``, taken as they are); indices count per
    problem in file order. A file without rows is a LoaderError."""
    counts: dict[str, int] = defaultdict(int)
    out = []
    for row in read_completions(path):
        pid = row.problem_id
        out.append(
            Sample(
                model=model,
                problem_id=pid,
                index=counts[pid],
                completion=row.text,
                program=row.program,
            )
        )
        counts[pid] += 1
    if not out:
        raise LoaderError(f"{path}: no samples in the file")
    return out


__getattr__ = deprecated_names(
    __name__, {"Sampler": ("execrl.sandbox.protocol", "CompletionSampler")}
)
