"""Benchmark k: the trainer's update with each prompt computed once per micro-batch
(``optim.share_prompt``, the default) versus once per rollout, on the same rollouts.

SmolLM2-135M-Instruct samples P prompts × G completions of the starter training problems
once (the demo's shape: 4 × 6, at most 128 new tokens); then the learner's gradient pass over
that batch (``Learner.accumulate``: forward, loss, backward, micro-batch by micro-batch) is
timed both ways, alternating, ``--repeats`` times each, for every ``--micro`` size. The two
gradients are compared too (they must agree to float32 rounding).

    python benchmarks/shared_prompt.py [--prompts 4] [--group 6] [--tokens 128] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import report

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--group", type=int, default=6)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--micro", default="4,12", help="micro-batch sizes, comma-separated")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/shared_prompt.json"))
    args = parser.parse_args()

    import torch

    from execrl.problems.io import load_problems
    from execrl.rl.policy import load_policy, prompt_messages, sample
    from execrl.rl.train import load_config
    from execrl.rl.update import Learner, Rollout

    config = load_config("rlvr", None, [f"policy.max_new_tokens={args.tokens}"])
    torch.set_num_threads(config.optim.threads or len(os.sched_getaffinity(0)))
    model, tokenizer = load_policy(config.policy)
    problems = [p for p in load_problems("starter") if "train" in p.tags][: args.prompts]
    conversations = [prompt_messages(p) for p in problems for _ in range(args.group)]
    samples = sample(model, tokenizer, conversations, config.policy, seed=0)
    rollouts = [  # every row has signal; the advantages' values do not matter
        Rollout(s.prompt_ids, s.completion_ids, s.text, advantage=1.0 if i % 2 else -1.0)
        for i, s in enumerate(samples)
    ]
    prompt_tokens = sum(len(r.prompt_ids) for r in rollouts)
    completion_tokens = sum(len(r.completion_ids) for r in rollouts)

    def gradient_pass(micro: int, share: bool) -> tuple[float, dict]:
        optim = config.optim.model_copy(update={"micro_batch": micro, "share_prompt": share})
        learner = Learner(config.model_copy(update={"optim": optim}), model, tokenizer)
        model.zero_grad(set_to_none=True)
        start = time.perf_counter()
        learner.accumulate(learner.prepare(rollouts))
        seconds = time.perf_counter() - start
        grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
        return seconds, grads

    results = {}
    for micro in [int(m) for m in args.micro.split(",")]:
        times: dict[bool, list[float]] = {False: [], True: []}
        grads = {}
        for _ in range(args.repeats):
            for share in (False, True):
                seconds, grads[share] = gradient_pass(micro, share)
                times[share].append(seconds)
        error = max(
            float((grads[True][n] - g).norm() / g.norm().clamp(min=1e-30))
            for n, g in grads[False].items()
        )
        plain, shared = statistics.median(times[False]), statistics.median(times[True])
        results[f"micro_batch_{micro}"] = {
            "per_rollout_prompt_s": round(plain, 2),
            "shared_prompt_s": round(shared, 2),
            "speedup": round(plain / shared, 2),
            "max_relative_gradient_difference": f"{error:.1e}",
        }
    report(
        "shared prompt (k)",
        {
            "settings": vars(args) | {"out": str(args.out)},
            "threads": torch.get_num_threads(),
            "rollouts": len(rollouts),
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "results": results,
        },
        args.out,
    )


if __name__ == "__main__":
    main()
