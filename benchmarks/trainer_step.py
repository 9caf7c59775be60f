"""Benchmark h: one RL step of execrl's reference trainer vs TRL's GRPOTrainer, same work.

Both train SmolLM2-135M-Instruct on CPU on the same starter problems with the same reward
(execrl's ``rlvr`` environment, ``correctness`` reward, through execrl's TRL adapter for TRL):
P prompts × G completions of at most T new tokens per step, GRPO advantages, one optimizer
step per batch, AdamW, fp32, torch's default threads (one per core) for both. execrl's
trainer runs twice: with generation stopping when the code block closes (its default) and
without (the same token budget as TRL, which has no such stop). The first step of each is a
warm-up and not counted.

    python benchmarks/trainer_step.py [--steps 3] [--prompts 4] [--group 4] [--tokens 96]

Prints the median seconds per step and tokens generated per step, and the ratios to TRL.
execrl skips the backward pass of a step whose groups all have zero advantage (TRL runs it,
with a zero loss), so its median over the steps that did update is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import report

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def execrl_steps(args: argparse.Namespace, stop: bool) -> dict:
    from execrl.rl.train import Trainer, load_config

    config = load_config(
        "rlvr",
        None,
        [
            f"steps={args.steps + 1}",
            f"prompts_per_step={args.prompts}",
            f"group_size={args.group}",
            f"policy.max_new_tokens={args.tokens}",
            f"policy.stop_at_code_end={str(stop).lower()}",
            "eval.before=false",
            "eval.after=false",
            "optim.lr=1e-6",
        ],
    )
    times, tokens, updated = [], [], []
    with tempfile.TemporaryDirectory() as out, Trainer(config, out, progress=False) as trainer:
        for _ in range(config.steps):
            start = time.perf_counter()
            trainer.step()
            times.append(time.perf_counter() - start)
            row = trainer.history[-1]
            tokens.append(row["length_mean"] * args.prompts * args.group)
            updated.append(row["updated"])
    with_update = [t for t, u in zip(times[1:], updated[1:], strict=True) if u]
    return {
        "step_s": statistics.median(times[1:]),
        "step_s_with_update": statistics.median(with_update) if with_update else None,
        "steps_with_update": f"{len(with_update)}/{len(times) - 1}",
        "tokens_per_step": statistics.median(tokens[1:]),
    }


def trl_steps(args: argparse.Namespace) -> dict:
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from execrl.integrations import ExecrlRewardFunction, execrl_dataset
    from execrl.problems.io import load_problems
    from execrl.rl.generation import smollm2_path

    problems = [p for p in load_problems("starter") if "train" in p.tags]
    reward = ExecrlRewardFunction("rlvr", "correctness", problems=problems)
    times: list[float] = []
    lengths: list[float] = []

    class Clock(TrainerCallback):
        def on_step_begin(self, *a, **k):
            self.start = time.perf_counter()

        def on_step_end(self, *a, **k):
            times.append(time.perf_counter() - self.start)

        def on_log(self, _args, _state, _control, logs=None, **k):
            if logs and "completions/mean_length" in logs:
                lengths.append(logs["completions/mean_length"])

    with tempfile.TemporaryDirectory() as out:
        config = GRPOConfig(
            output_dir=out,
            max_steps=args.steps + 1,
            per_device_train_batch_size=args.prompts * args.group,
            num_generations=args.group,
            max_completion_length=args.tokens,
            learning_rate=1e-6,
            logging_steps=1,
            report_to=[],
            use_cpu=True,
            bf16=False,
            fp16=False,
            save_strategy="no",
            gradient_checkpointing=False,
            beta=0.0,
            seed=0,
        )
        trainer = GRPOTrainer(
            model=str(smollm2_path()),
            reward_funcs=reward,
            args=config,
            train_dataset=execrl_dataset(problems),
            callbacks=[Clock()],
        )
        trainer.train()
    reward.close()
    per_step = [m * args.prompts * args.group for m in lengths[1:]]
    return {
        "step_s": statistics.median(times[1:]),
        "tokens_per_step": statistics.median(per_step) if per_step else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--group", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/trainer_step.json"))
    args = parser.parse_args()
    trl = trl_steps(args)
    same_budget = execrl_steps(args, stop=False)
    default = execrl_steps(args, stop=True)
    result = {
        "settings": vars(args) | {"out": str(args.out)},
        "trl_grpo": trl,
        "execrl_no_stop": same_budget,
        "execrl_stop_at_code_end": default,
        "speedup_no_stop": round(trl["step_s"] / same_budget["step_s"], 2),
        "speedup_stop_at_code_end": round(trl["step_s"] / default["step_s"], 2),
    }
    report("trainer_step", result, args.out)


if __name__ == "__main__":
    main()
