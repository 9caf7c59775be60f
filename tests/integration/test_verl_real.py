"""execrl's reward inside the real verl 0.9.1: its Hydra config, its reward loading, and the
reward-loop manager ``main_ppo`` uses, on a local Ray cluster, on rows execrl wrote.

verl is not one of execrl's dependencies (it pins transformers <5.11 and packaging 25): these
tests are skipped unless verl 0.9 is importable. Run them in a venv with verl installed::

    python -m venv /tmp/verl-venv && /tmp/verl-venv/bin/pip install torch==2.13.0 verl==0.9.1
    /tmp/verl-venv/bin/pip install -e '.[serve]' pytest pyarrow
    /tmp/verl-venv/bin/pytest -p no:randomly tests/integration/test_verl_real.py   # ~2 min

What runs is verl's own code: ``hydra.compose`` of verl's ``ppo_trainer`` config (and of
``examples/verl/execrl_grpo.yaml``) with the documented ``reward.*`` keys,
``verl.trainer.ppo.reward.get_custom_reward_fn`` (how verl loads a custom reward), and
``RewardLoopManager.compute_rm_score`` (Ray actors ``RewardLoopWorker`` running the ``naive``
reward manager, which calls ``compute_score`` per sample on threads, or awaits it), and,
with no custom reward, verl's own ``sandbox_fusion`` reward posting to ``execrl serve``'s
``/run_code``. The only stand-in is the tokenizer: a byte-level one built here (no model is
downloaded), so a response decodes to exactly the text it was encoded from.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import json
import re
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

verl = pytest.importorskip("verl", reason="verl is not installed (see the module docstring)")
if not verl.__version__.startswith("0.9."):
    pytest.skip(f"these tests are for verl 0.9, found {verl.__version__}", allow_module_level=True)

import numpy as np  # noqa: E402
import ray  # noqa: E402
import torch  # noqa: E402
from hydra import compose, initialize_config_dir  # noqa: E402
from tensordict import TensorDict  # noqa: E402
from verl.experimental.reward_loop import RewardLoopManager  # noqa: E402
from verl.protocol import DataProto  # noqa: E402
from verl.trainer.ppo.reward import get_custom_reward_fn  # noqa: E402

from execrl.integrations.verl import SCORE_KEYS, compute_score, write_verl_dataset  # noqa: E402
from execrl.problems import load_bundled  # noqa: E402
from execrl.problems.models import ReferenceLabel  # noqa: E402
from execrl.sandbox.pool import LocalExecutor  # noqa: E402
from execrl.sandbox.records import Status  # noqa: E402

PROBLEMS = ["balanced-brackets", "anagram-groups"]
VERL_CONFIG = Path(verl.__file__).parent / "trainer" / "config"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "verl"
EXACT_KEYS = ("score", "c_cor", "tests_passed_fraction", "inconclusive")
"""The keys compared with execrl's own result (all deterministic for these programs)."""


# -- fixtures: a tokenizer, execrl's rows, the rollouts, execrl's own scores -----------------
@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory) -> Path:
    """A byte-level tokenizer saved as a Hugging Face folder (one token per byte, no merges):
    ``decode(encode(text)) == text``, which is all the reward path asks of it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {char: i for i, char in enumerate(alphabet)} | {"<pad>": 256, "<eos>": 257}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    folder = tmp_path_factory.mktemp("tokenizer")
    fast = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="<eos>")
    fast.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def rollouts(tmp_path_factory) -> list[tuple[dict, str]]:
    """(row, response) pairs: each problem's row as verl reads it back from execrl's parquet
    file, answered by a correct and by a wrong reference."""
    problems = load_bundled(PROBLEMS)
    path = write_verl_dataset(problems, tmp_path_factory.mktemp("verl") / "train.parquet")
    rows = {row["extra_info"]["problem_id"]: row for row in pq.read_table(path).to_pylist()}
    pairs = []
    for problem in problems:
        for label in (ReferenceLabel.CORRECT, ReferenceLabel.INCORRECT):
            code = problem.references_labelled(label)[0].code
            pairs.append((rows[problem.id], f"My answer:\n```python\n{code}```\nDone."))
    return pairs


@pytest.fixture(scope="module")
def expected(rollouts) -> list[dict[str, float]]:
    """execrl's own scores for the rollouts, computed in this process."""
    with LocalExecutor(workers=1) as pool:
        return [
            compute_score(row["data_source"], response, row["reward_model"]["ground_truth"],
                          row["extra_info"], executor=pool)
            for row, response in rollouts
        ]  # fmt: skip


