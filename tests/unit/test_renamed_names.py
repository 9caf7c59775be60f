"""One name per thing (issue 30.6): the renamed public names still import from their old
places for one release, with a DeprecationWarning that names the new one."""

from __future__ import annotations

import importlib

import pytest

RENAMED = [
    ("execrl.sandbox", "Policy", "execrl.sandbox.protocol", "ChatPolicy"),
    ("execrl.sandbox.protocol", "Policy", "execrl.sandbox.protocol", "ChatPolicy"),
    ("execrl.evaluate", "Sampler", "execrl.sandbox.protocol", "CompletionSampler"),
    ("execrl.evaluate.sampling", "Sampler", "execrl.sandbox.protocol", "CompletionSampler"),
    ("execrl.evaluate", "run_campaign", "execrl.evaluate.campaign", "run_eval_campaign"),
    ("execrl.evaluate.campaign", "run_campaign", "execrl.evaluate.campaign", "run_eval_campaign"),
    # the step monitor moved from the service's fallback policy to the trainer
    *[
        ("execrl.service.fallback", name, "execrl.rl.monitor", name)
        for name in ("StepMonitor", "StepReport", "StepCounts", "RewardSummary", "exposure")
    ],
]


@pytest.mark.parametrize(("old_home", "old", "home", "new"), RENAMED)
def test_an_old_name_warns_and_is_the_new_thing(old_home: str, old: str, home: str, new: str):
    module = importlib.import_module(old_home)
    with pytest.warns(
        DeprecationWarning, match=rf"{old_home}\.{old} is deprecated: use {home}\.{new}"
    ):
        value = getattr(module, old)
    assert value is getattr(importlib.import_module(home), new)


@pytest.mark.parametrize("old_home", sorted({r[0] for r in RENAMED}))
def test_old_names_are_not_public(old_home: str) -> None:
    module = importlib.import_module(old_home)
    old_names = {old for home, old, _, _ in RENAMED if home == old_home}
    assert not old_names & set(getattr(module, "__all__", ()))


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    import execrl.evaluate

    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        execrl.evaluate.Nope  # noqa: B018


def test_the_model_protocols_are_structural() -> None:
    from execrl.sandbox import ChatPolicy, CompletionSampler

    class Echo:
        def generate(self, conversations: list) -> list[str]:
            return ["x"] * len(conversations)

        def sample(self, conversation: list, n: int) -> list[str]:
            return ["x"] * n

    assert isinstance(Echo(), ChatPolicy)
    sampler: CompletionSampler = Echo()  # (a type checker accepts it: same shape)
    assert sampler.sample([], 2) == ["x", "x"]
