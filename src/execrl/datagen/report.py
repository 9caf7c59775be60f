"""The report of an ``execrl build``: an HTML page and a dataset card from its summary.

The pipeline (:mod:`execrl.datagen.pipeline`) writes ``build-report.json`` (format
``execrl-build/1``: settings, one row of counts per stage, one row per problem); this module
turns that summary into ``report.html`` (self-contained: inline CSS and SVG bars, no files
beside it) and ``README.md`` (the dataset card: source, settings, what was kept and why the
rest was dropped, the spec §9 rules with their constants, the split, how to load the set).

:func:`report_html` and :func:`dataset_card` are pure (summary in, text out), so they can be
tested on a hand-written summary; every string from the summary is escaped, and a missing
optional value (a null rate, no durations) reads ``—``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execrl.datagen.filters import (
    FAILURE_CAP,
    FAILURE_SHARE,
    MAX_CORRECT_LOST,
    MAX_FALSE_POSITIVE_RATE,
    MIN_CORRECT,
    MIN_ROBUST_CV,
    TIMEOUT_CAP,
    TIMEOUT_SHARE,
    Round,
)
from execrl.report import Page, escape

REPORT_HTML = "report.html"
DATASET_CARD = "README.md"
PROBLEMS_FOLDER = "problems"
"""Where the pipeline writes the built set, beside the report (the card's loading example)."""
MISSING = "—"
"""What a missing optional value (null in the summary) reads as."""
SERIES_COLOURS = ("#4c78a8", "#f58518", "#54a24b")


def write_build_report(summary: dict[str, Any], folder: Path) -> list[Path]:
    """Write ``report.html`` and ``README.md`` (the dataset card) into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / REPORT_HTML, folder / DATASET_CARD]
    paths[0].write_text(report_html(summary), encoding="utf-8")
    paths[1].write_text(dataset_card(summary), encoding="utf-8")
    return paths


# -- formatting ---------------------------------------------------------------------------------


def percent(value: float | None) -> str:
    """``0.25`` → ``25.0%``; None or NaN → ``—``."""
    return MISSING if _missing(value) else f"{100 * float(value):.1f}%"  # type: ignore[arg-type]


def number(value: float | None, digits: int = 3) -> str:
    """A float to ``digits`` significant digits; None or NaN → ``—``."""
    return MISSING if _missing(value) else f"{float(value):.{digits}g}"  # type: ignore[arg-type]


def milliseconds(value: float | None) -> str:
    return MISSING if _missing(value) else f"{number(value)} ms"


def flag(value: bool | None) -> str:
    return MISSING if value is None else "yes" if value else "no"


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _share(value: float) -> str:
    """A rule's constant as a percentage without decimals (0.2 → 20%)."""
    return f"{100 * value:g}%"


def _counts(row: Mapping[str, Any], skip: Sequence[str]) -> str:
    """A stage row's counts other than ``skip``, as ``name n`` pairs."""
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in row.items() if k not in skip)


