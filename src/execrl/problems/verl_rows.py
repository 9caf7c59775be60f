"""RL-training rows that carry their tests inline: verl's and rllm/DeepCoder's.

**verl rows** (the ``prime_code`` / ``sandbox_fusion`` reward functions' data)::

    {"data_source": "codecontests", "prompt": [{"role": "user", "content": "..."}],
     "ability": "code", "reward_model": {"style": "rule", "ground_truth": "<JSON>"},
     "extra_info": {"split": "train", "index": 7}}

- ``reward_model.ground_truth`` (a JSON string or an object) ``{"inputs": [...],
  "outputs": [...], "fn_name"?: str}``: the APPS convention, read exactly as the TACO/APPS
  loader reads ``input_output`` (with ``fn_name``, call tests whose inputs are argument
  lists; without, stdio tests). Checker: the APPS harness's (prime_code's ``testing_util``
  is APPS's), with ``stdin_as_function``.
- ``prompt`` (a chat list: the last user message; or a plain string) → statement.
- id: ``<data_source>-<extra_info.index>`` (else the row number); ``data_source``,
  ``ability`` and ``extra_info`` → ``source``.

**rllm / DeepCoder rows** ``{"problem": str, "tests": ..., "metadata"?: ..., "solutions"?}``,
``tests`` a list or a JSON string of one of:

- ``{"input", "output", "testtype": "stdin" | "functional"}`` (the LiveCodeBench form;
  functional inputs are JSON lines, the function is ``metadata.func_name``) → LiveCodeBench's
  checker;
- ``{"type": "stdin_stdout" | "function_call", "input", "output", "fn_name"?}`` (the
  PrimeIntellect form; a call's input is the argument list) → the APPS checker;
- an object ``{"inputs", "outputs", "fn_name"?}`` (the TACO/APPS form) → the APPS checker,
  with ``stdin_as_function``.

``problem`` → statement; ``solutions`` (when present) → correct references; id
``<prefix>-<row number>`` or the row's ``id`` / ``problem_id``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execrl.errors import LoaderError
from execrl.problems._rows import convert_rows, decode_json_field, slugify
from execrl.problems._validation import parse_problem
from execrl.problems.livecodebench import _test as lcb_test
from execrl.problems.models import Problem
from execrl.problems.taco import call_test_dict, stdio_text

APPS_CHECKER = {"kind": "apps"}


def load_verl_rows(path: str | Path) -> list[Problem]:
    """Load verl code rows (``reward_model.ground_truth``) from .parquet, .jsonl or .json."""
    prefix = slugify(Path(path).name.split(".")[0])
    return convert_rows(
        path,
        lambda index, where, row: parse_problem(
            verl_row_to_dict(row, where, f"{prefix}-{index}"), where=where
        ),
        dataset="verl",
    )


def load_deepcoder_rows(path: str | Path) -> list[Problem]:
    """Load rllm/DeepCoder ``{problem, tests}`` rows from .parquet, .jsonl or .json."""
    prefix = slugify(Path(path).name.split(".")[0])
    return convert_rows(
        path,
        lambda index, where, row: parse_problem(
            deepcoder_row_to_dict(row, where, f"{prefix}-{index}"), where=where
        ),
        dataset="rllm/DeepCoder",
    )


def verl_row_to_dict(row: dict[str, Any], where: str, fallback_id: str) -> dict[str, Any]:
    reward_model = row.get("reward_model")
    if not isinstance(reward_model, dict) or "ground_truth" not in reward_model:
        raise LoaderError(f"{where}: verl row has no 'reward_model.ground_truth'")
    truth = decode_json_field(
        reward_model["ground_truth"], where=where, field="reward_model.ground_truth"
    )
    if not isinstance(truth, dict):
        raise LoaderError(
            f"{where}: reward_model.ground_truth should be an object with 'inputs' and "
            f"'outputs', got {type(truth).__name__}"
        )
    extra_info = row.get("extra_info") if isinstance(row.get("extra_info"), dict) else {}
    data_source = str(row.get("data_source") or "verl")
    index = extra_info.get("index")
    problem_id = slugify(f"{data_source}-{index}") if index is not None else fallback_id
    data = {
        "id": problem_id,
        "title": problem_id,
        "statement": _prompt_text(row.get("prompt")),
        **apps_tests(truth, where),
        "source": {
            "dataset": data_source,
            "id": None if index is None else str(index),
            "extra": {k: row[k] for k in ("ability", "extra_info") if row.get(k) not in (None, "")},
        },
    }
    return data


def deepcoder_row_to_dict(row: dict[str, Any], where: str, fallback_id: str) -> dict[str, Any]:
    if "tests" not in row:
        raise LoaderError(f"{where}: {{problem, tests}} row has no 'tests'")
    tests = decode_json_field(row["tests"], where=where, field="tests")
    metadata = decode_json_field(row.get("metadata"), where=where, field="metadata") or {}
    if not isinstance(metadata, dict):
        metadata = {}
    if isinstance(tests, dict):
        mapped = apps_tests(tests, where)
    elif isinstance(tests, list):
        mapped = _listed_tests(tests, metadata.get("func_name"), where)
    else:
        raise LoaderError(f"{where}: 'tests' should be a list or an object, got {tests!r:.60}")
    raw_id = row.get("id") or row.get("problem_id")
    solutions = decode_json_field(row.get("solutions"), where=where, field="solutions") or []
    return {
        "id": slugify(str(raw_id)) if raw_id not in (None, "") else fallback_id,
        "title": str(raw_id or fallback_id),
        "statement": str(row.get("problem") or row.get("question") or ""),
        **mapped,
        "references": [
            {"name": f"solution-{i}", "code": code, "label": "correct"}
            for i, code in enumerate(solutions)
            if isinstance(code, str) and code.strip()
        ],
        "source": {
            "dataset": str(row.get("data_source") or row.get("dataset") or "deepcoder"),
            "id": None if raw_id in (None, "") else str(raw_id),
            "extra": {"metadata": metadata} if metadata else {},
        },
    }


def apps_tests(truth: dict[str, Any], where: str) -> dict[str, Any]:
    inputs, outputs = truth.get("inputs") or [], truth.get("outputs") or []
    if len(inputs) != len(outputs):
        raise LoaderError(f"{where}: tests have {len(inputs)} inputs but {len(outputs)} outputs")
    fn_name = truth.get("fn_name") or None
    pairs = list(zip(inputs, outputs, strict=True))
    if fn_name:
        tests = [call_test_dict(i, fn_name, a, e) for i, (a, e) in enumerate(pairs)]
    else:
        tests = [
            {"kind": "stdio", "id": f"test-{i}", "input": stdio_text(a), "output": stdio_text(e)}
            for i, (a, e) in enumerate(pairs)
        ]
    return {
        "tests": tests,
        "entry_point": fn_name,
        "checker": APPS_CHECKER,
        "stdin_as_function": not fn_name,
    }


def _listed_tests(cases: list[Any], func_name: str | None, where: str) -> dict[str, Any]:
    if not cases:
        return {"tests": [], "entry_point": func_name}
    if not all(isinstance(c, dict) for c in cases):
        raise LoaderError(f"{where}: each entry of 'tests' should be an object")
    if "testtype" in cases[0]:  # the LiveCodeBench form
        tests = [lcb_test(c, f"test-{i}", func_name, where) for i, c in enumerate(cases)]
        return {"tests": tests, "entry_point": func_name, "checker": {"kind": "livecodebench"}}
    tests = []
    for i, case in enumerate(cases):
        kind = case.get("type", "stdin_stdout")
        if kind == "stdin_stdout":
            tests.append(
                {
                    "kind": "stdio",
                    "id": f"test-{i}",
                    "input": stdio_text(case.get("input", "")),
                    "output": stdio_text(case.get("output", "")),
                }
            )
        elif kind == "function_call":
            fn_name = case.get("fn_name") or func_name
            if not fn_name:
                raise LoaderError(f"{where}: tests[{i}] is a function_call without 'fn_name'")
            func_name = func_name or fn_name
            tests.append(call_test_dict(i, fn_name, case.get("input"), case.get("output")))
        else:
            raise LoaderError(f"{where}: tests[{i}] has unknown type {kind!r}")
    return {"tests": tests, "entry_point": func_name, "checker": APPS_CHECKER}


def _prompt_text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        users = [m.get("content", "") for m in prompt if isinstance(m, dict)]
        users = [
            m.get("content", "") for m in prompt if isinstance(m, dict) and m.get("role") == "user"
        ] or users
        return str(users[-1]) if users else ""
    if prompt is None:
        return ""
    return json.dumps(prompt)
