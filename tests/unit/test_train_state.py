"""The trainer's state as data: a step from a restored checkpoint is the step the original
state would have taken (same weights, optimizer, prompts, RNG: same result); REINFORCE++ is one
row of the estimators table; resuming a run folder is checked by the library, before any model.

The step runs on stand-ins for the model and the rollouts (a tiny torch module, rewards drawn
from the sampling seed, the weights and torch's RNG), so the whole of ``train_step`` and
``checkpoint`` runs in well under a second; the real model's resume is in
``tests/integration/test_trainer_smollm2.py``."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest

from execrl.errors import ConfigError, ExecrlError, UsageError
from execrl.rl.advantages import TRAINING_ESTIMATORS, BatchRewards, per_token_estimators
from execrl.rl.advantages import reinforce_pp as reinforce_pp_fn
from execrl.rl.config import load_config
from execrl.rl.policy import Sample
from execrl.rl.prompts import SELECTORS
from execrl.rl.rollouts import ScoredGroup
from execrl.rl.runs import new_run_folder, resume_config, write_run_config
from execrl.rl.scorers import Scores

torch = pytest.importorskip("torch")

from execrl.rl.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from execrl.rl.monitor import StepMonitor  # noqa: E402
from execrl.rl.state import STATE_FORMAT, PromptDraws, TrainState, seed_everything  # noqa: E402
from execrl.rl.train import Run, train_step  # noqa: E402

PROBLEMS = ["a", "b", "c", "d"]
TIMES = ("rollout_s", "update_s")


class TinyPolicy(torch.nn.Module):
    """A stand-in policy: one linear layer, saved the way ``save_pretrained`` saves."""

    def __init__(self) -> None:
        super().__init__()
        self.head = torch.nn.Linear(4, 1)

    def save_pretrained(self, folder: Path) -> None:
        from safetensors.torch import save_file

        save_file(
            {k: v.contiguous() for k, v in self.state_dict().items()}, folder / "model.safetensors"
        )

    def tie_weights(self) -> None:
        """Nothing tied."""


class NoTokenizer:
    pad_token_id = 0

    def save_pretrained(self, folder: Path) -> None:
        (folder / "tokenizer.json").write_text("{}")


def fake_rollouts(sampler, problem_ids, *, seed):
    """Rewards that depend on the sampling seed, the weights and torch's global RNG."""
    rng = random.Random(seed)
    weight = float(sampler.model.head.weight.detach().sum())
    groups = []
    for pid in problem_ids:
        noise = torch.rand(sampler.config.group_size).tolist()
        rewards = [round(rng.random() + weight + n, 6) for n in noise]
        samples = [Sample([1, 2], [3 + i, 4], f"{pid}-{i}") for i in range(len(rewards))]
        n = len(rewards)
        scores = Scores(rewards, [r > 1 for r in rewards], [False] * n, [None] * n)
        groups.append(ScoredGroup(pid, sampler.version, samples, scores))
    return groups


class TinyLearner:
    """One AdamW step of ``−Σ A_i · f(x_i)`` on the stand-in policy."""

    def __init__(self, model: TinyPolicy) -> None:
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=0.1)

    def update(self, rows):
        from execrl.rl.update import UpdateStats

        x = torch.tensor([[*r.completion_ids, *r.prompt_ids] for r in rows], dtype=torch.float32)
        advantages = torch.tensor([r.advantage for r in rows])  # (B,)
        loss = -(advantages * self.model.head(x).squeeze(1)).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return UpdateStats(loss=float(loss.detach()))


def tiny_run(out: Path, seed: int) -> tuple[Run, TrainState]:
    """A run and its first state on the stand-ins (``seed`` seeds the initial weights)."""
    config = load_config("rlvr", None, ["prompts_per_step=2", "group_size=3", "steps=3"])
    out.mkdir(parents=True, exist_ok=True)
    seed_everything(seed)
    model = TinyPolicy()
    learner = TinyLearner(model)
    selector = SELECTORS["pass_rate"](config.data, PROBLEMS, config.seed)
    run = Run(
        config=config,
        out=out,
        problems={p: None for p in PROBLEMS},
        train_ids=PROBLEMS,
        eval_ids=[],
        tokenizer=NoTokenizer(),
        scorer=None,
        worker_scorer=None,
        rollouts=fake_rollouts,
        estimator=TRAINING_ESTIMATORS[config.loss.advantage],
        learner=learner,
        log=lambda line: None,
    )
    prompts = PromptDraws(selector, config.seed)
    monitor = StepMonitor(group_size=config.group_size)
    return run, TrainState(0, model, learner.optimizer, prompts, monitor)


def _without_times(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in TIMES}


def _step_rows(out: Path, step: int) -> list[str]:
    lines = (out / "rollouts.jsonl").read_text().splitlines()
    return [line for line in lines if json.loads(line)["step"] == step]


