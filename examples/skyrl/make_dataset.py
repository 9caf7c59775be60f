"""Write execrl's bundled problems as SkyRL parquet files (train and validation).

    python examples/skyrl/make_dataset.py data/execrl-skyrl            # single-turn
    python examples/skyrl/make_dataset.py data/execrl-skyrl --turns 3  # repair episodes

Each row's ``env_class`` is ``execrl`` (one turn) or ``execrl-multiturn``; its
``reward_spec.ground_truth`` names the problem (``inline=False``: the bundled set ships with
execrl, so every SkyRL worker has it). For your own problems, load them with
``execrl.problems.load_problems(path)`` and either pass ``problem_source=path`` (the path
must exist where SkyRL runs) or keep ``inline=True``, the default, which puts each problem,
tests included, in its row: no files needed, but rows as large as the tests (the bundled
set inline is about 300 MB).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from execrl.integrations.skyrl import write_skyrl_dataset
from execrl.problems import load_bundled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="data/execrl-skyrl")
    parser.add_argument("--turns", type=int, default=1, help="max turns per episode")
    parser.add_argument("--env", default="mc", help="execrl environment (default mc)")
    parser.add_argument("--reward", default="collapsed", help="execrl reward (default collapsed)")
    args = parser.parse_args()
    problems = load_bundled()
    cut = max(1, len(problems) // 10)  # hold out a tenth for validation
    out = Path(args.folder)
    for split, rows in (("train", problems[cut:]), ("validation", problems[:cut])):
        path = write_skyrl_dataset(
            rows,
            out / f"{split}.parquet",
            env=args.env,
            reward=args.reward,
            max_turns=args.turns,
            split=split,
            inline=False,
        )
        print(f"{path}: {len(rows)} problems")


if __name__ == "__main__":
    main()
