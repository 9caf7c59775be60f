"""The reference trainer on the real SmolLM2-135M-Instruct, on CPU, with the real sandbox.

SmolLM2 is tiny and its programs are often wrong, so these tests do not assert that it
learns; they check what must hold whatever it samples: micro-batched gradients equal the
full-batch gradient, logged rewards equal an independent re-scoring of the logged
completions, weights move exactly when a step had signal, a resumed run continues exactly,
async groups respect the staleness bound, and LoRA trains only the adapter.
"""

from __future__ import annotations

import json

import pytest

from execrl.extract import extract_code
from execrl.problems.io import load_problems
from execrl.rewards import score
from tests.integration._training import TINY, TRAINING_MARKS

pytestmark = TRAINING_MARKS

COMPLETIONS = [
    "```python\ndef is_even(n: int) -> bool:\n    return n % 2 == 0\n```",
    "```python\ndef is_even(n):\n    return n % 2 == 1\n```",
    "Here it is:\n```python\ndef is_even(n: int) -> bool:\n    return not n & 1\n```\nDone.",
    "```python\ndef f(x):\n    return x\n```",
]


@pytest.fixture(scope="module")
def torch():
    import torch

    torch.set_num_threads(1)
    return torch


def _config(*overrides: str):
    from execrl.rl.train import load_config

    return load_config("rlvr", None, [*TINY, *overrides])


def _rollouts(tokenizer, advantages):
    """Hand-written completions of a short prompt, with the given advantages."""
    from execrl.rl.update import Rollout

    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Write is_even(n)."}],
        tokenize=False,
        add_generation_prompt=True,
    )
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    return [
        Rollout(prompt_ids, tokenizer(c, add_special_tokens=False)["input_ids"], c, advantage=a)
        for c, a in zip(COMPLETIONS, advantages, strict=True)
    ]


def _grads(model):
    return {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}


@pytest.mark.parametrize("aggregation", ["token_mean", "sequence_mean", "fixed_horizon"])
def test_micro_batches_add_up_to_the_full_batch_gradient(torch, aggregation):
    from execrl.rl.policy import load_policy
    from execrl.rl.update import Learner

    config = _config(f"loss.aggregation={aggregation}", "loss.horizon=64")
    model, tokenizer = load_policy(config.policy)
    rollouts = _rollouts(tokenizer, [1.0, -1.0, 0.5, -0.5])
    grads = {}
    for size in (4, 1):
        optim = config.optim.model_copy(update={"micro_batch": size})
        learner = Learner(config.model_copy(update={"optim": optim}), model, tokenizer)
        model.zero_grad(set_to_none=True)
        learner.accumulate(learner.prepare(rollouts))
        grads[size] = _grads(model)
    assert grads[4].keys() == grads[1].keys() and grads[4]
    for name, full in grads[4].items():  # float32 sums in another order: ~1e-6 apart
        error = (grads[1][name] - full).norm() / full.norm()
        assert error < 1e-4, f"{name}: relative error {error:.2e}"


@pytest.mark.parametrize("aggregation", ["token_mean", "sequence_mean"])
def test_leaving_out_zero_advantage_rollouts_keeps_the_gradient(torch, aggregation):
    """Rollouts with advantage 0 are not run, but still count in the loss's denominator: the
    gradient and the logged loss are those of the whole batch."""
    from execrl.rl.policy import load_policy
    from execrl.rl.update import Learner

    config = _config(f"loss.aggregation={aggregation}")
    model, tokenizer = load_policy(config.policy)
    rollouts = _rollouts(tokenizer, [1.0, 0.0, -0.5, 0.0])
    grads, losses, kept = {}, {}, {}
    for skip in (False, True):
        optim = config.optim.model_copy(update={"skip_zero_advantage": skip})
        learner = Learner(config.model_copy(update={"optim": optim}), model, tokenizer)
        model.zero_grad(set_to_none=True)
        batch = learner.prepare(rollouts)
        losses[skip] = learner.accumulate(batch).loss
        grads[skip], kept[skip] = _grads(model), sum(len(m) for m in batch.micro)
    assert kept == {False: 4, True: 2}
    assert losses[True] == pytest.approx(losses[False], rel=1e-5, abs=1e-9)
    assert grads[True].keys() == grads[False].keys() and grads[True]
    for name, full in grads[False].items():
        error = (grads[True][name] - full).norm() / full.norm()
        assert error < 1e-4, f"{name}: relative error {error:.2e}"


