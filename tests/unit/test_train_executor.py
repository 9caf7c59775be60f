"""The trainer's scoring runs on the executor the trainer holds: the one it opened (with
``config.workers``) when none was given, never a pool of the scorer's own. (The bug this
guards: the scorer was built with the constructor argument, None, instead of
``self.executor``, so every scoring call opened a pool of one worker per core.)"""

from __future__ import annotations

import threading

import pytest

from execrl.rl.train import Trainer, load_config
from tests.integration._training import MISSING, TINY

pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}")

RIGHT = "```python\ndef is_even(n):\n    return n % 2 == 0\n```"
WRONG = "```python\ndef is_even(n):\n    return n % 2 == 1\n```"


def _count_requests(executor) -> list[int]:
    """Count what ``executor`` (a real LocalExecutor) runs, from here on: every batch goes
    through its ``execute``, once per request."""
    count, lock, run = [0], threading.Lock(), executor.execute

    def execute(request):
        with lock:
            count[0] += 1
        return run(request)

    executor.execute = execute
    return count


@pytest.mark.parametrize("kind", ["score", "dense"])
def test_every_scoring_call_runs_on_the_executor_the_trainer_opened(tmp_path, kind):
    overrides = [*TINY, "workers=1", f"reward.kind={kind}"]
    overrides += ["loss.advantage=dense"] if kind == "dense" else []
    with Trainer(load_config("rlvr", None, overrides), tmp_path, progress=False) as trainer:
        assert trainer.executor.workers == 1  # config.workers, in the pool it opened
        assert trainer.scorer.executor is trainer.executor
        executed = _count_requests(trainer.executor)
        scores = trainer.scorer.score(["is-even"], [[RIGHT, WRONG]])
        assert executed[0] == 2 and scores[0].passed == [True, False]
        assert trainer.scorer.passed(["is-even", "is-even"], [WRONG, RIGHT]) == [False, True]
        assert executed[0] == 4  # the held-out judgement too
