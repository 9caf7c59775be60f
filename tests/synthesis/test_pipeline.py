"""The whole pipeline against a real scripted HTTP endpoint and the real solver sandbox: every
dropping rule fires on its scripted row, kept labels are reproduced by their programs, and a
run stopped at any stage resumes to the same files."""

from __future__ import annotations

from pathlib import Path

import pytest

from execrl.errors import UsageError
from execrl.problems.optim import load_optim_problems
from execrl.rewards.solver import parse_response, run_solver_code
from execrl.synthesis import Budget, RunSettings, SynthesisStopped, synthesize
from execrl.synthesis.rows import read_rows
from tests.synthesis.conftest import world_config, world_script, write_world_files
from tests.synthesis.scripted import ScriptedEndpoint

STAGE_FILES = [
    "generate",
    "augment",
    "judge",
    "solve",
    "repair",
    "label",
    "filter",
    "train",
    "train_meta",
]
RUN = RunSettings(concurrency=3, backoff_s=0.0)


def by_id(folder: Path, stage: str) -> dict[str, dict]:
    return {row["id"]: row for row in read_rows(folder / f"{stage}.jsonl")}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, seeds, executor):
    """One full run of the scripted world (its folder, its calls, its files' text)."""
    root = tmp_path_factory.mktemp("world")
    files = write_world_files(root)
    out = root / "run"
    with ScriptedEndpoint(world_script) as endpoint:
        result = synthesize(
            seeds, world_config(endpoint.url, files), out, run=RUN, executor=executor
        )
        calls = endpoint.calls
    return result, calls, files


def test_the_funnel_drops_each_scripted_row_for_its_reason(uninterrupted):
    result, _, _ = uninterrupted
    assert result.complete and result.stopped is None
    funnel = {s["stage"]: s for s in result.report["stages"]}
    assert [(s, funnel[s]["rows_in"], funnel[s]["rows_out"]) for s in funnel] == [
        ("generate", 7, 7),
        ("augment", 7, 14),
        ("judge", 14, 12),
        ("solve", 12, 12),
        ("repair", 12, 12),
        ("label", 12, 10),
        ("filter", 10, 3),
    ]
    assert funnel["judge"]["dropped"] == {"judge_rejected": 2}
    assert funnel["label"]["dropped"] == {"no_consensus": 2}
    assert funnel["filter"]["dropped"] == {
        "benchmark_duplicate": 2,
        "duplicate": 4,
        "too_easy": 1,
    }
    folder = result.folder
    judge = by_id(folder, "judge")
    assert judge["g0000"]["kept"] or judge["g0000"]["reason"] == "judge_rejected"
    rejected = [r for r in judge.values() if r["reason"] == "judge_rejected"]
    assert all("lunar canals are no business" in r["detail"] for r in rejected)
    assert all("marker-reject" in r["question"] for r in rejected)
    label = by_id(folder, "label")
    split = [r for r in label.values() if "marker-split" in r["question"]]
    assert all(r["reason"] == "no_consensus" and r["consensus"] < 0.75 for r in split)
    filt = by_id(folder, "filter")
    for row in filt.values():
        if "marker-bench" in row["question"]:
            assert row["reason"] == "benchmark_duplicate" and "nl4opt.jsonl" in row["detail"]
        elif row["id"].endswith("-modelling"):
            assert row["reason"] == "duplicate"
            assert row["detail"].endswith(f"with {row['id'].removesuffix('-modelling')}")
        elif "marker-easy" in row["question"]:
            assert row["reason"] == "too_easy" and row["baseline_right"] == 3
        else:
            assert row["kept"] and row["baseline_right"] == 0
    markers = sorted(q.split("marker-")[1] for q in _questions(folder / "train.jsonl"))
    assert markers == ["keep", "regen", "repair"]


def _questions(path: Path) -> list[str]:
    return [row["question"] for row in read_rows(path)]


def test_repair_and_regeneration_keep_every_attempt(uninterrupted):
    result, _, _ = uninterrupted
    repair = by_id(result.folder, "repair")
    for name, kind, first_status in (
        ("repair", "repair", "runtime_error"),
        ("regen", "regenerate", "completed"),
    ):
        (row,) = [
            r for r in repair.values() if f"marker-{name}" in r["question"] and "-" not in r["id"]
        ]
        attempts = row["solutions"][0]["attempts"]
        assert [a["kind"] for a in attempts] == ["solve", kind]
        assert attempts[0]["status"] == first_status
        assert attempts[1]["answer"] == 100.0 and attempts[1]["round"] == 1
        if name == "repair":
            assert "ValueError: scripted failure" in attempts[0]["detail"]
            assert "scripted failure" in attempts[1]["followup"]
        else:
            assert attempts[0]["answer"] == "infeasible" and "infeasible" in attempts[1]["followup"]
        assert all(len(s["attempts"]) == 1 for s in row["solutions"][1:])


