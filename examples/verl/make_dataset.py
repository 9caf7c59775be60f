"""Write execrl's bundled problems as verl parquet files (train and validation).

    python examples/verl/make_dataset.py data/execrl

Each row's ground truth names its problem, environment and reward; verl hands it back to
``execrl.integrations.verl.compute_score`` at training time. For your own problems, load
them with ``execrl.problems.load_problems(path)`` and pass ``problem_source=path`` (or set
``$EXECRL_PROBLEMS`` where verl's reward workers run).
"""

from __future__ import annotations

import sys
from pathlib import Path

from execrl.integrations.verl import write_verl_dataset
from execrl.problems import load_bundled


def main(folder: str) -> None:
    problems = load_bundled()
    cut = max(1, len(problems) // 10)  # hold out a tenth for validation
    out = Path(folder)
    for split, rows in (("train", problems[cut:]), ("val", problems[:cut])):
        path = write_verl_dataset(rows, out / f"{split}.parquet", split=split)
        print(f"{path}: {len(rows)} problems")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/execrl")