@pytest.fixture(scope="module")
def ray_cluster():
    """A Ray cluster on this machine, for this module only."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


# -- verl's config -----------------------------------------------------------------------------
def documented_overrides() -> list[str]:
    """The ``reward.*`` overrides of examples/verl/run_grpo.sh, as a user would pass them."""
    script = (EXAMPLES / "run_grpo.sh").read_text()
    script = re.sub(r'"?\$\{\w+:-([^}]*)\}"?', r"\1", script)  # "${VAR:-default}" -> default
    return re.findall(r"^\s*(\+?reward\.\S+=\S+)", script, flags=re.MULTILINE)


def verl_config(tokenizer_dir: Path, overrides: list[str]):
    """verl's ``ppo_trainer`` config composed by Hydra with ``overrides``, as ``main_ppo``
    receives it, with the model path pointing at the local tokenizer."""
    with initialize_config_dir(config_dir=str(VERL_CONFIG), version_base=None):
        return compose(
            config_name="ppo_trainer",
            overrides=[f"actor_rollout_ref.model.path={tokenizer_dir}", *overrides],
        )


def test_documented_overrides_load_execrl(tokenizer_dir, rollouts, expected):
    overrides = documented_overrides()
    assert "reward.custom_reward_function.path=pkg://execrl.integrations.verl" in overrides
    config = verl_config(tokenizer_dir, overrides)
    fn = get_custom_reward_fn(config)
    assert fn is not None and fn.args[0].__module__ == "execrl.integrations.verl"
    assert inspect.iscoroutinefunction(fn)  # what the naive manager checks before awaiting
    assert config.reward.reward_manager.name == "naive"


def test_legacy_keys_are_ignored_by_verl_091(tokenizer_dir):
    # The keys older verl documented: main_ppo never reads them, so verl would fall back to
    # default_compute_score (NotImplementedError for execrl/... data sources).
    config = verl_config(
        tokenizer_dir,
        [
            "custom_reward_function.path=pkg://execrl.integrations.verl",
            "custom_reward_function.name=compute_score",
        ],
    )
    assert get_custom_reward_fn(config) is None


def test_example_config_file_composes(tokenizer_dir):
    with initialize_config_dir(config_dir=str(EXAMPLES), version_base=None):
        config = compose(
            config_name="execrl_grpo",
            overrides=[f"actor_rollout_ref.model.path={tokenizer_dir}"],
        )
    fn = get_custom_reward_fn(config)
    assert fn is not None and fn.args[0].__name__ == "compute_score_async"
    assert config.algorithm.adv_estimator == "grpo"
    assert dict(config.reward.custom_reward_function.reward_kwargs) == {"executor": "local"}


# -- verl's reward loop on a Ray cluster -----------------------------------------------------
def rollout_batch(rollouts: list[tuple[dict, str]], tokenizer_dir: Path) -> DataProto:
    """The DataProto verl's trainer hands the reward loop: left-padded prompts, right-padded
    responses, the attention mask over both, and each row's non-tensor fields."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    prompts = [tokenizer.encode(row["prompt"][-1]["content"][:64]) for row, _ in rollouts]
    responses = [tokenizer.encode(response) for _, response in rollouts]
    width_p, width_r = max(map(len, prompts)), max(map(len, responses))
    pad = tokenizer.pad_token_id

    def padded(ids: list[int], width: int, left: bool) -> tuple[list[int], list[int]]:
        fill = [pad] * (width - len(ids))
        mask = [1] * len(ids)
        if left:
            return fill + ids, [0] * len(fill) + mask
        return ids + fill, mask + [0] * len(fill)

    p = [padded(ids, width_p, left=True) for ids in prompts]
    r = [padded(ids, width_r, left=False) for ids in responses]
    batch = TensorDict(
        {
            "prompts": torch.tensor([ids for ids, _ in p]),
            "responses": torch.tensor([ids for ids, _ in r]),
            "attention_mask": torch.tensor(
                [pm + rm for (_, pm), (_, rm) in zip(p, r, strict=True)]
            ),
        },
        batch_size=len(rollouts),
    )
    fields = ("data_source", "reward_model", "extra_info")
    non_tensor = {
        name: np.array([row[name] for row, _ in rollouts], dtype=object) for name in fields
    }
    return DataProto(batch=batch, non_tensor_batch=non_tensor)


