"""The settings of one synthesis run (docs/solver.md, "Synthesising training data").

One validated model, read at the edge (the CLI or the caller) and passed down; every field has
its unit in its name where it has one. A resumed run must have the same settings as the run it
continues (:func:`settings_fingerprint`), except the budget and the concurrency, which may change.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from execrl.rewards.solver.rewards import RELATIVE, Tolerance

DEFAULT_WEIGHTS = (1.0, 1.0, 1.0, 1.0)
"""w1..w4 of the instance-enhanced self-consistency score (objective, direction, #binary,
#integer), as the spec."""


class Budget(BaseModel):
    """The most a run may spend; None is no limit. A spent budget stops the run cleanly (every
    finished row is kept, ``--resume`` with a larger budget goes on). Cached calls are free."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_calls: int | None = Field(default=None, ge=0)
    """LLM calls sent to an endpoint (cache hits not counted)."""
    max_tokens: int | None = Field(default=None, ge=0)
    """Prompt plus completion tokens (the endpoint's ``usage``; else characters / 4)."""
    max_executions: int | None = Field(default=None, ge=0)
    """Programs run in the sandbox."""


class EndpointSettings(BaseModel):
    """An OpenAI-compatible chat endpoint and how it is sampled."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str
    """The base URL, e.g. ``http://127.0.0.1:8000/v1``."""
    model: str
    temperature: float = Field(default=0.7, ge=0)
    top_p: float = Field(default=0.95, gt=0, le=1)
    max_tokens: int = Field(default=2048, ge=1)
    """Completion tokens per call."""
    api_key_variable: str = "OPENAI_API_KEY"
    """The environment variable holding the key (never a command-line value)."""


class SynthesisConfig(BaseModel):
    """Everything that decides what a synthesis run produces."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    endpoint: EndpointSettings
    """The generator (generate, augment), and the judge and solver roles unless named apart."""
    judge: EndpointSettings | None = None
    """The judge's endpoint (None: ``endpoint``)."""
    solver: EndpointSettings | None = None
    """The solver roles' endpoint (None: ``endpoint``)."""
    n_generate: int = Field(default=10, ge=0)
    """Generated problems (each from a sampled seed and scenario)."""
    seed: int = 0
    """Seeds the choice of seed problems and scenarios (and is sent to the endpoint)."""
    include_seeds: bool = False
    """Also run the seed problems through judge..filter: their known answers measure the
    labels' agreement (the funnel report's agreement share)."""
    augment: tuple[str, ...] = ("semantic", "modelling", "solution")
    """Augmentation template ids applied to each generated problem (one variant each)."""
    keep_original: bool = True
    """Keep each generated problem beside its augmented variants."""
    judge_threshold: float = Field(default=3.0, ge=1, le=5)
    """A row is kept when both judge scores (1-5) are at least this."""
    n_roles: int = Field(default=10, ge=1)
    """Solver roles per problem (the first n of the roles file)."""
    repair_rounds: int = Field(default=2, ge=0)
    """Rounds of repair (an error back with a reflection prompt) or regeneration (an
    infeasible or unbounded model) per role."""
    weights: tuple[float, float, float, float] = DEFAULT_WEIGHTS
    tolerance: Tolerance = RELATIVE
    """When two objectives (or a label and a known answer) are equal."""
    min_consensus: float = Field(default=0.75, ge=0, le=1)
    """A row is labelled when its best score S(r) / (Σw·√n_roles) is at least this, and its
    objective is also given by a strict majority of the roles that answered (at least two):
    agreement on the model's structure alone never labels a row."""
    dedup_threshold: float = Field(default=0.7, gt=0, le=1)
    """TF-IDF cosine at or above which a question is a near-duplicate (ReSocratic: 0.7)."""
    decontaminate: tuple[str, ...] = ()
    """Benchmark files (optim, NL4OPT, MAMO, IndustryOR ... as ``load_optim_problems`` reads)."""
    baseline: EndpointSettings | None = None
    """The difficulty filter's model (None: no difficulty filter)."""
    baseline_attempts: int = Field(default=10, ge=1)
    baseline_max_right: int = Field(default=8, ge=1)
    """A row is too easy when the baseline answers right in at least this many attempts."""
    program_timeout_s: float = Field(default=30.0, gt=0)
    """CPU-time limit per solver program."""
    scenarios_file: str | None = None
    augment_file: str | None = None
    roles_file: str | None = None
    prompts_file: str | None = None
    """Replacements for the bundled data files (None: the bundled ones)."""


class RunSettings(BaseModel):
    """How a run spends (may change between a run and its resumption)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    budget: Budget = Field(default_factory=Budget)
    concurrency: int = Field(default=4, ge=1, le=256)
    """LLM calls (and rows) in flight at once."""
    retries: int = Field(default=4, ge=0)
    backoff_s: float = Field(default=1.0, ge=0)
    """First retry's wait (doubling); a ``Retry-After`` header overrides it."""
    max_backoff_s: float = Field(default=60.0, ge=0)
    request_timeout_s: float = Field(default=300.0, gt=0)
    workers: int | None = None
    """Sandbox workers (None: one per core)."""
    cache: Path | None = None
    """The prompt cache file (None: ``cache.jsonl`` in the output folder)."""


def settings_fingerprint(config: SynthesisConfig, seeds_digest: str) -> str:
    """A digest of what decides a run's output: the settings (not the endpoints' addresses)
    and the seed problems."""
    where = {"url", "api_key_variable"}  # the same model may come back at another address
    fields = config.model_dump(
        mode="json", exclude={name: where for name in ("endpoint", "judge", "solver", "baseline")}
    )
    text = json.dumps([fields, seeds_digest], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
