"""The loop's pure pieces: dynamic sampling's batch filling, the micro-batch loss shares from
``losses.AGGREGATIONS``, the prompt selectors' saved state, the demo preset, and a docstring on
every config field."""

from __future__ import annotations

import ast
import inspect
import json

import pytest

from execrl.errors import ExecrlError
from execrl.rl import config as config_module
from execrl.rl import train as train_module
from execrl.rl.policy import Sample
from execrl.rl.prompts import SELECTORS, PromptStream
from execrl.rl.rollouts import ScoredGroup, fill_batch
from execrl.rl.scorers import Scores
from execrl.rl.step_log import rewind_logs
from execrl.rl.train import load_config


def _group(pid: str, rewards: list[float | None]) -> ScoredGroup:
    n = len(rewards)
    samples = [Sample([1], [2], "") for _ in rewards]
    return ScoredGroup(
        pid, 0, samples, Scores(list(rewards), [r == 1.0 for r in rewards], [False] * n, [None] * n)
    )


class Draws:
    """A source of scored groups in a fixed order, recording what each call asked for."""

    def __init__(self, groups: list[ScoredGroup]) -> None:
        self.groups = list(groups)
        self.calls: list[tuple[int, set[str]]] = []

    def __call__(self, n, exclude):
        self.calls.append((n, set(exclude)))
        taken, self.groups = self.groups[:n], self.groups[n:]
        return taken, []


FLAT, MIXED = [0.0, 0.0], [1.0, 0.0]


def test_dynamic_sampling_draws_again_until_the_batch_holds_informative_groups():
    draws = Draws(
        [
            _group("a", FLAT),
            _group("b", MIXED),
            _group("c", FLAT),
            _group("d", MIXED),
            _group("e", MIXED),
        ]
    )
    drawn, kept, stale, rounds = fill_batch(draws, 2, filtered=True, rounds=3)
    assert [g.problem_id for g in drawn] == ["a", "b", "c", "d"]
    assert kept == [1, 3] and stale == [] and rounds == 3
    # each round asks for the groups still missing, and names the problems already drawn
    assert draws.calls == [(2, set()), (1, {"a", "b"}), (1, {"a", "b", "c"})]


def test_dynamic_sampling_stops_at_its_round_bound_with_what_it_kept():
    draws = Draws([_group(p, FLAT) for p in "abcdef"])
    drawn, kept, _, rounds = fill_batch(draws, 2, filtered=True, rounds=2)
    assert len(drawn) == 4 and kept == [] and rounds == 2


def test_without_dynamic_sampling_every_group_is_kept_in_one_round():
    draws = Draws([_group("a", FLAT), _group("b", MIXED)])
    drawn, kept, _, rounds = fill_batch(draws, 2, filtered=False, rounds=1)
    assert len(drawn) == 2 and kept == [0, 1] and rounds == 1


def test_an_inconclusive_rollout_does_not_make_a_group_informative():
    draws = Draws([_group("a", [0.0, None, 0.0]), _group("b", [None, 1.0, 0.0])])
    _, kept, _, _ = fill_batch(draws, 2, filtered=True, rounds=1)
    assert kept == [1]


@pytest.mark.parametrize(
    ("aggregation", "expected"),
    [
        ("token_mean", [3 / 10, 7 / 10]),
        ("sequence_mean", [1 / 3, 2 / 3]),
        ("fixed_horizon", [1.0, 1.0]),
    ],
)
def test_loss_shares_come_from_the_aggregation(aggregation, expected):
    pytest.importorskip("torch")
    from execrl.rl.update import loss_share

    lengths = [3, 5, 2]  # micro-batches: rows [0] and [1, 2]
    got = [loss_share(aggregation, 64, lengths, rows) for rows in ([0], [1, 2])]
    assert got == pytest.approx(expected)


