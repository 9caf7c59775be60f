"""Rollouts: sample G completions per prompt, run them, score them (``reward.kind`` picks
single-turn or multi-turn once, in :data:`ROLLOUTS`).

Each source returns frozen :class:`ScoredGroup` records: the samples (token ids and text) of
one prompt, the policy version that sampled them, and the :class:`~execrl.rl.scorers.Scores`
execution gave them. A multi-turn group holds one sample per turn of each episode.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from execrl.rl.config import TrainConfig
from execrl.rl.curriculum import informative
from execrl.rl.episodes import run_episodes
from execrl.rl.logprobs import sampled_logps
from execrl.rl.policy import Sample, prompt_messages, sample
from execrl.rl.scorers import DenseScorer, ProgramScorer, Scores
from execrl.sandbox.protocol import Conversation


@dataclass(frozen=True)
class ScoredGroup:
    """One prompt's rollouts, sampled at policy ``version`` and scored."""

    problem_id: str
    version: int
    """Optimizer steps applied to the weights that sampled it."""
    samples: list[Sample]
    scores: Scores
    old_logps: list[list[float]] | None = None
    """Per-token log-probabilities under the sampling weights (async); None: on-policy."""

    def conclusive(self) -> tuple[list[float], list[bool]]:
        """(rewards, passed) of the rollouts with a reward (inconclusive ones left out)."""
        kept = [i for i, r in enumerate(self.scores.rewards) if r is not None]
        return [self.scores.rewards[i] for i in kept], [self.scores.passed[i] for i in kept]


@dataclass(frozen=True)
class RolloutSampler:
    """What a rollout source samples and scores with: the weights, at which version."""

    model: Any
    tokenizer: Any
    config: TrainConfig
    problems: dict[str, Any]
    scorer: ProgramScorer
    version: int
    record_logps: bool = False
    """Record the sampling log-probabilities (async: the update's weights will differ)."""


def single_turn(
    sampler: RolloutSampler, problem_ids: Sequence[str], *, seed: int
) -> list[ScoredGroup]:
    """``group_size`` completions per problem in one batch, then every program at once."""
    cfg, g = sampler.config, sampler.config.group_size
    conversations = [prompt_messages(sampler.problems[p]) for p in problem_ids for _ in range(g)]
    # sample: (P·G) completions, group i's at rows [i·G, (i+1)·G)
    samples = sample(sampler.model, sampler.tokenizer, conversations, cfg.policy, seed=seed)
    logps = None
    if sampler.record_logps:
        logps = sampled_logps(
            sampler.model,
            sampler.tokenizer,
            samples,
            micro_batch=cfg.optim.micro_batch,
            share_prompt=cfg.optim.share_prompt,
        )
    groups = [samples[i * g : (i + 1) * g] for i in range(len(problem_ids))]
    # execute + reward
    scores = sampler.scorer.score(problem_ids, [[s.text for s in group] for group in groups])
    return [
        ScoredGroup(
            pid, sampler.version, group, s, None if logps is None else logps[i * g : (i + 1) * g]
        )
        for i, (pid, group, s) in enumerate(zip(problem_ids, groups, scores, strict=True))
    ]


def multi_turn(
    sampler: RolloutSampler, problem_ids: Sequence[str], *, seed: int
) -> list[ScoredGroup]:
    """``group_size`` episodes per problem with execution feedback; each turn is one sample
    whose reward and advantage are the dense ``r(i, t)`` and ``A(i, t)`` of its episode."""
    cfg = sampler.config
    policy = _RememberingPolicy(sampler, seed)
    out = []
    for pid in problem_ids:
        episodes = run_episodes(  # sample + execute, turn by turn
            sampler.problems[pid],
            policy,
            sampler.scorer.executor,
            group_size=cfg.group_size,
            max_turns=cfg.reward.max_turns,
        )
        rewards, advantages = _dense_scorer(sampler).turns(pid, [e.records for e in episodes])
        turns = [(i, t, turn) for i, e in enumerate(episodes) for t, turn in enumerate(e.steps)]
        scores = Scores(
            rewards=[rewards[t][i] for i, t, _ in turns],
            passed=[turn.passed for _, _, turn in turns],
            failed_execution=[False] * len(turns),
            records=[None] * len(turns),
            advantages=[advantages[t][i] for i, t, _ in turns],
        )
        samples = [policy.sample_for(turn.messages, turn.completion) for _, _, turn in turns]
        out.append(ScoredGroup(pid, sampler.version, samples, scores))
    return out


def _dense_scorer(sampler: RolloutSampler) -> DenseScorer:
    """The multi-turn scorer (``SCORERS["multiturn"]``), which scores turns."""
    if not isinstance(sampler.scorer, DenseScorer):
        raise TypeError(f"multi-turn rollouts need a DenseScorer, got {sampler.scorer!r}")
    return sampler.scorer


class _RememberingPolicy:
    """The sampler's model as a multi-turn ``ChatPolicy``; remembers the token ids it wrote."""

    def __init__(self, sampler: RolloutSampler, seed: int) -> None:
        self.sampler = sampler
        self.seed = seed
        self.calls = 0
        self._made: dict[tuple[str, str], Sample] = {}

    def generate(self, conversations: list[Conversation]) -> list[str]:
        s = self.sampler
        samples = sample(
            s.model, s.tokenizer, conversations, s.config.policy, seed=self.seed + self.calls
        )
        self.calls += 1
        for conversation, made in zip(conversations, samples, strict=True):
            self._made[(json.dumps(conversation), made.text)] = made
        return [m.text for m in samples]

    def sample_for(self, messages: Sequence[dict[str, str]], completion: str) -> Sample:
        return self._made[(json.dumps(list(messages)), completion)]


GroupDraw = Callable[[int, Collection[str]], tuple[list[ScoredGroup], list[ScoredGroup]]]
"""(n, problems already drawn this step) → (n fresh scored groups, stale ones dropped)."""


def fill_batch(
    draw: GroupDraw, wanted: int, *, filtered: bool, rounds: int
) -> tuple[list[ScoredGroup], list[int], list[ScoredGroup], int]:
    """(groups drawn, the positions of those kept, stale groups dropped, rounds used).

    ``filtered`` is DAPO's dynamic sampling: a group whose conclusive rewards are all equal
    teaches nothing and is dropped, and the missing groups are drawn again, in at most
    ``rounds`` rounds in all; a batch still short then trains on what it kept."""
    drawn: list[ScoredGroup] = []
    kept: list[int] = []
    stale: list[ScoredGroup] = []
    used = 0
    while len(kept) < wanted and used < rounds:
        used += 1
        new, old = draw(wanted - len(kept), {g.problem_id for g in drawn})
        stale += old
        for group in new:
            if not filtered or informative(group.conclusive()[0]):
                kept.append(len(drawn))
            drawn.append(group)
    return drawn, kept, stale, used


RolloutSource = Callable[..., list[ScoredGroup]]

ROLLOUTS: dict[str, RolloutSource] = {
    "score": single_turn,
    "dense": single_turn,
    "solver": single_turn,
    "multiturn": multi_turn,
}
"""The rollout source of each ``reward.kind``, chosen once when the trainer starts."""
