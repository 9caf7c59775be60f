"""Model specs and sampling into a folder, without a model: a completions file is read, a bad
spec is refused before anything loads, and labels come from the spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execrl.errors import ExecrlError, UsageError
from execrl.evaluate import EvalFolder, ProblemChoice, SamplingSettings, open_sampler, sample_model
from execrl.evaluate.samplers import LOCAL_LABEL, default_label, is_completions_file, slug

PROBLEM = "sum-list"


def completions(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_labels_and_kinds_come_from_the_spec():
    assert slug("Qwen/Qwen2.5 Coder:7b") == "Qwen-Qwen2.5-Coder-7b" and slug("///") == "model"
    assert default_label("local") == LOCAL_LABEL and default_label("x") is None
    assert is_completions_file("a.jsonl") and is_completions_file("a.jsonl.gz")
    assert not is_completions_file("a.json")
    assert SamplingSettings(seed=3).recorded() == {
        "max_new_tokens": 512,
        "temperature": 0.8,
        "top_p": 0.95,
        "seed": 3,
    }


def test_a_completions_file_opens_no_sampler(tmp_path: Path):
    path = completions(tmp_path / "Model B.jsonl", [{"problem_id": "p", "code": "x"}])
    sampler, info = open_sampler(str(path), n=4)
    assert sampler is None
    assert (info.label, info.kind, info.model, info.n) == ("Model-B", "file", str(path), 0)
    with pytest.raises(ExecrlError, match="no such file of completions"):
        open_sampler(str(tmp_path / "missing.jsonl"), n=1)
    with pytest.raises(ExecrlError, match="is not 'local', a model folder, an http"):
        open_sampler(str(tmp_path / "nothing-here"), n=1)


def test_sample_model_from_completions_holds_the_problems_they_answer(
    tmp_path: Path, built_sum_problem_dir: Path
):
    rows = [{"problem_id": PROBLEM, "program": f"print({i})\n"} for i in range(3)]
    path = completions(tmp_path / "m.jsonl", rows)
    folder = EvalFolder(tmp_path / "ev")
    choice = ProblemChoice(str(built_sum_problem_dir.parent))
    sampled = sample_model(folder, str(path), n=1, choice=choice)
    assert sampled.path == tmp_path / "ev" / "samples" / "m.jsonl"
    assert (sampled.info.label, sampled.info.n) == ("m", 3)  # n: the most per problem
    assert [s.program for s in sampled.samples] == ["print(0)\n", "print(1)\n", "print(2)\n"]
    assert [p.id for p in sampled.problems] == [PROBLEM] and sampled.fenced == 0
    with pytest.raises(UsageError, match="already has samples from model 'm'"):
        sample_model(folder, str(path), n=1)
    again = sample_model(folder, str(path), n=1, replace=True)  # the folder's own problem set
    assert [p.id for p in again.problems] == [PROBLEM]
