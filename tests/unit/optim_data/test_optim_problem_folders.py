"""The bundled optimisation word problems as folders (src/execrl/data/optim/<id>/).

The folders were generated once from the old ``problems.jsonl``; ``EXPECTED_SHA256`` is the
hash of every field of every problem that file gave (sorted by id), so the loader must yield
exactly the same problems. Malformed folders are one-line ProblemFormatErrors naming the file.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from execrl.errors import LoaderError, ProblemFormatError
from execrl.problems.optim import (
    bundled_optim_path,
    compose_response,
    load_optim_problem,
    load_optim_problems,
    read_optim_folder,
)

EXPECTED_SHA256 = "d328341be601a104dd7fb6bcdf792ac356613d862cbf79dc3988af548fe62037"
"""sha256 of json.dumps([p.model_dump(mode="json") ...], sort_keys=True, ensure_ascii=False)
over the problems the old problems.jsonl loaded as, sorted by id."""
EXPECTED_IDS = [
    "ad-impression-resale",
    "bakery-weekly-mix",
    "call-centre-shifts",
    "cattle-feed-blend",
    "chemical-batch-production",
    "cocoa-supplier-minimums",
    "conference-room-booking",
    "dairy-milk-allocation",
    "delivery-truck-fleet",
    "distribution-centre-location",
    "flour-mill-contracts",
    "garment-line-setup",
    "generator-unit-commitment",
    "grain-trading-desk",
    "launch-ad-budget",
    "paper-roll-cutting",
    "pension-bond-portfolio",
    "plant-to-store-shipping",
    "premium-blend-protein",
    "print-job-sequencing",
    "quarterly-pump-production",
    "rd-project-selection",
    "refinery-crude-purchase",
    "router-plant-either-or",
    "technician-job-assignment",
    "ward-nurse-budget",
    "warehouse-mezzanine-expansion",
]
BAKERY = bundled_optim_path() / "bakery-weekly-mix"


def digest(problems) -> str:
    dump = [p.model_dump(mode="json") for p in problems]
    return hashlib.sha256(json.dumps(dump, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def test_bundled_folders_give_exactly_the_old_set():
    problems = load_optim_problems()
    assert [p.id for p in problems] == EXPECTED_IDS  # sorted by folder name
    assert digest(problems) == EXPECTED_SHA256
    assert sum(len(p.incorrect) for p in problems) == 80
    assert all(p.source == "bundled" for p in problems)


def test_a_few_fields_exactly():
    bakery = load_optim_problem("bundled", "bakery-weekly-mix")
    assert (bakery.answer, bakery.direction, bakery.kind) == (2988.0, "max", "lp")
    assert (bakery.n_binary, bakery.n_integer, bakery.n_constraints) == (0, 0, 4)
    assert bakery.question.startswith("Hearthstone Bakery bakes three kinds of loaf: sourdough,")
    assert "\n" not in bakery.question
    assert [e.error for e in bakery.incorrect] == ["wrong_answer", "wrong_answer", "format"]
    code = (BAKERY / "reference.py").read_text()
    assert bakery.reference.startswith("<think>\nThree continuous decisions: weekly loaves")
    assert bakery.reference.endswith(f"<python>\n```python\n{code}```\n</python>")
    assert bakery.incorrect[2].response.startswith("<model>\nVariables: s, r, d >= 0")
    wrong = (BAKERY / "incorrect" / "1-wrong-answer.py").read_text()
    assert "<= 240, name=" in bakery.incorrect[0].response and "<= 240, name=" in wrong
    ward = load_optim_problem("bundled", "ward-nurse-budget")
    assert (ward.answer, ward.kind, ward.n_integer, ward.n_constraints) == (
        "infeasible",
        "infeasible",
        3,
        5,
    )
    refinery = load_optim_problem("bundled", "refinery-crude-purchase")
    assert refinery.answer == 3468.21428571


def test_compose_response_layouts():
    assert compose_response("t", "m", "x = 1\n") == (
        "<think>\nt\n</think>\n<model>\nm\n</model>\n<python>\n```python\nx = 1\n```\n</python>"
    )
    assert compose_response("t", "m", "x\n", "untagged-model") == (
        "<think>\nt\n</think>\nm\n<python>\n```python\nx\n```\n</python>"
    )


def test_a_folder_of_folders_is_a_source(tmp_path):
    root = tmp_path / "Mine"
    shutil.copytree(BAKERY, root / "bakery-weekly-mix")
    (problem,) = load_optim_problems(root)
    assert problem.source == "mine"
    bundled = load_optim_problem("bundled", "bakery-weekly-mix")
    assert problem.model_dump(exclude={"source"}) == bundled.model_dump(exclude={"source"})
    with pytest.raises(LoaderError, match="no problem folders"):
        load_optim_problems(tmp_path / "Mine" / "bakery-weekly-mix" / "incorrect")


def test_user_jsonl_still_loads(tmp_path):
    problems = load_optim_problems()[:3]
    path = tmp_path / "theirs.jsonl"
    rows = [json.dumps(p.model_dump(mode="json", exclude={"source"})) for p in problems]
    path.write_text("\n".join(rows) + "\n")
    loaded = load_optim_problems(path)
    assert [p.source for p in loaded] == ["theirs"] * 3
    assert [p.model_dump(exclude={"source"}) for p in loaded] == [
        p.model_dump(exclude={"source"}) for p in problems
    ]


def broken(tmp_path: Path, edit) -> Path:
    folder = tmp_path / "bakery-weekly-mix"
    shutil.copytree(BAKERY, folder)
    edit(folder)
    return folder


def replace_in_yaml(old: str, new: str):
    def edit(folder: Path) -> None:
        path = folder / "problem.yaml"
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))

    return edit


@pytest.mark.parametrize(
    ("edit", "file", "match"),
    [
        (replace_in_yaml("kind: lp", "kind: [lp"), "problem.yaml", "not valid YAML"),
        (lambda f: (f / "reference.py").unlink(), "problem.yaml", "'reference.py': no such"),
        (
            lambda f: (f / "incorrect" / "1-wrong-answer.py").unlink(),
            "problem.yaml",
            "incorrect/1-wrong-answer.py",
        ),
        (replace_in_yaml("kind: lp", "kind: lp\ncolour: red"), "problem.yaml", "colour"),
        (replace_in_yaml("layout: no-think", "layout: sideways"), "problem.yaml", "sideways"),
        (replace_in_yaml("id: bakery-weekly-mix", "id: bakery"), "problem.yaml", "folder name"),
        (replace_in_yaml("answer: 2988.0", "answer: lots"), "problem.yaml", "answer"),
        (replace_in_yaml("think: |-", "thought: |-"), "problem.yaml", "think"),
        (replace_in_yaml("error: format", "error: ugly"), "problem.yaml", "incorrect"),
        (lambda f: (f / "problem.yaml").write_text("- a list\n"), "problem.yaml", "mapping"),
    ],
)
def test_a_malformed_folder_is_one_line_naming_the_file(tmp_path, edit, file, match):
    folder = broken(tmp_path, edit)
    with pytest.raises(ProblemFormatError, match=match) as caught:
        read_optim_folder(folder)
    message = str(caught.value)
    assert str(folder / file) in message
    assert "\n" not in message
