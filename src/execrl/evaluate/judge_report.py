"""The pairwise judge's HTML report (built with :class:`execrl.report.Page`): the pair
selection's counts, the judge's speed-identification accuracy, and — like the source study's
figure — bars of the share of classifiable pairs per primary category and per
ALGORITHMIC / SUPERFICIAL, one bar per winning source."""

from __future__ import annotations

import math
from pathlib import Path

from execrl.evaluate.judge import JudgeMetrics, WinnerShares
from execrl.evaluate.judge_parse import Classification, PrimaryCategory
from execrl.report import Page, Table, pyplot


def selection_table(metrics: JudgeMetrics) -> Table:
    """The spec's drop counts: problems → both fail, one fails, speed ties → judged pairs."""
    counts = metrics.selection.counts()
    return list(counts), [[str(v) for v in counts.values()]]


def calls_table(metrics: JudgeMetrics) -> Table:
    header = [
        "calls",
        "per pair",
        "parsed",
        "unparseable",
        "answered Same",
        "speed-correct",
        "accuracy (all calls)",
        "accuracy (parsed calls)",
        "classifiable pairs",
    ]
    row = [
        str(metrics.calls),
        str(metrics.calls_per_pair),
        str(metrics.parsed),
        str(metrics.unparseable),
        str(metrics.same),
        str(metrics.speed_correct),
        _percent(metrics.speed_accuracy),
        _percent(metrics.speed_accuracy_parsed),
        f"{metrics.classifiable} / {metrics.selection.judged_pairs} "
        f"({_percent(metrics.classifiable_share)})",
    ]
    return header, [row]


def shares_table(metrics: JudgeMetrics) -> Table:
    """One row per category (then per classification), one column per winning side."""
    winners = list(metrics.by_winner.values())
    header = ["label", *(_winner_name(w) for w in winners)]
    names = [c.value for c in PrimaryCategory] + [c.value for c in Classification]
    rows = [
        [name, *(_percent(_share(w, name)) if w.classifiable else "—" for w in winners)]
        for name in names
    ]
    return header, rows


def pairs_table(metrics: JudgeMetrics) -> Table:
    header = [
        "problem",
        "faster",
        "relative difference",
        "parsed",
        "speed-correct",
        "primary category",
        "classification",
    ]
    rows = []
    for label in metrics.labels:
        tied = " (tie)" if label.category_tied else ""
        rows.append(
            [
                label.problem_id,
                label.faster,
                _percent(label.relative_difference),
                f"{label.parsed} / {label.calls}",
                f"{label.speed_correct} / {label.calls}",
                (label.primary_category or "unclassifiable") + tied,
                label.classification or "—",
            ]
        )
    return header, rows


def category_figure(metrics: JudgeMetrics):
    """Horizontal bars: per primary category (left) and per classification (right), the share
    of the classifiable pairs each source won (one colour per source)."""
    plt = pyplot("judge reports")
    winners = [w for key, w in metrics.by_winner.items() if key != "all"]
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [3, 1.4]}
    )
    for ax, names in (
        (left, [c.value for c in PrimaryCategory]),
        (right, [c.value for c in Classification]),
    ):
        height = 0.8 / max(1, len(winners))
        for i, winner in enumerate(winners):
            ys = [j + i * height for j in range(len(names))]
            values = [_share(winner, name) for name in names]
            ax.barh(ys, values, height, label=f"{winner.source} faster (n={winner.classifiable})")
        ax.set_yticks([j + height * (len(winners) - 1) / 2 for j in range(len(names))])
        ax.set_yticklabels([n.replace("_", " ").lower() for n in names], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of classifiable pairs")
    left.set_title("primary category", fontsize=10)
    right.set_title("classification", fontsize=10)
    left.legend(fontsize=8, loc="lower right")
    return fig


def write_judge_report(metrics: JudgeMetrics, out_dir: str | Path, *, judge: str) -> Path:
    """index.html in ``out_dir``: counts, accuracy, the category bars, per-pair labels."""
    a, b = metrics.selection.sources
    page = Page(f"execrl pairwise judge: {a} vs {b}", out_dir)
    page.paragraph(
        f"Judge: {judge}. Per problem, the best passing program of each source (by mean "
        f"optimization-test duration; for references, the fastest correct one); "
        f"{metrics.calls_per_pair} calls per pair, each showing the two programs as Solution 1 "
        "and Solution 2 in a random order. A call is speed-correct when the solution it calls "
        "faster is the truly faster one; a pair with fewer than "
        f"{metrics.min_speed_correct} speed-correct calls is unclassifiable, otherwise its "
        "label is the majority over its speed-correct calls."
    )
    page.heading("Pairs")
    page.paragraph(metrics.selection.describe() + ".")
    page.table(*selection_table(metrics))
    page.heading("Judge calls")
    page.paragraph(
        "Accuracy over all calls counts an unparseable call as not speed-correct; over parsed "
        "calls it leaves them out. A judged pair is never a tie, so 'Same' is never correct."
    )
    page.table(*calls_table(metrics))
    page.heading("What made the faster program faster")
    if metrics.classifiable:
        page.figure(
            category_figure(metrics),
            "categories",
            "share of classifiable pairs per primary category and classification, by winner",
        )
    else:
        page.paragraph("No pair is classifiable: there are no category bars to draw.")
    page.table(*shares_table(metrics))
    page.heading("Per pair")
    page.table(*pairs_table(metrics))
    return page.write()


def _share(winner: WinnerShares, name: str) -> float:
    return winner.primary_category.get(name, winner.classification.get(name, 0.0))


def _winner_name(winner: WinnerShares) -> str:
    who = "all pairs" if winner.source == "all" else f"{winner.source} faster"
    return f"{who} (n={winner.classifiable})"


def _percent(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "—"
    return "∞" if math.isinf(value) else f"{100 * value:.1f}%"
