"""execrl as OpenRLHF's reward: a ``--reward.remote_url`` file, and the body of ``execrl serve``'s
``POST /get_reward``.

OpenRLHF 0.11.2's ``SingleTurnAgentExecutor`` scores each rollout through
``--reward.remote_url`` (``--remote_rm_url`` in older OpenRLHF):

- a path ending in ``.py`` is loaded with ``importlib.util.spec_from_file_location("reward_func",
  path)`` and its ``reward_func(queries, prompts, labels)`` is called on a thread, one sample
  at a time. This file is such a file (it uses absolute imports only)::

      --reward.remote_url $(python -c "import execrl.integrations.openrlhf as m; print(m.__file__)")

- any other URL receives a POST of ``{"query": [...], "prompts": [...], "labels": [...]}``
  and its JSON answer's ``rewards``, ``scores`` and ``extra_logs`` are read. ``execrl serve``
  answers it at ``/get_reward`` (the path of OpenRLHF's own ``serve_rm``), on the server's
  executor: ``--reward.remote_url http://cpu-node:8000/get_reward``.

Both go through :func:`score_openrlhf_request` (the endpoint through its async form). A
``query`` is the decoded prompt and response (special tokens kept), ``prompts`` the prompt
text: the completion is the query after its prompt (the whole query when it does not start
with it), without trailing special tokens (``<|im_end|>``, ``</s>``); the program is its last
fenced block of the row's language (:func:`execrl.integrations.rows.completion_program`).

A ``label`` is execrl's label (:func:`execrl.integrations.rows.resolve_row`): the rows that
:func:`write_openrlhf_dataset` writes carry the whole problem, tests included, as a JSON
string; a reference ``{"problem_id", ...}``, APPS-style inline tests ``{"inputs",
"outputs", "fn_name"?}``, ``{"tests": [...]}`` and solver answers ``{"answer": ...}`` work too.

The answer: ``rewards`` (execrl's reward), ``scores`` (the same: OpenRLHF's dynamic filtering
reads it) and ``extra_logs``, one value per sample for every metric of
:data:`~execrl.integrations.rows.SCORE_KEYS` (solver rows:
:data:`~execrl.integrations.rows.SOLVER_SCORE_KEYS`). :func:`reward_func` returns torch
tensors (as OpenRLHF's examples do), the endpoint JSON lists.

**Inconclusive executions.** When the sandbox, not the program, failed, the reward is
``0.0`` **and** ``extra_logs["inconclusive"]`` is ``1.0``: filter on it, that 0.0 is no
verdict on the program. A malformed request or label raises
:class:`~execrl.errors.UsageError` naming the field (the endpoint answers it as a 422).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execrl.envs.multiturn import default_prompt
from execrl.errors import ExecrlError, UsageError
from execrl.integrations.executors import resolve_executor
from execrl.integrations.rows import (
    DEFAULT_ENV,
    DEFAULT_REWARD,
    SCORE_KEYS,
    SOLVER_SCORE_KEYS,
    Row,
    RowScore,
    ascore_row,
    resolve_row,
    row_label,
    score_rows,
)
from execrl.problems.models import Problem

if TYPE_CHECKING:
    from execrl.sandbox.protocol import Executor

REQUEST_KEYS = ("query", "prompts", "labels")
"""The fields of OpenRLHF's remote reward request (``prompts`` may be absent: the whole
query is then the completion)."""

_TRAILING_SPECIAL = re.compile(r"(?:\s*(?:<\|[^<>|\s]{1,64}\|>|</s>|<｜[^<>\s]{1,64}｜>))+\s*\Z")
"""Special tokens a decoded response ends with (``<|im_end|>``, ``<|endoftext|>``,
``<|eot_id|>``, ``</s>``, DeepSeek's ``<｜end▁of▁sentence｜>``)."""


# -- public API ------------------------------------------------------------------------------
def reward_func(
    queries: Sequence[str],
    prompts: Sequence[str] | None,
    labels: Sequence[Any],
    *,
    executor: Executor | str | None = None,
    workers: int | None = None,
    **defaults: Any,
) -> dict[str, Any]:
    """OpenRLHF's ``reward_func(queries, prompts, labels)``: ``{"rewards", "scores",
    "extra_logs": {metric: ...}}``, torch tensors (lists of floats without torch).

    ``executor``: an Executor or a spec (``"local"``, ``"http://host:port,..."`` for
    ``execrl serve`` servers, ``"ray"``), else ``$EXECRL_EXECUTOR``, else this process's
    local pool of ``workers`` sandboxes (``$EXECRL_VERL_WORKERS``). ``defaults``: ``env``,
    ``reward``, ``language`` for labels that name none."""
    payload = {"query": queries, "prompts": prompts, "labels": labels}
    pool = resolve_executor(executor, workers)
    return _as_tensors(score_openrlhf_request(payload, pool, defaults=defaults))


def score_openrlhf_request(
    payload: Mapping[str, Any], executor: Executor, *, defaults: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Score an OpenRLHF remote reward request ``{"query", "prompts", "labels"}`` on
    ``executor``: ``{"rewards": [...], "scores": [...], "extra_logs": {metric: [...]}}``, lists
    of floats in the request's order (every execution spread over the pool at once)."""
    completions, rows = openrlhf_rows(payload, defaults)
    return openrlhf_response(score_rows(completions, rows, executor=executor))


async def ascore_openrlhf_request(
    payload: Mapping[str, Any], executor: Executor, *, defaults: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """:func:`score_openrlhf_request` awaited on the caller's event loop (each sample through
    ``executor.arun``): what ``execrl serve``'s ``/get_reward`` runs."""
    completions, rows = openrlhf_rows(payload, defaults)
    pairs = zip(completions, rows, strict=True)
    runs = [ascore_row(completion, row, executor=executor) for completion, row in pairs]
    results = await asyncio.gather(*runs, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return openrlhf_response(results)  # type: ignore[arg-type]


def openrlhf_rows(
    payload: Mapping[str, Any], defaults: Mapping[str, Any] | None = None
) -> tuple[list[str], list[Row]]:
    """The completions and rows of a request (see the module's docstring); a
    :class:`~execrl.errors.UsageError` naming the field that is wrong (for a label, why)."""
    if not isinstance(payload, Mapping):
        raise UsageError(
            f"the request is a JSON {type(payload).__name__}, not an object with "
            "`query`, `prompts` and `labels`"
        )
    queries = _texts(payload, "query")
    labels = _list(payload, "labels")
    prompts = _texts(payload, "prompts") if payload.get("prompts") is not None else None
    for name, given in (("labels", labels), ("prompts", prompts)):
        if given is not None and len(given) != len(queries):
            raise UsageError(
                f"`{name}` has {len(given)} entries for {len(queries)} in `query`: "
                "send one per query"
            )
    rows = []
    for index, label in enumerate(labels):
        try:
            row = resolve_row(label, defaults=defaults)
        except ExecrlError as exc:
            raise UsageError(f"`labels[{index}]`: {exc}") from exc
        rows.append(row)
    completions = [
        openrlhf_completion(query, prompts[i] if prompts is not None else None)
        for i, query in enumerate(queries)
    ]
    return completions, rows


def openrlhf_completion(query: str, prompt: str | None) -> str:
    """The response in OpenRLHF's ``query`` (prompt and response decoded together): what
    follows ``prompt`` when the query starts with it, else the whole query; trailing special
    tokens removed."""
    text = query[len(prompt) :] if prompt and query.startswith(prompt) else query
    return _TRAILING_SPECIAL.sub("", text)


def openrlhf_response(scores: Sequence[RowScore]) -> dict[str, Any]:
    """``{"rewards", "scores", "extra_logs"}`` as JSON lists: the reward (0.0 when
    inconclusive) and every metric, one value per sample. Metrics a row lacks (a batch mixing
    code and solver rows) are 0.0 for it."""
    keys = list(dict.fromkeys(key for one in scores for key in one.metrics)) or list(SCORE_KEYS)
    rewards = [one.value for one in scores]
    return {
        "rewards": rewards,
        "scores": list(rewards),
        "extra_logs": {key: [float(one.metrics.get(key, 0.0)) for one in scores] for key in keys},
    }


def write_openrlhf_dataset(
    problems: Iterable[Problem],
    path: str | Path,
    *,
    env: str | Mapping[str, Any] = DEFAULT_ENV,
    reward: str | Mapping[str, Any] = DEFAULT_REWARD,
    language: str | None = None,
    inline: bool = True,
    problem_source: str | Path | None = None,
) -> Path:
    """Write ``problems`` as an OpenRLHF prompt dataset (JSONL): ``prompt`` (chat messages,
    for ``--data.input_key prompt --data.apply_chat_template``), ``label`` (execrl's label as
    a JSON string, for ``--data.label_key label``: with ``inline`` the whole problem, tests
    included, else a reference to it, with ``problem_source`` when given) and ``datasource``
    (``execrl/<dataset>``, which OpenRLHF logs by)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for problem in problems:
            label = row_label(
                problem,
                env=env,
                reward=reward,
                language=language,
                problem_source=problem_source,
                inline=inline,
            )
            row = {
                "prompt": default_prompt(problem),
                "label": json.dumps(label, sort_keys=True),
                "datasource": f"execrl/{problem.source.dataset}",
            }
            out.write(json.dumps(row) + "\n")
    return path


# -- helpers ---------------------------------------------------------------------------------
def _list(payload: Mapping[str, Any], name: str) -> list[Any]:
    value = payload.get(name)
    if not isinstance(value, list):
        given = "missing" if value is None else f"a {type(value).__name__}"
        raise UsageError(f"`{name}` is {given}: send a list, one entry per sample")
    return value


def _texts(payload: Mapping[str, Any], name: str) -> list[str]:
    values = _list(payload, name)
    for index, value in enumerate(values):
        if not isinstance(value, str):
            raise UsageError(f"`{name}[{index}]` is a {type(value).__name__}: send text")
    return values


def _as_tensors(response: dict[str, Any]) -> dict[str, Any]:
    """The lists as float32 tensors where torch is importable (OpenRLHF always has it)."""
    try:
        import torch
    except ImportError:
        return response

    def tensor(values: list[float]) -> Any:
        return torch.tensor(values, dtype=torch.float32)

    return {
        "rewards": tensor(response["rewards"]),
        "scores": tensor(response["scores"]),
        "extra_logs": {key: tensor(values) for key, values in response["extra_logs"].items()},
    }


__all__ = [
    "REQUEST_KEYS",
    "SCORE_KEYS",
    "SOLVER_SCORE_KEYS",
    "ascore_openrlhf_request",
    "openrlhf_completion",
    "openrlhf_response",
    "openrlhf_rows",
    "reward_func",
    "score_openrlhf_request",
    "write_openrlhf_dataset",
]
