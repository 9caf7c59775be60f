"""``execrl solver`` end to end: score, eval, check and features on the fixture set, through
the real sandbox. The command group is registered the way main.py registers every group."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

from execrl.cli import solver as solver_cmd
from execrl.cli._common import EXIT_CHECK_FAILED, EXIT_EXECRL_FAILED, EXIT_OK
from execrl.errors import ExecrlError
from execrl.problems.optim import load_optim_problems

for module in ("highspy", "pulp", "ortools"):
    pytest.importorskip(module)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "optim"
PROBLEMS = FIXTURES / "problems.jsonl"


def execrl(*argv: str) -> int:
    """What ``execrl.cli.main.main`` does, with the solver group registered."""
    parser = argparse.ArgumentParser(prog="execrl")
    solver_cmd.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    try:
        return args.handler(args)
    except ExecrlError as exc:
        print(f"{type(exc).__name__}: {exc}")
        return EXIT_EXECRL_FAILED


@pytest.fixture(scope="module")
def problems():
    return {p.id: p for p in load_optim_problems(PROBLEMS)}


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_score(problems, tmp_path):
    furniture, depots = problems["furniture-lp"], problems["depots-fixed-charge"]
    responses = write_rows(
        tmp_path / "responses.jsonl",
        [
            {"problem_id": "furniture-lp", "response": furniture.reference},
            {"problem_id": "furniture-lp", "response": furniture.incorrect[2].response},
            {"problem_id": "depots-fixed-charge", "response": depots.reference},
        ],
    )
    out = tmp_path / "scores.jsonl"
    code = execrl(
        *("solver", "score", str(responses), "--problems", str(PROBLEMS)),
        *("--stage", "2", "--workers", "2", "--out", str(out)),
    )
    assert code == EXIT_OK
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["problem_id"], r["reward"], r["verdict"]) for r in rows] == [
        ("furniture-lp", 3.5, "correct"),
        ("furniture-lp", 0.5, "execution_error"),
        ("depots-fixed-charge", 4.5, "correct"),
    ]
    assert rows[2]["features"]["n_binary"] == 2


def test_eval_with_k_samples_report_and_plot(problems, tmp_path, capsys):
    furniture, trucks = problems["furniture-lp"], problems["trucks-integer"]
    rows = [
        {"problem_id": "furniture-lp", "response": furniture.reference},
        {"problem_id": "furniture-lp", "response": furniture.incorrect[1].response},  # no code
        {"problem_id": "trucks-integer", "response": trucks.reference},
        {"problem_id": "trucks-integer", "response": trucks.incorrect[0].response},  # 184
    ]
    responses = write_rows(tmp_path / "responses.jsonl", rows)
    report, plot = tmp_path / "report.json", tmp_path / "breakdown.png"
    code = execrl(
        *("solver", "eval", str(responses), "--problems", str(PROBLEMS), "--workers", "2"),
        *("--out", str(report), "--plot", str(plot)),
    )
    assert code == EXIT_OK
    overall = json.loads(report.read_text())["overall"]
    assert overall["pass_at_1"] == 0.5  # (1/2 + 1/2) / 2
    assert overall["execution_rate"] == 0.75  # 3 of 4 ran and reported a value
    assert overall["breakdown"] == {
        "correct": 2,
        "wrong_answer": 1,
        "execution_error": 0,
        "timeout": 0,
        "extraction_failed": 1,
        "solver_unavailable": 0,
        "inconclusive": 0,
    }
    assert plot.stat().st_size > 1000
    assert "pass@1" in capsys.readouterr().out


MOSEK_RESPONSE = (
    "<think>t</think><model>m</model><python>\nimport mosek\nprint('objective:', 1)\n</python>"
)


@pytest.mark.skipif(importlib.util.find_spec("mosek") is not None, reason="mosek present")
def test_eval_reports_a_missing_solver_as_such(tmp_path, capsys):
    """Regression (issue 17): responses for a solver that is not installed were "0.0% exec
    rate, N execution_error" with no word of the solver. They are solver_unavailable, left out
    of the rates, and a warning names the solver and how to install it."""
    rows = [{"problem_id": "p", "response": MOSEK_RESPONSE, "answer": 1.0}] * 2
    rows += [{"problem_id": "q", "response": "<python>print('objective: 2')</python>", "answer": 2}]
    report = tmp_path / "report.json"
    code = execrl(
        "solver", "eval", str(write_rows(tmp_path / "r.jsonl", rows)), "--out", str(report)
    )
    assert code == EXIT_OK
    overall = json.loads(report.read_text())["overall"]
    assert overall["breakdown"]["solver_unavailable"] == 2
    assert overall["breakdown"]["execution_error"] == 0
    assert overall["unavailable_solvers"] == {"mosek": 2}
    assert (overall["pass_at_1"], overall["execution_rate"]) == (1.0, 1.0)
    out = " ".join(capsys.readouterr().out.split())
    assert "warning: 2 samples need mosek, which is not available here" in out
    assert "install it with: install mosek with a MOSEK licence" in out
    scores = tmp_path / "scores.jsonl"
    rows_file = tmp_path / "r.jsonl"
    assert execrl("solver", "score", str(rows_file), "--out", str(scores)) == EXIT_OK
    verdicts = [json.loads(line)["verdict"] for line in scores.read_text().splitlines()]
    assert verdicts == ["solver_unavailable", "solver_unavailable", "correct"]
    assert [json.loads(line)["reward"] for line in scores.read_text().splitlines()][:2] == [
        None
    ] * 2
    out = " ".join(capsys.readouterr().out.split())
    assert "warning: 2 samples need mosek" in out and "no reward (left out of the mean)" in out


def test_score_with_a_site_path_imports_a_solver_installed_elsewhere(tmp_path, capsys):
    site = tmp_path / "site"
    (site / "mosek").mkdir(parents=True)
    (site / "mosek" / "__init__.py").write_text("def solve():\n    return 1.0\n")
    response = MOSEK_RESPONSE.replace("1)", "mosek.solve())")
    rows = write_rows(
        tmp_path / "r.jsonl", [{"problem_id": "p", "response": response, "answer": 1}]
    )
    out = tmp_path / "scores.jsonl"
    argv = ("solver", "score", str(rows), "--out", str(out), "--site-path", str(site))
    assert execrl(*argv) == EXIT_OK
    assert json.loads(out.read_text())["verdict"] == "correct"
    assert execrl("solver", "score", str(rows), "--site-path", str(tmp_path / "none")) == 2
    assert "--site-path" in capsys.readouterr().out


def test_eval_tolerance_presets_and_answer_conventions(tmp_path):
    """ORLM's rule (rounded, relative 5%) is a named preset; SIRL's printed line is read with
    --answers sirl."""
    response = "<python>print('Best objective 103.4')</python>"
    rows = write_rows(
        tmp_path / "r.jsonl", [{"problem_id": "p", "response": response, "answer": 100}]
    )
    report = tmp_path / "report.json"

    def pass_at_1(*flags: str) -> float | None:
        assert execrl("solver", "eval", str(rows), "--out", str(report), *flags) == EXIT_OK
        return json.loads(report.read_text())["overall"]["pass_at_1"]

    assert pass_at_1("--answers", "sirl", "--tolerance", "orlm-rounded-5pct") == 1.0
    assert pass_at_1("--answers", "sirl") == 0.0  # strict-relative by default
    assert pass_at_1("--tolerance", "orlm-rounded-5pct") == 0.0  # execrl lines only: no answer


def test_check_passes_on_the_fixtures_and_fails_on_a_broken_reference(problems, tmp_path):
    assert execrl("solver", "check", str(PROBLEMS), "--timeout-s", "3") == EXIT_OK
    broken = problems["trucks-integer"].model_copy(
        update={"reference": problems["trucks-integer"].incorrect[0].response, "incorrect": []}
    )
    path = tmp_path / "broken.jsonl"
    path.write_text(broken.model_dump_json() + "\n")
    assert execrl("solver", "check", str(path)) == EXIT_CHECK_FAILED


def test_features(capsys):
    assert execrl("solver", "features", str(FIXTURES / "pulp_mip.lp")) == EXIT_OK
    out = capsys.readouterr().out
    assert "big_m_rows" in out and "['link']" in out and "advanced" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("solver", "score", "missing.jsonl"), "missing.jsonl: no such file"),
        (("solver", "features", "missing.lp"), "missing.lp: no such file"),
        (("solver", "check", "bundled", "--id", "nope"), "no problem with id 'nope'"),
        (("solver", "check", str(PROBLEMS), "--timeout-s", "0"), "--timeout-s 0: must be more"),
        (("solver", "check", str(PROBLEMS), "--workers", "0"), "--workers must be at least 1"),
        (("solver", "eval", "r.jsonl", "--tolerance-value", "-1"), "--tolerance-value must be"),
    ],
)
def test_user_mistakes_are_one_line_errors(argv, message, capsys):
    assert execrl(*argv) == EXIT_EXECRL_FAILED
    out = capsys.readouterr().out
    assert message in out and len(out.strip().splitlines()) == 1


def test_unknown_problem_id_in_responses(tmp_path, capsys):
    responses = write_rows(tmp_path / "r.jsonl", [{"problem_id": "nope", "response": "x"}])
    assert execrl("solver", "score", str(responses), "--problems", str(PROBLEMS)) == 2
    assert "no problem 'nope'" in capsys.readouterr().out