def test_a_shared_prompt_gives_the_same_logps_and_gradient(torch):
    """Each distinct prompt once, its rollouts on its cache: the same values and gradient as
    every rollout with its own copy of the prompt (two prompts, interleaved rows, one empty
    completion)."""
    from execrl.rl.logprobs import batch_tensors, token_logps
    from execrl.rl.policy import load_policy

    model, tokenizer = load_policy(_config().policy)
    rollouts = _rollouts(tokenizer, [1.0, -1.0, 0.5, -0.5])
    other = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Write sum_list(xs), the sum of a list."}],
        tokenize=False,
        add_generation_prompt=True,
    )
    for r in rollouts[1::2]:
        r.prompt_ids = tokenizer(other, add_special_tokens=False)["input_ids"]
    rollouts[3].completion_ids = []
    results = {}
    for share in (False, True):
        tensors = batch_tensors(rollouts, tokenizer.pad_token_id, share)
        model.zero_grad(set_to_none=True)
        logp = token_logps(model, tensors)
        weights = torch.linspace(-1, 1, logp.numel()).reshape(logp.shape)
        (logp * weights).sum().backward()
        results[share] = (logp.detach(), tensors["mask"], _grads(model))
    (plain, mask, plain_grads), (shared, shared_mask, shared_grads) = results[False], results[True]
    assert torch.equal(mask, shared_mask) and int(mask.sum()) > 40
    assert torch.all(shared[~mask] == 0)
    assert torch.allclose(plain[mask], shared[mask], atol=1e-4), (plain - shared).abs().max()
    assert plain_grads.keys() == shared_grads.keys() and plain_grads
    for name, full in plain_grads.items():
        error = (shared_grads[name] - full).norm() / full.norm()
        assert error < 1e-4, f"{name}: relative error {error:.2e}"


def test_a_training_run_logs_faithful_rewards_and_moves_weights_only_with_signal(tmp_path, torch):
    from execrl.rl.train import Trainer

    with Trainer(_config(), tmp_path, progress=False) as trainer:
        before = {n: p.detach().clone() for n, p in trainer.learner.model.named_parameters()}
        trainer.train()
        after = dict(trainer.learner.model.named_parameters())
        executor = trainer.executor
        rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").open()]
        rollouts = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").open()]
        assert [r["step"] for r in rows] == [1, 2]
        assert len(rollouts) == 2 * 2 * 2
        problems = {p.id: p for p in load_problems("starter")}
        for logged in rollouts:  # every reward re-scored from the logged completion
            (again,) = score(
                problems[logged["problem_id"]],
                extract_code(logged["completion"]),
                env="rlvr",
                reward="correctness",
                executor=executor,
            )
            assert again.reward == logged["reward"]
            assert again.record.all_passed == logged["passed"]
    for row in rows:  # zero-advantage rate recomputed from the logged groups
        groups: dict[str, list[float]] = {}
        for r in rollouts:
            if r["step"] == row["step"]:
                groups.setdefault(r["problem_id"], []).append(r["reward"])
        flat = sum(max(g) == min(g) for g in groups.values()) / len(groups)
        assert row["zero_advantage_rate"] == pytest.approx(flat)
        assert row["updated"] == (flat < 1)
        # spec §6 per step: a local run resolves every test without fallback
        step_rewards = [r["reward"] for r in rollouts if r["step"] == row["step"]]
        assert row["monitor/tests"] >= len(step_rewards)  # at least one test per rollout
        assert (row["monitor/resolved_rate"], row["monitor/fallback_rate"]) == (1.0, 0.0)
        assert row["monitor/reward_count"] == len(step_rewards)
        assert row["monitor/reward_mean"] == pytest.approx(row["reward_mean"])
    moved = any(not torch.equal(before[n], p) for n, p in after.items())
    assert moved == any(r["updated"] for r in rows)
    assert (tmp_path / "checkpoints" / "latest").read_text() == "step-00002"


def test_resume_continues_exactly_where_the_run_stopped(tmp_path, torch):
    from execrl.rl.train import Trainer

    overrides = ["steps=2", "group_size=2", "prompts_per_step=1", "optim.lr=1e-4"]
    with Trainer(_config(*overrides), tmp_path / "straight", progress=False) as trainer:
        trainer.train()
        straight = {n: p.detach().clone() for n, p in trainer.learner.model.named_parameters()}
    with Trainer(_config(*overrides, "steps=1"), tmp_path / "split", progress=False) as trainer:
        trainer.train()
    with Trainer(_config(*overrides), tmp_path / "split", progress=False) as trainer:
        trainer.load_checkpoint()
        assert trainer.state.step == 1 and trainer.stream.position == 1
        trainer.train()
        resumed = dict(trainer.learner.model.named_parameters())
    for name, value in straight.items():
        torch.testing.assert_close(resumed[name], value, rtol=0, atol=1e-6, msg=name)
    lines = lambda run: (tmp_path / run / "rollouts.jsonl").read_text().splitlines()  # noqa: E731
    assert lines("split") == lines("straight")


