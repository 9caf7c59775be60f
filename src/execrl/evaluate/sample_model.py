"""Sample one model into an evaluation folder (``execrl eval sample``): choose the problems,
open the sampler, check that the folder will take the samples, sample, store.

Everything the folder would refuse is refused before the slow part (a model loading, an
endpoint answering, the sampling itself).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from execrl.errors import ExecrlError, UsageError
from execrl.evaluate.folder import EvalFolder, ModelInfo, Sample, load_problem_set
from execrl.evaluate.samplers import (
    SamplingSettings,
    default_label,
    is_completions_file,
    open_sampler,
)
from execrl.evaluate.sampling import sample_problems, samples_from_jsonl
from execrl.problems.io import BUNDLED, load_problems, select_problems
from execrl.problems.models import Problem


@dataclass(frozen=True)
class ProblemChoice:
    """Which problems to sample: ``ids`` from ``source`` (in ``format``); with no ids, the
    folder's own set when it has one, else every problem of ``source`` (default: bundled)."""

    source: str | None = None
    format: str | None = None
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class SampledModel:
    """What :func:`sample_model` stored: the samples file, the model and its samples."""

    path: Path
    info: ModelInfo
    samples: list[Sample]
    problems: list[Problem]

    @property
    def fenced(self) -> int:
        """How many completions hold a fenced code block (a quick look at the format)."""
        return sum("```" in s.completion for s in self.samples)


def sample_model(
    folder: EvalFolder,
    spec: str,
    *,
    n: int,
    choice: ProblemChoice = ProblemChoice(),
    settings: SamplingSettings | None = None,
    label: str | None = None,
    replace: bool = False,
    model_name: str | None = None,
    api_key: str | None = None,
) -> SampledModel:
    """Sample ``n`` completions per problem from the model ``spec`` names (see
    :func:`open_sampler`; a completions file is read instead) and add them to ``folder``."""
    check_label_free(folder, label or default_label(spec), replace)
    if is_completions_file(spec):
        return _from_file(folder, spec, choice, label=label, replace=replace)
    # The problems first: they load in a moment, a model takes much longer.
    source, fmt, problems = choose_problems(folder, choice)
    known = label or default_label(spec)
    if known is not None:
        folder.check_can_add(known, problems, source=source, format=fmt, replace=replace)
    sampler, info = open_sampler(
        spec,
        settings or SamplingSettings(),
        n=n,
        label=label,
        model_name=model_name,
        api_key=api_key,
    )
    folder.check_can_add(info.label, problems, source=source, format=fmt, replace=replace)
    samples = sample_problems(problems, sampler, model=info.label, n=n)
    path = folder.add_samples(info, samples, problems, source=source, format=fmt, replace=replace)
    return SampledModel(path, info, samples, problems)


def _from_file(
    folder: EvalFolder, spec: str, choice: ProblemChoice, *, label: str | None, replace: bool
) -> SampledModel:
    """The samples of a completions file; with no problem selection, a new folder holds the
    problems the file answers."""
    _, info = open_sampler(spec, n=0, label=label)
    samples = samples_from_jsonl(spec, info.label)
    info = info.model_copy(update={"n": max(Counter(s.problem_id for s in samples).values())})
    answered = tuple(dict.fromkeys(s.problem_id for s in samples))
    source, fmt, problems = choose_problems(folder, choice, default_ids=answered)
    folder.check_can_add(info.label, problems, source=source, format=fmt, replace=replace)
    path = folder.add_samples(info, samples, problems, source=source, format=fmt, replace=replace)
    return SampledModel(path, info, samples, problems)


def check_label_free(folder: EvalFolder, label: str | None, replace: bool) -> None:
    """A label the folder already has samples of is refused unless ``replace``."""
    taken = [m.label for m in folder.manifest().models] if folder.exists() else []
    if label in taken and not replace:
        raise UsageError(
            f"{folder.path} already has samples from model {label!r}; "
            "choose another `label` or pass `replace`"
        )


def choose_problems(
    folder: EvalFolder, choice: ProblemChoice, *, default_ids: tuple[str, ...] = ()
) -> tuple[str, str | None, list[Problem]]:
    """(source, format, problems) for ``choice``: its ids from its source; else the folder's
    own set; else ``default_ids``; else every problem of the source (default: bundled)."""
    if folder.exists() and choice.source is None and not choice.ids:
        stored = folder.manifest().problems
        return (
            stored.source,
            stored.format,
            load_problem_set(stored.source, stored.format, stored.ids),
        )
    source = choice.source or BUNDLED
    ids = list(choice.ids or default_ids)
    if ids:
        problems = load_problem_set(source, choice.format, ids)
    else:
        problems = select_problems(load_problems(source, format=choice.format), None)
    if not problems:
        raise ExecrlError(f"no problems in {source}")
    return source, choice.format, problems
