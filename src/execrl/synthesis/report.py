"""The funnel report of a run, read back from its files: ``report.json`` and ``report.html``.

Rows in and out of every stage with the reasons for each drop, the cost of each stage (LLM
calls, cache hits, tokens, sandbox executions and seconds, from ``costs.jsonl``), the cost per
kept pair, the distribution of consensus scores, the share of labels that agree with a known
answer (seeds, or the problems given to ``label``), and a few kept and dropped examples.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from execrl.report import Page
from execrl.synthesis.rows import read_rows

COSTS = ("calls", "cached", "tokens", "executions", "sandbox_s")
EXAMPLES = 3
QUESTION_CHARS = 240


def stage_costs(folder: Path) -> dict[str, dict[str, float]]:
    """Totals per stage from the cost ledger."""
    totals: dict[str, dict[str, float]] = {}
    for entry in read_rows(folder / "costs.jsonl"):
        stage = totals.setdefault(entry["stage"], dict.fromkeys(COSTS, 0))
        for key in COSTS:
            stage[key] += entry.get(key, 0)
    return {s: {k: round(v, 3) for k, v in c.items()} for s, c in totals.items()}


def funnel(folder: Path, stages: tuple[str, ...]) -> list[dict[str, Any]]:
    costs = stage_costs(folder)
    out = []
    for stage in stages:
        rows = read_rows(folder / f"{stage}.jsonl")
        dropped = Counter(row["reason"] for row in rows if not row["kept"])
        out.append(
            {
                "stage": stage,
                "rows_in": len({row["input"] for row in rows}),
                "rows_out": sum(bool(row["kept"]) for row in rows),
                "dropped": dict(sorted(dropped.items())),
                "cost": costs.get(stage, dict.fromkeys(COSTS, 0)),
            }
        )
    return out


def consensus_histogram(rows: list[dict]) -> list[dict[str, Any]]:
    """Rows per consensus score bin of width 0.1 (the last bin holds 1.0)."""
    counts = Counter(
        min(int(row["consensus"] * 10), 9) for row in rows if row.get("consensus") is not None
    )
    return [{"bin": f"{b / 10:.1f}-{(b + 1) / 10:.1f}", "rows": counts[b]} for b in range(10)]


def agreement(rows: list[dict]) -> dict[str, Any]:
    """How often the label is the known answer (rows that have one)."""
    known = [row for row in rows if "agrees" in row]
    majority = [row for row in known if row["reference_majority"]]
    return {
        "rows_with_known_answer": len(known),
        "label_agrees": sum(row["agrees"] for row in known),
        "share": round(sum(row["agrees"] for row in known) / len(known), 4) if known else None,
        "rows_where_most_runnable_roles_agree_with_it": len(majority),
        "label_agrees_there": sum(row["agrees"] for row in majority),
    }


def examples(folder: Path, stages: tuple[str, ...]) -> dict[str, list[dict]]:
    kept_rows = read_rows(folder / "train_meta.jsonl")[:EXAMPLES]
    train = {row["id"]: row for row in read_rows(folder / "train.jsonl")}
    dropped: list[dict] = []
    seen_reasons: set[str] = set()
    for stage in stages:
        for row in read_rows(folder / f"{stage}.jsonl"):
            if not row["kept"] and row["reason"] not in seen_reasons:
                seen_reasons.add(row["reason"])
                dropped.append(
                    {
                        "stage": stage,
                        "id": row["id"],
                        "reason": row["reason"],
                        "detail": row["detail"],
                        "question": (row.get("question") or "")[:QUESTION_CHARS],
                    }
                )
    return {
        "kept": [
            {
                "id": row["id"],
                "label": row["label"],
                "consensus": row["consensus"],
                "question": train.get(row["id"], {}).get("question", "")[:QUESTION_CHARS],
            }
            for row in kept_rows
        ],
        "dropped": dropped,
    }


def build_report(folder: Path, stages: tuple[str, ...], status: str) -> dict[str, Any]:
    """The report's data (and ``report.json`` / ``report.html`` written in ``folder``)."""
    label_rows = read_rows(folder / "label.jsonl")
    kept = len(read_rows(folder / "train.jsonl"))
    rows = funnel(folder, stages)
    total = {k: round(sum(r["cost"][k] for r in rows), 3) for k in COSTS}
    report = {
        "status": status,
        "stages": rows,
        "kept_pairs": kept,
        "total_cost": total,
        "cost_per_kept_pair": {k: round(v / kept, 3) for k, v in total.items()} if kept else None,
        "consensus_histogram": consensus_histogram(label_rows),
        "agreement": agreement(label_rows),
        "examples": examples(folder, stages),
    }
    (folder / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    write_html(folder, report)
    return report


def write_html(folder: Path, report: dict[str, Any]) -> Path:
    page = Page("execrl synthesis: funnel report", folder)
    page.paragraph(f"Status: {report['status']}. Kept pairs: {report['kept_pairs']}.")
    page.heading("Funnel")
    page.table(
        ["stage", "in", "out", "dropped (reason: rows)", *COSTS],
        [
            [
                r["stage"],
                r["rows_in"],
                r["rows_out"],
                ", ".join(f"{k}: {v}" for k, v in r["dropped"].items()) or "-",
                *(r["cost"][k] for k in COSTS),
            ]
            for r in report["stages"]
        ],
    )
    per = report["cost_per_kept_pair"]
    page.paragraph(
        "Cost per kept pair: "
        + (", ".join(f"{k} {v}" for k, v in per.items()) if per else "no pair kept")
    )
    page.heading("Consensus scores (label stage)")
    page.table(["score", "rows"], [[b["bin"], b["rows"]] for b in report["consensus_histogram"]])
    page.heading("Agreement with known answers")
    page.table(["measure", "value"], [[k, v] for k, v in report["agreement"].items()])
    page.heading("Kept examples")
    page.table(
        ["id", "label", "consensus", "question"],
        [[e["id"], e["label"], e["consensus"], e["question"]] for e in report["examples"]["kept"]],
    )
    page.heading("Dropped examples (one per reason)")
    page.table(
        ["stage", "id", "reason", "detail", "question"],
        [
            [e["stage"], e["id"], e["reason"], e["detail"], e["question"]]
            for e in report["examples"]["dropped"]
        ],
    )
    return page.write("report.html")