def test_a_step_from_a_restored_checkpoint_is_the_step_of_the_original(tmp_path, torch):
    """The state as data on the real model: step 2 taken by a new trainer from step 1's
    checkpoint samples, scores and trains exactly what the original's step 2 did."""
    from execrl.rl.train import Trainer

    overrides = ["steps=2", "group_size=2", "prompts_per_step=1", "optim.lr=1e-4"]
    with Trainer(_config(*overrides), tmp_path / "original", progress=False) as trainer:
        trainer.step()
        folder = trainer.save_checkpoint()
        trainer.step()
        original = trainer.state
        weights = {n: p.detach().clone() for n, p in original.model.named_parameters()}
    with Trainer(_config(*overrides), tmp_path / "restored", progress=False) as trainer:
        trainer.load_checkpoint(folder)
        assert trainer.state.step == 1 and trainer.state.history == original.history[:1]
        trainer.step()
        again = trainer.state
        for name, value in again.model.named_parameters():
            torch.testing.assert_close(value, weights[name], rtol=0, atol=1e-6, msg=name)
    times = ("rollout_s", "update_s")
    rows = [{k: v for k, v in s.history[-1].items() if k not in times} for s in (original, again)]
    assert rows[0] == rows[1] and again.prompts.state_dict() == original.prompts.state_dict()
    step_2 = lambda run: [  # noqa: E731
        line
        for line in (tmp_path / run / "rollouts.jsonl").read_text().splitlines()
        if json.loads(line)["step"] == 2
    ]
    assert step_2("restored") == step_2("original") and step_2("original")


def test_resume_with_pass_rate_selection_dynamic_sampling_and_lora_is_exact(tmp_path, torch):
    """The demo's settings: the selector's state and the draw count come back from the
    checkpoint, so the resumed run draws, samples and trains what the straight one did."""
    pytest.importorskip("peft")
    from execrl.rl.train import Trainer

    overrides = [
        "steps=2",
        "group_size=2",
        "prompts_per_step=1",
        "dynamic_sampling=true",
        "max_extra_rounds=1",
        "data.selection=pass_rate",
        "policy.lora={r: 4, alpha: 8}",
        "optim.lr=1e-3",
        "data.train_ids=[is-even, sum-list, square-all]",
    ]
    with Trainer(_config(*overrides), tmp_path / "straight", progress=False) as trainer:
        trainer.train()
        straight = {n: p.detach().clone() for n, p in trainer.learner.model.named_parameters()}
        selector = trainer.stream.state_dict()
    with Trainer(_config(*overrides, "steps=1"), tmp_path / "split", progress=False) as trainer:
        trainer.train()
    with Trainer(_config(*overrides), tmp_path / "split", progress=False) as trainer:
        trainer.load_checkpoint()
        assert trainer.state.step == 1 and trainer.stream.takes >= 1
        trainer.train()
        resumed = dict(trainer.learner.model.named_parameters())
        assert trainer.stream.state_dict() == selector
    for name, value in straight.items():
        torch.testing.assert_close(resumed[name], value, rtol=0, atol=1e-6, msg=name)
    lines = lambda run: (tmp_path / run / "rollouts.jsonl").read_text().splitlines()  # noqa: E731
    assert lines("split") == lines("straight")
    rows = [json.loads(line) for line in (tmp_path / "straight" / "metrics.jsonl").open()]
    for row in rows:  # every group drawn is logged, the dropped ones marked
        logged = [json.loads(x) for x in lines("straight") if json.loads(x)["step"] == row["step"]]
        assert len(logged) == 2 * row["groups_drawn"]
        assert sum(not r["kept"] for r in logged) == 2 * row["groups_dropped"]
        assert 1 <= row["sampling_rounds"] <= 2


def test_async_groups_never_exceed_the_staleness_bound(tmp_path, torch):
    from execrl.rl.train import Trainer

    overrides = [
        "async.enabled=true",
        "async.max_staleness=0",
        "async.queue_size=2",
        "prompts_per_step=1",
        "group_size=2",
        "optim.lr=1e-4",
        "data.train_ids=[is-even]",
    ]
    with Trainer(_config(*overrides), tmp_path, progress=False) as trainer:
        trainer.train()
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").open()]
    rollouts = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").open()]
    assert [r["staleness_max"] for r in rows] == [0, 0]
    # S_max = 0: step s trains only on groups sampled by the weights after step s − 1, so the
    # step-2 groups prove the weights were pushed to the worker.
    assert {r["version"] for r in rollouts if r["step"] == 2} == {1}


def test_lora_trains_the_adapter_and_leaves_the_base_weights(torch):
    pytest.importorskip("peft")
    from execrl.rl.policy import load_policy
    from execrl.rl.update import Learner

    config = _config("policy.lora={r: 4, alpha: 8}", "optim.lr=1e-3")
    model, tokenizer = load_policy(config.policy)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    Learner(config, model, tokenizer).update(_rollouts(tokenizer, [1.0, -1.0, 0.5, -0.5]))
    changed = {n for n, p in model.named_parameters() if not torch.equal(before[n], p)}
    assert changed and all("lora_" in n for n in changed)
    assert all(p.requires_grad == ("lora_" in n) for n, p in model.named_parameters())