def test_kept_rows_are_problems_whose_program_reproduces_the_label(uninterrupted, executor):
    result, _, _ = uninterrupted
    problems = load_optim_problems(result.train_file)  # execrl's own format, as train reads it
    meta = by_id(result.folder, "train_meta")
    assert len(problems) == 3
    for problem in problems:
        run = run_solver_code(parse_response(problem.reference).code, executor=executor)
        assert run.answer == problem.answer == 100.0
        assert (problem.direction, problem.n_binary, problem.n_integer) == ("max", 0, 0)
        assert problem.source == "synthesis" and problem.kind == "lp"
        info = meta[problem.id]
        assert info["consensus"] == 1.0
        assert info["provenance"]["templates"]["generate"] == "generate-v1"
        assert info["provenance"]["scenario"] in {"keep", "regen", "repair"}
        assert info["provenance"]["model"] == "gen"


def test_the_report_counts_costs_and_writes_html(uninterrupted):
    result, calls, _ = uninterrupted
    report = result.report
    assert (
        report["total_cost"]["calls"] == calls == 7 + 7 + 14 + 36 + 4 + 12
    )  # 4 repairs: 2 rows and their variants
    assert report["total_cost"]["executions"] == 36 + 4 + 12
    assert report["cost_per_kept_pair"]["calls"] == round(calls / 3, 3)
    assert sum(b["rows"] for b in report["consensus_histogram"]) == 12
    assert {e["reason"] for e in report["examples"]["dropped"]} == {
        "judge_rejected",
        "no_consensus",
        "benchmark_duplicate",
        "duplicate",
        "too_easy",
    }
    html = (result.folder / "report.html").read_text()
    assert "judge_rejected" in html and "Cost per kept pair" in html


@pytest.mark.parametrize(
    "budget",
    [Budget(max_calls=5), Budget(max_calls=40), Budget(max_executions=40)],
    ids=["generate", "solve", "filter"],
)
def test_a_stopped_run_resumes_to_the_same_files(uninterrupted, tmp_path, seeds, executor, budget):
    reference, calls, files = uninterrupted
    out = tmp_path / "run"
    with ScriptedEndpoint(world_script) as endpoint:
        config = world_config(endpoint.url, files)
        stopped = synthesize(
            seeds, config, out, run=RUN.model_copy(update={"budget": budget}), executor=executor
        )
        assert not stopped.complete and "run again with `resume`" in stopped.stopped
        assert stopped.report["status"].startswith("stopped")
        with pytest.raises(UsageError, match="already holds a run"):
            synthesize(seeds, config, out, run=RUN, executor=executor)
        _tear_last_line(out)  # a machine stopped mid-write
        resumed = synthesize(seeds, config, out, run=RUN, resume=True, executor=executor)
        assert resumed.complete
        assert endpoint.calls == calls  # nothing paid twice
    for name in STAGE_FILES:
        assert (out / f"{name}.jsonl").read_text() == (
            reference.folder / f"{name}.jsonl"
        ).read_text(), name


def _tear_last_line(folder: Path) -> None:
    written = [p for p in folder.glob("*.jsonl") if p.name not in ("costs.jsonl", "cache.jsonl")]
    if written:
        path = max(written, key=lambda p: p.stat().st_mtime_ns)
        with path.open("a") as f:
            f.write('{"id": "torn", "kep')


def test_an_endpoint_down_stops_naming_the_stage_and_row_then_resumes(
    uninterrupted, tmp_path, seeds, executor
):
    reference, _, files = uninterrupted
    out = tmp_path / "run"
    run = RUN.model_copy(update={"retries": 1})
    with ScriptedEndpoint(world_script) as endpoint:
        endpoint.down = True
        config = world_config(endpoint.url, files)
        with pytest.raises(SynthesisStopped) as stop:
            synthesize(seeds, config, out, run=run, executor=executor)
        assert str(stop.value).startswith("stage generate, row g0000: ")
        assert "HTTP 503" in str(stop.value) and "\n" not in str(stop.value)
        endpoint.down = False
        endpoint.fail_next = 2  # two 429s with Retry-After: 0, then answers
        patient = run.model_copy(update={"retries": 2})  # (both may hit one call)
        assert synthesize(seeds, config, out, run=patient, resume=True, executor=executor).complete
    assert (out / "train.jsonl").read_text() == reference.train_file.read_text()


def test_a_resume_with_other_settings_is_refused(uninterrupted, tmp_path, seeds, executor):
    _, _, files = uninterrupted
    out = tmp_path / "run"
    with ScriptedEndpoint(world_script) as endpoint:
        config = world_config(endpoint.url, files, n_generate=1)
        spent = RUN.model_copy(update={"budget": Budget(max_calls=0)})
        assert not synthesize(seeds, config, out, run=spent, executor=executor).complete
        other = world_config(endpoint.url, files, n_generate=2)
        with pytest.raises(UsageError, match="other settings"):
            synthesize(seeds, other, out, run=RUN, resume=True, executor=executor)