def test_a_step_from_a_restored_state_is_the_step_of_the_original(tmp_path):
    run, state = tiny_run(tmp_path / "original", seed=0)
    state = train_step(state, run)
    folder = save_checkpoint(run.out, state, run.tokenizer)
    original = train_step(state, run)

    # Another process's start: other initial weights, other RNG, then the checkpoint.
    other, fresh = tiny_run(tmp_path / "restored", seed=123)
    torch.rand(7)
    restored = load_checkpoint(folder, fresh, lora=False)
    assert restored.step == 1 and restored.history == state.history
    again = train_step(restored, other)

    assert again.step == original.step == 2
    for name, value in original.model.state_dict().items():
        assert torch.equal(again.model.state_dict()[name], value), name
    assert _without_times(again.history[-1]) == _without_times(original.history[-1])
    assert _step_rows(other.out, 2) == _step_rows(run.out, 2)
    assert again.prompts.state_dict() == original.prompts.state_dict()
    moments = [s["exp_avg"] for s in again.optimizer.state_dict()["state"].values()]
    expected = [s["exp_avg"] for s in original.optimizer.state_dict()["state"].values()]
    assert all(torch.equal(a, b) for a, b in zip(moments, expected, strict=True)) and moments


def test_a_step_returns_the_next_state_and_leaves_the_counters_of_the_last(tmp_path):
    run, first = tiny_run(tmp_path, seed=0)
    second = train_step(first, run)
    assert (first.step, second.step) == (0, 1)
    assert first.history == [] and [r["step"] for r in second.history] == [1]
    assert second.prompts.drawn == 2  # two prompts drawn, shared with the worker's thread


def test_a_state_of_another_format_is_refused(tmp_path):
    _, state = tiny_run(tmp_path, seed=0)
    saved = state.to_dict()
    assert saved["format"] == STATE_FORMAT
    with pytest.raises(ExecrlError, match="another version"):
        state.restored({**saved, "format": "execrl-train-state/1"})


# ---------------------------------------------------------------- the estimators table


def test_reinforce_pp_is_one_row_of_the_estimators_table():
    row = TRAINING_ESTIMATORS["reinforce_pp"]
    batch = BatchRewards(rewards=[[1.0, None]], lengths=[[3, 4]], given=[None])
    assert row.per_token is reinforce_pp_fn
    assert row.per_rollout(batch) == [[None, None]]  # per token, in the update
    assert per_token_estimators() == ["reinforce_pp"]
    for name in ("grpo", "dr_grpo", "rloo", "token_weighted"):
        assert TRAINING_ESTIMATORS[name].per_token is None
        assert TRAINING_ESTIMATORS[name].per_rollout(batch) == [[0.0, None]]
    given = BatchRewards(rewards=[[1.0, 0.0]], lengths=[[3, 4]], given=[[0.5, -0.5]])
    assert TRAINING_ESTIMATORS["dense"].per_rollout(given) == [[0.5, -0.5]]


def test_config_knows_exactly_the_rows_of_the_table():
    for name in TRAINING_ESTIMATORS:
        kind = ["reward.kind=dense"] if name == "dense" else []
        assert load_config("rlvr", None, [f"loss.advantage={name}", *kind]).loss.advantage == name
    with pytest.raises(ConfigError, match="unknown advantage estimator"):
        load_config("rlvr", None, ["loss.advantage=ppo"])
    with pytest.raises(ConfigError, match="per-token"):
        load_config("rlvr", None, ["loss.kl.placement=reward", "loss.advantage=grpo"])


# ---------------------------------------------------------------- run folders


def test_resuming_a_folder_needs_its_config_and_a_checkpoint(tmp_path):
    with pytest.raises(UsageError, match="not a training run"):
        resume_config(tmp_path)
    write_run_config(tmp_path, load_config("rlvr", None, ["steps=3"]))
    with pytest.raises(UsageError, match="no checkpoint to resume from"):
        resume_config(tmp_path)
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "latest").write_text("step-00001")
    config = resume_config(tmp_path, ["executor=local"])
    assert (config.steps, config.preset, config.executor) == (3, "rlvr", "local")


def test_a_new_run_goes_in_a_time_named_folder():
    assert new_run_folder(Path("r")).name.startswith("train-")


# ---------------------------------------------------------------- no circle through train


def test_the_trainers_parts_do_not_import_the_loop():
    """rollouts, update and evaluation take their settings from ``rl/config.py``, below them;
    none imports ``rl/train.py`` (TYPE_CHECKING imports included), which imports them."""
    import execrl.rl as package

    folder = Path(package.__file__).parent
    importers = []
    for path in sorted(folder.glob("*.py")):
        if path.name == "train.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if "execrl.rl.train" in names:
                importers.append(path.name)
    assert importers == []