@pytest.mark.parametrize("selection", sorted(SELECTORS))
def test_a_selector_restored_from_its_state_draws_what_the_original_would(selection):
    data = load_config("rlvr", None, [f"data.selection={selection}"]).data
    ids = [f"p{i}" for i in range(6)]
    original = SELECTORS[selection](data, ids, 3)
    original.take(4)
    original.observe("p1", [True, False])
    saved = original.state_dict()
    restored = SELECTORS[selection](data, ids, 3)
    restored.load_state_dict(saved)
    assert restored.take(5) == original.take(5)


def test_prompt_stream_state_is_its_position():
    stream = PromptStream(["a", "b", "c"], seed=0)
    stream.take(2)
    assert stream.state_dict() == {"position": 2}


def test_the_default_run_is_the_demo_with_dynamic_sampling_pass_rate_and_lora():
    config = load_config()
    assert config.preset == train_module.DEFAULT_PRESET == "demo"
    assert config.dynamic_sampling and config.max_extra_rounds >= 1
    assert config.data.selection == "pass_rate"
    assert config.policy.lora is not None and 1e-4 <= config.optim.lr <= 1e-3


def _undocumented(cls: type) -> list[str]:
    """Annotated fields of ``cls`` not followed by a docstring."""
    body = ast.parse(inspect.getsource(cls)).body[0].body
    return [
        node.target.id
        for node, after in zip(body, [*body[1:], None], strict=True)
        if isinstance(node, ast.AnnAssign)
        and node.target.id != "model_config"
        and not (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant))
    ]


def test_every_config_field_has_a_docstring():
    sections = [
        c
        for _, c in inspect.getmembers(config_module, inspect.isclass)
        if issubclass(c, config_module.Strict) and c is not config_module.Strict
    ]
    assert len(sections) >= 9
    missing = {c.__name__: _undocumented(c) for c in [*sections, train_module.TrainConfig]}
    assert {name: fields for name, fields in missing.items() if fields} == {}


def test_rewinding_to_a_checkpoint_drops_the_rollouts_of_later_steps(tmp_path):
    """A run that crashed after logging steps 3 and 4 but checkpointed at step 2 is resumed from
    step 2: its rollouts of steps 3-4 go (the resumed run logs them again), once each."""
    rows = [{"step": s, "reward": float(s), "i": i} for s in (1, 2, 3, 4) for i in (0, 1)]
    (tmp_path / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    history = [{"step": 1, "reward_mean": 1.0}, {"step": 2, "reward_mean": 2.0}]
    rewind_logs(tmp_path, history)
    kept = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert [(r["step"], r["i"]) for r in kept] == [(1, 0), (1, 1), (2, 0), (2, 1)]
    metrics = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["step"] for line in metrics] == [1, 2]
    rewind_logs(tmp_path, [])  # a checkpoint before any step: nothing is left
    assert (tmp_path / "rollouts.jsonl").read_text() == ""


def test_held_out_problems_from_a_second_source_are_never_trained_on():
    """data.eval_problems=humaneval: the 164 HumanEval problems are held out, training stays on
    the starter set's train problems; a source sharing ids with the training one is refused."""
    from execrl.problems.io import load_problems
    from execrl.rl.prompts import load_split

    data = load_config(overrides=["data.eval_problems=humaneval"]).data
    problems, train, held_out = load_split(load_problems, data)
    starter = load_problems("starter")
    assert len(held_out) == 164 and held_out[0] == "HumanEval/0"
    assert sorted(train) == sorted(p.id for p in starter if "train" in p.tags)
    assert not set(train) & set(held_out) and set(held_out) <= problems.keys()
    only_two = data.model_copy(update={"eval_ids": ["HumanEval/1", "HumanEval/7"]})
    assert load_split(load_problems, only_two)[2] == ["HumanEval/1", "HumanEval/7"]
    same = data.model_copy(update={"eval_problems": "starter"})
    with pytest.raises(ExecrlError, match="shares problem id"):
        load_split(load_problems, same)