@pytest.mark.parametrize(
    ("function", "where"),
    [
        ("compute_score", "local"),
        ("compute_score_async", "local"),
        ("compute_score_async", "serve"),
        ("compute_score_async", "ray"),
    ],
)
def test_reward_loop_gives_execrl_rewards(
    function, where, ray_cluster, tokenizer_dir, rollouts, expected
):
    # verl's trainer path: RewardLoopManager starts reward.num_workers RewardLoopWorker actors,
    # each loads the custom reward from the config and scores its chunk of the batch.
    with contextlib.ExitStack() as stack:
        executor = "local" if where == "local" else "ray"
        if where == "serve":
            pytest.importorskip("fastapi", reason="execrl serve needs the serve extra")
            executor = stack.enter_context(_server_module().running_server(workers=2)).url
        output = _reward_loop(function, executor, tokenizer_dir, rollouts)
    rewards = output.batch["rm_scores"].sum(dim=1).tolist()
    assert rewards == [one["score"] for one in expected] == [1.0, -1.0, 1.0, -1.0]
    assert tuple(output.meta_info["reward_extra_keys"]) == SCORE_KEYS
    for key in EXACT_KEYS:
        assert output.non_tensor_batch[key].tolist() == [one[key] for one in expected], key


def _reward_loop(function: str, executor: str, tokenizer_dir: Path, rollouts) -> DataProto:
    """The rollouts scored by verl's RewardLoopManager, configured with the documented
    overrides, ``function`` and ``executor``, on two reward workers of one sandbox each."""
    documented = [o for o in documented_overrides() if not re.search(_REPLACED, o)]
    overrides = [
        *documented,
        f"reward.custom_reward_function.name={function}",
        f"+reward.custom_reward_function.reward_kwargs.executor={executor}",
        "+reward.custom_reward_function.reward_kwargs.workers=1",
    ]
    if executor.startswith("http"):  # a server runs the workers it was started with
        overrides.pop()
    return _run_reward_loop(overrides, tokenizer_dir, rollouts)


def _run_reward_loop(overrides: list[str], tokenizer_dir: Path, rollouts) -> DataProto:
    """verl's RewardLoopManager, with two reward workers, on the rollouts."""
    config = verl_config(tokenizer_dir, [*overrides, "reward.num_workers=2"])
    manager = RewardLoopManager(config)
    try:
        return manager.compute_rm_score(rollout_batch(rollouts, tokenizer_dir))
    finally:
        for worker in manager.reward_loop_workers:  # names are reused by the next manager
            ray.kill(worker)


def test_verl_sandbox_fusion_reward_against_execrl_serve(ray_cluster, tokenizer_dir):
    # No custom reward: verl's own sandbox_fusion reward for a codecontests row posts every
    # test to the URL; execrl serve's /run_code answers it as SandboxFusion would.
    problem = load_bundled([PROBLEMS[0]])[0]
    tests = problem.tests[:10]  # verl's continuous score counts the first 10
    truth = {"inputs": [t.input for t in tests], "outputs": [t.output for t in tests]}
    row = {
        "data_source": "codecontests",
        "prompt": [{"role": "user", "content": problem.statement}],
        "reward_model": {"style": "rule", "ground_truth": json.dumps(truth)},
        "extra_info": {"index": 0},
    }
    labels = (ReferenceLabel.CORRECT, ReferenceLabel.INCORRECT)
    programs = [problem.references_labelled(label)[0].code for label in labels]
    with LocalExecutor(workers=1) as pool:  # execrl's own count of the tests each passes
        passed = [
            sum(r.status is Status.SUCCESS for r in pool.run(code, tests).results) / len(tests)
            for code in programs
        ]
    rollouts = [(row, f"```python\n{code}```") for code in programs]
    with _server_module().running_server(workers=2) as server:
        output = _run_reward_loop(
            [f"reward.sandbox_fusion.url={server.url}/run_code"], tokenizer_dir, rollouts
        )
    assert output.batch["rm_scores"].sum(dim=1).tolist() == pytest.approx(passed, abs=1e-6)
    assert passed[0] == 1.0 and passed[1] < 1.0


def _server_module():
    """tests/service/_server.py (a real ``execrl serve`` in a subprocess), loaded from its
    path: verl 0.9.1 installs a top-level ``tests`` package of its own, which shadows this
    repository's ``tests`` namespace package."""
    path = Path(__file__).resolve().parents[1] / "service" / "_server.py"
    if (module := sys.modules.get("execrl_test_server")) is None:
        spec = importlib.util.spec_from_file_location("execrl_test_server", path)
        module = sys.modules["execrl_test_server"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # registered first: its dataclasses look it up
    return module


_REPLACED = r"function\.name=|num_workers=|reward_kwargs\.executor="
"""The documented overrides each reward-loop test sets itself."""
