"""The trainer's pure parts: config loading, the staleness filter, the prompt stream, advantages
over groups with inconclusive samples, and the micro-batch loss shares."""

from __future__ import annotations

import numpy as np
import pytest

from execrl.errors import ExecrlError
from execrl.rl.config import preset_names
from execrl.rl.policy import Sample
from execrl.rl.prompts import PromptStream
from execrl.rl.rollout_worker import drop_stale
from execrl.rl.rollouts import ScoredGroup
from execrl.rl.scorers import Scores
from execrl.rl.train import ADVANTAGES, load_config


def _group(version: int, rewards: list[float | None] = (0.0,), pid: str = "p") -> ScoredGroup:
    """A scored group whose sample i has i + 1 completion tokens (None: inconclusive)."""
    samples = [Sample([1], [2] * (i + 1), "") for i in range(len(rewards))]
    n = len(rewards)
    return ScoredGroup(
        pid, version, samples, Scores(list(rewards), [False] * n, [False] * n, [None] * n)
    )


# --------------------------------------------------------------------------- staleness filter


def test_drop_stale_keeps_groups_within_s_max_and_drops_older_ones():
    groups = [_group(v) for v in (0, 3, 5, 7, 10)]
    kept, dropped = drop_stale(groups, version=10, max_staleness=5)
    # staleness = 10 - v: 10, 7, 5, 3, 0 -> keep staleness <= 5
    assert [g.version for g in kept] == [5, 7, 10]
    assert [g.version for g in dropped] == [0, 3]


def test_drop_stale_with_s_max_zero_keeps_only_current_policy_groups():
    kept, dropped = drop_stale([_group(4), _group(5)], version=5, max_staleness=0)
    assert [g.version for g in kept] == [5]
    assert [g.version for g in dropped] == [4]


def test_drop_stale_boundary_is_inclusive():
    kept, _ = drop_stale([_group(0)], version=30, max_staleness=30)
    assert len(kept) == 1
    kept, dropped = drop_stale([_group(0)], version=31, max_staleness=30)
    assert not kept and len(dropped) == 1


# --------------------------------------------------------------------------- prompt stream


def test_prompt_stream_visits_every_problem_once_per_pass_and_is_reproducible():
    ids = [f"p{i}" for i in range(7)]
    a, b = PromptStream(ids, seed=3), PromptStream(ids, seed=3)
    first = a.take(7)
    assert sorted(first) == ids  # one full pass = a permutation
    assert b.take(3) + b.take(4) == first  # position, not call pattern, decides
    second = a.take(7)
    assert sorted(second) == ids and second != first  # reshuffled each pass


def test_prompt_stream_resumes_from_its_position():
    ids = [f"p{i}" for i in range(5)]
    full = PromptStream(ids, seed=1).take(12)
    resumed = PromptStream(ids, seed=1)
    resumed.position = 8
    assert resumed.take(4) == full[8:]


def test_prompt_stream_refuses_an_empty_training_set():
    with pytest.raises(ExecrlError, match="no training problems"):
        PromptStream([], seed=0)


# --------------------------------------------------------------------------- advantages


def test_group_advantages_skip_inconclusive_samples_and_stay_per_group():
    groups = [_group(0, [1.0, -1.0, None], "a"), _group(0, [1.0, 1.0], "b")]
    a, b = ADVANTAGES["dr_grpo"](groups)
    assert a == [1.0, -1.0, None]  # mean of {1, -1} = 0
    assert b == [0.0, 0.0]  # a zero-advantage group


def test_token_weighted_advantage_uses_completion_lengths():
    # lengths 1, 2, 3 (see _group); baseline = (1*1 + 2*0 + 3*0) / 6 = 1/6
    (got,) = ADVANTAGES["token_weighted"]([_group(0, [1.0, 0.0, 0.0])])
    np.testing.assert_allclose(got, [1 - 1 / 6, -1 / 6, -1 / 6])


# --------------------------------------------------------------------------- configs


@pytest.mark.parametrize("name", ["demo", "rlvr", "optimization", "dense", "multiturn"])
def test_every_preset_loads_and_names_itself(name):
    assert name in preset_names()
    config = load_config(name)
    assert config.preset == name


def test_optimization_preset_is_the_spec_recipe():
    c = load_config("optimization")
    assert c.loss.advantage == "token_weighted"
    assert c.loss.aggregation == "fixed_horizon" and c.loss.horizon == 32768
    assert (c.loss.eps_low, c.loss.eps_high) == (0.2, 0.28)
    assert c.async_.enabled and c.async_.max_staleness == 30


def test_overrides_and_yaml_file_apply_in_order(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("steps: 7\noptim:\n  lr: 1.0e-4\n")
    c = load_config("rlvr", f, ["optim.lr=2e-5", "loss.kl.beta=0.01", "data.train_ids=[a, b]"])
    assert c.steps == 7  # from the file
    assert c.optim.lr == 2e-5  # the override wins over the file
    assert c.loss.kl.beta == 0.01
    assert c.data.train_ids == ["a", "b"]
    assert c.group_size == load_config("rlvr").group_size  # untouched: the preset's


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["optim.lr=-1"], "optim.lr"),
        (["steps"], "key=value"),
        (["nonsense=1"], "nonsense"),
        (["loss.kl.placement=reward"], "reinforce_pp"),
        (["reward.kind=dense"], "dense"),
    ],
)
def test_bad_configs_fail_with_one_line_naming_the_setting(overrides, message):
    with pytest.raises(ExecrlError, match=message):
        load_config("rlvr", None, overrides)


def test_unknown_preset_and_unreadable_file(tmp_path):
    with pytest.raises(ExecrlError, match="unknown preset"):
        load_config("nope")
    with pytest.raises(ExecrlError, match="cannot read"):
        load_config("rlvr", tmp_path / "missing.yaml")