def _problems(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(summary.get("problems") or [])


def _kept(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [p for p in _problems(summary) if p.get("kept")]


def _get(row: Mapping[str, Any], path: str, default: Any = None) -> Any:
    """``row["a"]["b"]`` for ``"a.b"``; ``default`` where a part is missing or null."""
    value: Any = row
    for part in path.split("."):
        if not isinstance(value, Mapping) or value.get(part) is None:
            return default
        value = value[part]
    return value


def _removed(problem: Mapping[str, Any], round_: Round) -> str:
    removed = _get(problem, f"tests.removed.{round_.value}", {})
    return f"{removed.get('timeout', 0)} / {removed.get('failure', 0)}"


def _rejected(problem: Mapping[str, Any]) -> str:
    """Rejected attempts by kind of reason (``no two solutions agree 1``), and inconclusive."""
    kinds = dict(_get(problem, "attempts.rejected", {}))
    if inconclusive := _get(problem, "attempts.inconclusive", 0):
        kinds["inconclusive"] = inconclusive
    return ", ".join(f"{k} {v}" for k, v in kinds.items()) or "0"


def _durations(problem: Mapping[str, Any]) -> list[str]:
    durations = problem.get("durations_ms") or {}
    return [milliseconds(durations.get(p)) for p in ("p10", "p50", "p90")]


# -- shared tables (the page and the card show the same numbers) --------------------------------


def stage_table(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One row per stage: its problems and its other counts."""
    rows = [
        [
            str(s.get("stage", MISSING)),
            str(s.get("problems", MISSING)),
            _counts(s, ("stage", "problems")),
        ]
        for s in summary.get("stages") or []
    ]
    return ["stage", "problems", "counts"], rows


def tests_table(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Per problem: tests at each stage and removals per round and reason."""
    header = [
        "problem",
        "original",
        "attempts accepted / tried",
        "attempts rejected",
        "generated",
        "removed in correctness (timeout / failure)",
        "removed in optimization (timeout / failure)",
        "extra kept",
        "optimization kept",
    ]
    rows = [
        [
            str(p.get("problem_id")),
            str(_get(p, "tests.original", MISSING)),
            f"{_get(p, 'attempts.accepted', 0)} / {_get(p, 'attempts.tried', 0)}",
            _rejected(p),
            str(_get(p, "tests.generated", MISSING)),
            _removed(p, Round.CORRECTNESS),
            _removed(p, Round.OPTIMIZATION),
            str(_get(p, "tests.extra", MISSING)),
            str(_get(p, "tests.optimization", MISSING)),
        ]
        for p in _problems(summary)
    ]
    return header, rows


def solutions_table(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Per problem: verified labels, dropped correct solutions, false positives before and
    after, duration percentiles, filterability, the split and the decision."""
    header = [
        "problem",
        "kept",
        "split",
        "correct verified / labelled",
        "incorrect caught / labelled",
        "correct dropped",
        "FP before",
        "FP after",
        "p10",
        "p50",
        "p90",
        "robust CV",
        "duration filterable",
        "length CV",
        "length filterable",
    ]
    rows = []
    for p in _problems(summary):
        verify = p.get("verify") or {}
        rows.append(
            [
                str(p.get("problem_id")),
                flag(p.get("kept")),
                str(p.get("split") or MISSING),
                f"{verify.get('correct_verified', 0)} / {verify.get('correct_labelled', 0)}",
                f"{verify.get('incorrect_verified', 0)} / {verify.get('incorrect_labelled', 0)}",
                str(len(_get(p, "solutions.correct_dropped", []))),
                percent(_get(p, "false_positive_rate.before")),
                percent(_get(p, "false_positive_rate.after")),
                *_durations(p),
                number(p.get("robust_cv")),
                flag(p.get("duration_filterable")),
                number(p.get("length_cv")),
                flag(p.get("length_filterable")),
            ]
        )
    return header, rows


def keep_rules() -> list[str]:
    """The spec §9 rules, one sentence each, with the constants of :mod:`filters`."""
    correctness, optimization = Round.CORRECTNESS, Round.OPTIMIZATION
    return [
        f"Correctness round (small and edge tests): a generated test is removed when more than "
        f"{_share(TIMEOUT_SHARE[correctness])} of the correct references time out on it (at most "
        f"{_share(TIMEOUT_CAP)} of the generated tests, worst first), then when more than "
        f"{_share(FAILURE_SHARE)} raise or answer wrong (at most {_share(FAILURE_CAP)} of the "
        "rest). Original tests are never removed.",
        f"Optimization round (large tests): the same, with timeouts over "
        f"{_share(TIMEOUT_SHARE[optimization])}.",
        "A correct solution that fails a kept test is dropped; an incorrect one that passes "
        "every kept test is a false positive.",
        f"A problem is kept when at least {MIN_CORRECT[correctness]} correct references survive "
        f"the correctness round (at least {MIN_CORRECT[optimization]} the optimization round), "
        f"at most {_share(MAX_CORRECT_LOST)} of its correct references were lost, and the "
        "false-positive rate of its original incorrect solutions is below "
        f"{_share(MAX_FALSE_POSITIVE_RATE)}.",
        f"Duration-filterable: robust CV = IQR / median of the per-test mean reference "
        f"durations of at least {MIN_ROBUST_CV:g}; length-filterable: the same rule on the "
        "kept correct references' lengths in characters.",
    ]


# -- HTML ---------------------------------------------------------------------------------------


def bars_svg(
    labels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    maximum: float | None = None,
    fmt: Any = number,
) -> str:
    """Horizontal grouped bars as inline SVG: one group per label, one bar per series (a
    missing value draws no bar and reads ``—``). Every label is escaped."""
    names = list(series)
    values = [v for vs in series.values() for v in vs if not _missing(v)]
    top = maximum if maximum is not None else max([*values, 0.0])
    bar, gap, label_w, plot_w, text_w = 14, 10, 260, 360, 90
    group = bar * len(names) + gap
    legend = 20 if len(names) > 1 else 0
    height = legend + group * len(labels) + gap
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + plot_w + text_w}" '
        f'height="{height}" font-size="12" font-family="system-ui, sans-serif">'
    ]
    if legend:
        for i, name in enumerate(names):
            x = label_w + 120 * i
            parts.append(
                f'<rect x="{x}" y="4" width="10" height="10" fill="{_colour(i)}"/>'
                f'<text x="{x + 14}" y="13">{escape(name)}</text>'
            )
    for row, label in enumerate(labels):
        y0 = legend + gap + row * group
        parts.append(
            f'<text x="{label_w - 6}" y="{y0 + bar * len(names) / 2 + 4}" '
            f'text-anchor="end">{escape(_short(label))}</text>'
        )
        for i, name in enumerate(names):
            value = series[name][row]
            width = 0.0 if _missing(value) or top <= 0 else plot_w * min(1.0, value / top)  # type: ignore[operator]
            tip = f"{label} {name}: {fmt(value)}"
            parts.append(_bar(label_w, y0 + i * bar, width, bar, _colour(i), tip, fmt(value)))
    parts.append("</svg>")
    return "".join(parts)


def _bar(x: float, y: float, width: float, height: int, colour: str, tip: str, text: str) -> str:
    """One bar with its hover title and its value written after it (both escaped)."""
    return (
        f'<rect x="{x}" y="{y}" width="{width:.1f}" height="{height - 2}" fill="{colour}">'
        f"<title>{escape(tip)}</title></rect>"
        f'<text x="{x + width + 4:.1f}" y="{y + height - 4}">{escape(text)}</text>'
    )


def _colour(i: int) -> str:
    return SERIES_COLOURS[i % len(SERIES_COLOURS)]


def _short(label: str, width: int = 40) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def report_html(summary: dict[str, Any]) -> str:
    """The whole page: overview, stages (table and bars), per-problem tests, false-positive
    rates before and after (paired bars), durations, solutions, drops and disagreements."""
    # Page only collects markup here; its folder is never written (write_build_report does).
    page = Page("execrl build", Path("."))
    page.paragraph(_overview(summary))
    page.heading("Settings")
    page.table(["setting", "value"], _settings_rows(summary))
    page.heading("Counts per stage")
    page.table(*stage_table(summary))
    stages = list(summary.get("stages") or [])
    page.raw(
        bars_svg(
            [str(s.get("stage")) for s in stages],
            {"problems": [s.get("problems") for s in stages]},
            fmt=_count,
        )
    )
    problems = _problems(summary)
    ids = [str(p.get("problem_id")) for p in problems]
    page.heading("Tests per problem")
    page.table(*tests_table(summary))
    page.heading("False-positive rate before and after")
    page.paragraph(
        "The share of each problem's original incorrect solutions that pass every test: on "
        "the original tests (before) and on the kept tests (after)."
    )
    page.raw(
        bars_svg(
            ids,
            {
                "before": [_get(p, "false_positive_rate.before") for p in problems],
                "after": [_get(p, "false_positive_rate.after") for p in problems],
            },
            maximum=1.0,
            fmt=percent,
        )
    )
    page.heading("Reference durations")
    page.paragraph(
        "Percentiles of the per-test mean durations of the correct references (— where the "
        "problem has no timed tests)."
    )
    page.raw(
        bars_svg(
            ids,
            {
                q: [(p.get("durations_ms") or {}).get(q) for p in problems]
                for q in ("p10", "p50", "p90")
            },
            fmt=milliseconds,
        )
    )
    page.heading("Solutions, filterability and split")
    page.table(*solutions_table(summary))
    page.table(
        ["problem", "correct solutions dropped", "false positives after"],
        _solution_name_rows(summary) or [["(none)", "", ""]],
    )
    page.heading("Dropped problems")
    page.table(["problem", "reasons"], _reason_rows(summary) or [["(none)", ""]])
    page.heading("Label disagreements")
    page.table(
        ["problem", "reference", "label", "verdicts"],
        _disagreement_rows(summary) or [["(none)", "", "", ""]],
    )
    return page.html()


def _overview(summary: Mapping[str, Any]) -> str:
    problems, kept = _problems(summary), _kept(summary)
    return (
        f"Source: {summary.get('source', MISSING)}; built {summary.get('created', MISSING)} "
        f"({summary.get('format', MISSING)}). {len(kept)} of {len(problems)} problems kept "
        f"({sum(p.get('split') == 'train' for p in kept)} train, "
        f"{sum(p.get('split') == 'heldout' for p in kept)} held out)."
    )


def _settings_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    return [
        [str(k), v if isinstance(v, str) else json.dumps(v, sort_keys=True)]
        for k, v in (summary.get("settings") or {}).items()
    ]


def _solution_name_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    """The problems with a dropped correct solution or a false positive left, by name."""
    rows = []
    for p in _problems(summary):
        dropped = _get(p, "solutions.correct_dropped", [])
        positives = _get(p, "solutions.false_positives", [])
        if dropped or positives:
            rows.append([str(p.get("problem_id")), ", ".join(dropped), ", ".join(positives)])
    return rows


def _reason_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    return [
        [str(p.get("problem_id")), "; ".join(p.get("reasons") or []) or MISSING]
        for p in _problems(summary)
        if not p.get("kept")
    ]


def _disagreement_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    return [
        [
            str(p.get("problem_id")),
            str(d.get("reference")),
            str(d.get("label")),
            ", ".join(f"{k} {v}" for k, v in (d.get("verdicts") or {}).items()),
        ]
        for p in _problems(summary)
        for d in _get(p, "verify.disagreements", [])
    ]


def _count(value: float | None) -> str:
    return MISSING if _missing(value) else str(int(value))  # type: ignore[arg-type]


# -- dataset card -------------------------------------------------------------------------------


def dataset_card(summary: dict[str, Any]) -> str:
    """The dataset card (markdown): what the set is, how it was built and how to load it."""
    problems, kept = _problems(summary), _kept(summary)
    lines = [
        f"# Problem set built from {_md(summary.get('source', MISSING))}",
        "",
        f"Built by `execrl build` (spec §9 test builder) on {_md(summary.get('created', MISSING))} "
        f"from `{_md(summary.get('source', MISSING))}`: **{len(kept)} of {len(problems)} "
        f"problems kept** ({sum(p.get('split') == 'train' for p in kept)} train, "
        f"{sum(p.get('split') == 'heldout' for p in kept)} held out). `report.html` beside this "
        "card shows the same numbers with bars; `build-report.json` holds them all.",
        "",
        "## Loading",
        "",
        "```python",
        "from execrl.problems import load_problems",
        "",
        f'problems = load_problems("{PROBLEMS_FOLDER}")  # the folder beside this card',
        'train = [p for p in problems if "train" in p.tags]',
        'heldout = [p for p in problems if "heldout" in p.tags]',
        "```",
        "",
        "Each problem keeps its original tests (group `original`), and gains the accepted "
        "small and edge tests (`extra`) and large tests (`optimization`) that survived the "
        "filters; its references are the correct solutions that passed every kept test.",
        "",
        "## Settings",
        "",
        *[f"- {_md(k)}: `{_md(v)}`" for k, v in _settings_rows(summary)],
        "",
        "## Stages",
        "",
        *_md_table(*stage_table(summary)),
        "",
        "## Rules (spec §9)",
        "",
        *[f"- {rule}" for rule in keep_rules()],
        "",
        "## Problems",
        "",
        *_md_table(*solutions_table(summary)),
        "",
        "FP: the false-positive rate of the original incorrect solutions, on the original "
        "tests (before) and on the kept tests (after). p10 / p50 / p90: percentiles of the "
        "per-test mean reference durations.",
        "",
        "## Tests",
        "",
        *_md_table(*tests_table(summary)),
        "",
        "## Dropped problems",
        "",
        *([f"- `{_md(pid)}`: {_md(why)}" for pid, why in _reason_rows(summary)] or ["None."]),
        "",
        "## Label disagreements",
        "",
        "Solutions whose verdicts on the original tests contradict their label (reported, "
        "never used as references):",
        "",
        *(
            [
                f"- `{_md(pid)}` {_md(ref)} ({_md(label)}): {_md(v)}"
                for pid, ref, label, v in _disagreement_rows(summary)
            ]
            or ["None."]
        ),
        "",
    ]
    return "\n".join(lines)


def _md(text: object) -> str:
    """A summary string made safe in a markdown line or table cell."""
    return " ".join(str(text).split()).replace("|", "\\|").replace("`", "'")


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(_md(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return lines if rows else [*lines, "| " + " | ".join([MISSING] * len(header)) + " |"]