def test_partial_kl_penalises_only_the_tagged_sections(torch):
    from execrl.rl.logprobs import batch_tensors
    from execrl.rl.policy import load_policy
    from execrl.rl.update import section_masks

    _, tokenizer = load_policy(_config().policy)
    text = "<think>try x = 2</think>\n<model>max x</model>\n<python>\nprint(2)\n</python>"
    rollouts = _rollouts(tokenizer, [0.0] * 4)[:1]
    rollouts[0].completion_ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    tensors = batch_tensors(rollouts, tokenizer.pad_token_id)
    mask = section_masks(rollouts, tokenizer, tensors["mask"], ["model", "code"])
    picked = tokenizer.decode(tensors["targets"][0][mask[0]].tolist())
    assert picked.startswith("<model>") and picked.endswith("</python>")
    assert "think" not in picked and "try x" not in picked


def test_solver_preset_trains_on_solver_rewards_it_logs_faithfully(tmp_path, torch):
    pytest.importorskip("highspy")
    from execrl.problems.optim import load_optim_problems
    from execrl.rewards.solver import score_solver_responses, solver_executor
    from execrl.rl.train import Trainer, load_config

    overrides = ["steps=1", "group_size=2", "policy.max_new_tokens=32", "eval.before=false"]
    overrides += ["eval.after=false", "data.train_ids=[bakery-weekly-mix]"]
    config = load_config("partial_kl", None, overrides)
    with Trainer(config, tmp_path, progress=False) as trainer:
        trainer.train()
    (row,) = [json.loads(line) for line in (tmp_path / "metrics.jsonl").open()]
    logged = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").open()]
    answers = {p.id: p.answer for p in load_optim_problems()}
    with solver_executor(workers=1) as executor:
        again = score_solver_responses(
            [r["completion"] for r in logged],
            [answers[r["problem_id"]] for r in logged],
            executor=executor,
        )
    assert [s.reward for s in again] == [r["reward"] for r in logged]
    assert row["updated"] and row["kl"] == 0.0  # β > 0, but the policy is still the reference


@pytest.mark.parametrize("preset", ["dense", "multiturn"])
def test_dense_presets_log_centred_group_advantages(tmp_path, torch, preset):
    from execrl.rl.train import Trainer, load_config

    overrides = [*TINY, "steps=1", "prompts_per_step=1", "group_size=2", "reward.max_turns=2"]
    with Trainer(load_config(preset, None, overrides), tmp_path, progress=False) as trainer:
        trainer.train()
    (row,) = [json.loads(line) for line in (tmp_path / "metrics.jsonl").open()]
    logged = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").open()]
    assert row["step"] == 1 and row["inconclusive_rate"] == 0.0
    # one sample per turn; the dense advantages of a single-turn group sum to zero
    assert len(logged) >= 2 and all(r["advantage"] is not None for r in logged)
    if preset == "dense":
        assert sum(r["advantage"] for r in logged) == pytest.approx(0.0, abs=1e-9)


def test_chunked_sampling_is_shortest_first_each_chunk_with_its_own_seed(torch):
    from execrl.rl.policy import load_policy, prompt_length, sample, sample_in_chunks

    config = _config("policy.max_new_tokens=8")
    model, tokenizer = load_policy(config.policy)
    # prompt lengths out of order: chunks are drawn shortest first, returned in this order
    words = [6, 1, 4, 0, 9]
    conversations = [
        [{"role": "user", "content": f"Write f{i}(n)." + " Be brief." * w}]
        for i, w in enumerate(words)
    ]
    lengths = [prompt_length(tokenizer, c) for c in conversations]
    assert sorted(range(5), key=lengths.__getitem__) == [3, 1, 2, 0, 4]

    def texts(samples):
        return [s.text for s in samples]

    chunked = sample_in_chunks(model, tokenizer, conversations, config.policy, batch=2, seed=7)
    first = sample(model, tokenizer, [conversations[3], conversations[1]], config.policy, seed=7)
    second = sample(model, tokenizer, [conversations[2], conversations[0]], config.policy, seed=8)
    (third,) = sample(model, tokenizer, [conversations[4]], config.policy, seed=9)
    by_hand = [second[1], first[1], second[0], first[0], third]
    assert len(chunked) == 5 and texts(chunked) == texts(by_hand)
    assert [len(s.prompt_ids) for s in chunked] == lengths
    whole = sample_in_chunks(model, tokenizer, conversations, config.policy, batch=5, seed=7)
    assert texts(whole) == texts(sample(model, tokenizer, conversations, config.policy, seed=7))
