"""HTML reports of an evaluation (metrics) and of a replay sweep, built with
:class:`execrl.report.Page`: tables with bootstrap intervals, per-difficulty breakdowns and
matplotlib figures, written beside the page."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from execrl.envs.outcome import describe_timing, format_duration
from execrl.evaluate.bootstrap import Estimate
from execrl.evaluate.metrics import EvalMetrics
from execrl.evaluate.replay import Replay, replay_timing
from execrl.evaluate.sweep import SweepPoint
from execrl.report import Page, pyplot
from execrl.sandbox.limits import TIMING_UNITS

AXIS_MEANING = {
    "alpha": "alpha scales the references' durations (Γ(d) = α·d + β): below 1 the "
    "references look faster and the samples rank worse, above 1 the other way.",
    "beta": "beta shifts the references' durations by that many seconds (or counts, for a "
    "counted timing).",
    "cap_s": "cap_s is a hard budget per test: slower successes become timeouts.",
    "limit_s": "limit_s is an intended limit on the optimization tests.",
    "tau": "tau is the p_τ threshold (the leaderboard percentile a sample must reach).",
}


def tau_label(tau: float) -> str:
    return f"p{tau:g}"


def defined_ks(metrics: EvalMetrics) -> list[int]:
    """The k with a value for some model (pass@k needs at least k samples per problem)."""
    return [
        k
        for k in metrics.ks
        if any(not math.isnan(e.value) for (_, _, kk), e in metrics.pass_at_k.items() if kk == k)
    ]


def pass_header(metrics: EvalMetrics) -> list[str]:
    return [f"{tau_label(t)} pass@{k}" for t in metrics.taus for k in defined_ks(metrics)]


def pass_row(metrics: EvalMetrics, model: str, digits: int = 3) -> list[str]:
    return [
        metrics.pass_at_k[(model, t, k)].format(digits)
        for t in metrics.taus
        for k in defined_ks(metrics)
    ]


def pass_table(metrics: EvalMetrics, digits: int = 3) -> tuple[list[str], list[list[object]]]:
    """Per model: sample counts and p_τ pass@k with intervals (k without a value left out)."""
    header = ["model", "samples", "per problem", "inconclusive", *pass_header(metrics)]
    rows = []
    for m in metrics.models:
        c = metrics.counts[m]
        per = f"{c.min_per_problem}" + (
            f"–{c.max_per_problem}" if c.max_per_problem != c.min_per_problem else ""
        )
        rows.append([m, c.samples, per, c.inconclusive, *pass_row(metrics, m, digits)])
    return header, rows


def win_table(metrics: EvalMetrics, digits: int = 3) -> tuple[list[str], list[list[object]]]:
    header = ["model", "baseline"]
    for name in ("WR_b", "WR_m"):
        header += [name, f"{name} wins / losses / draws"]
    rows = []
    for m in metrics.models:
        if m == metrics.baseline:
            continue
        row: list[object] = [m, metrics.baseline]
        for name in ("WR_b", "WR_m"):
            count, estimate = metrics.win_rates[(m, name)]
            row += [estimate.format(digits), f"{count.wins} / {count.losses} / {count.draws}"]
        rows.append(row)
    return header, rows


def difficulty_table(
    breakdown: Mapping[str, EvalMetrics],
) -> tuple[list[str], list[list[object]]]:
    first = next(iter(breakdown.values()))
    header = ["difficulty", "model", "problems", *pass_header(first)]
    if first.baseline is not None:
        header += ["WR_b", "WR_m"]
    rows = []
    for difficulty, metrics in breakdown.items():
        for m in metrics.models:
            row: list[object] = [difficulty, m, len(metrics.problems), *pass_row(metrics, m)]
            if metrics.baseline is not None:
                row += (
                    ["(baseline)", ""]
                    if m == metrics.baseline
                    else [metrics.win_rates[(m, n)][1].format() for n in ("WR_b", "WR_m")]
                )
            rows.append(row)
    return header, rows


def problem_table(replay: Replay, taus: Sequence[float]) -> tuple[list[str], list[list[object]]]:
    timing = replay_timing(replay.data, replay.settings)
    header = ["problem", "difficulty", "model", "n", *(f"c @ {tau_label(t)}" for t in taus)]
    header.append(f"fastest passing ({TIMING_UNITS[timing]})")
    rows = []
    for pid, problem in replay.data.problems.items():
        for m in replay.models:
            mine = [s for s in replay.scores if s.problem_id == pid and s.model == m]
            conclusive = [s for s in mine if not s.inconclusive]
            passing = [s.duration_s for s in conclusive if s.c_strict]
            counts = [sum(s.passes(t) for s in conclusive) for t in taus]
            fastest = format_duration(min(passing), timing).split()[0] if passing else "—"
            rows.append([pid, problem.difficulty, m, len(conclusive), *counts, fastest])
    return header, rows


def pass_figure(metrics: EvalMetrics, k: int = 1):
    """Grouped bars: p_τ pass@k per model at each τ, with the bootstrap interval."""
    plt = pyplot("evaluation reports")
    fig, ax = plt.subplots(figsize=(7, 3.6))
    width = 0.8 / max(1, len(metrics.models))
    for i, model in enumerate(metrics.models):
        estimates = [metrics.pass_at_k[(model, t, k)] for t in metrics.taus]
        xs = [j + i * width for j in range(len(metrics.taus))]
        values, errors = _bars(estimates)
        ax.bar(xs, values, width, yerr=errors, capsize=3, label=model)
    ax.set_xticks([j + width * (len(metrics.models) - 1) / 2 for j in range(len(metrics.taus))])
    ax.set_xticklabels([tau_label(t) for t in metrics.taus])
    ax.set_ylabel(f"pass@{k}")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    return fig


def _bars(estimates: Sequence[Estimate]) -> tuple[list[float], list[list[float]]]:
    values = [0.0 if math.isnan(e.value) else e.value for e in estimates]
    low = [0.0 if math.isnan(e.low) else max(0.0, e.value - e.low) for e in estimates]
    high = [0.0 if math.isnan(e.high) else max(0.0, e.high - e.value) for e in estimates]
    return values, [low, high]


def write_metrics_report(
    replay: Replay,
    metrics: EvalMetrics,
    out_dir: str | Path,
    *,
    breakdown: Mapping[str, EvalMetrics] | None = None,
    degenerate: Mapping[str, Mapping[str, float]] | None = None,
) -> Path:
    """One page: settings, p_τ pass@k, win rates, per difficulty, degenerate groups, per
    problem. ``degenerate`` maps a reward description to per-model ratios."""
    data = replay.data
    page = Page("execrl evaluation", out_dir)
    campaign = data.campaign
    page.paragraph(
        f"{len(data.problems)} problems, models: {', '.join(data.models)}. Executed together "
        f"with the references on {campaign.created_at:%Y-%m-%d %H:%M} UTC "
        f"({campaign.samples} samples, {campaign.references} reference runs, "
        f"{campaign.workers} worker(s), {describe_timing(campaign.timing)}, seed "
        f"{campaign.seed}). "
        f"Replay: {replay.settings.describe()}."
    )
    level = round(100 * metrics.level)
    page.heading("p_τ pass@k")
    page.paragraph(
        "A sample counts at p_τ iff it is strictly correct (every correctness test passes, no "
        "optimization test fails; timeouts allowed) and its leaderboard percentile among the "
        f"references is at most τ/100; p100 is strict correctness. [{level}% bootstrap "
        f"intervals over problems; — where a problem has fewer samples than k.]"
    )
    page.table(*pass_table(metrics))
    if 1 in metrics.ks:
        page.figure(pass_figure(metrics, 1), "pass_at_1", f"p_τ pass@1 with {level}% intervals")
    if metrics.baseline is not None and len(metrics.models) > 1:
        page.heading(f"Win rates against {metrics.baseline}")
        page.paragraph(
            "Per problem, the fastest (WR_b) or median (WR_m) strictly correct sample of each "
            "model by accumulated duration over all tests; a model with a passing sample beats "
            "one without; draws (equal, or neither passing) are excluded."
        )
        page.table(*win_table(metrics))
    if breakdown:
        page.heading("By difficulty")
        page.table(*difficulty_table(breakdown))
    if degenerate:
        page.heading("Degenerate groups")
        page.paragraph(
            "Share of problems whose samples all get the same reward: such a group gives "
            "zero group-relative advantage (no training signal)."
        )
        header = ["reward", *data.models]
        rows = [
            [name, *(_fmt(ratios.get(m, math.nan)) for m in data.models)]
            for name, ratios in degenerate.items()
        ]
        page.table(header, rows)
    page.heading("Per problem")
    page.table(*problem_table(replay, metrics.taus))
    return page.write()


def sweep_figures(points: Sequence[SweepPoint], axis: str, k: int = 1) -> list:
    """pass@k along the sweep (one panel per τ), and the win rates when there is a baseline."""
    plt = pyplot("evaluation reports")
    xs = [p.value for p in points]
    first = points[0].metrics
    taus = ("swept",) if axis == "tau" else first.taus
    fig, axes = plt.subplots(1, len(taus), figsize=(3.6 * len(taus), 3.3), squeeze=False)
    for ax, tau in zip(axes[0], taus, strict=True):
        for model in first.models:
            series = [
                p.metrics.pass_at_k[(model, p.value if tau == "swept" else tau, k)] for p in points
            ]
            _line(ax, xs, series, model)
        ax.set_title(f"pass@{k}" if tau == "swept" else f"{tau_label(tau)} pass@{k}")
        _axis(ax, axis, xs)
    axes[0][0].legend(fontsize=8)
    figures = [fig]
    if first.baseline is not None and first.win_rates:
        fig, axes = plt.subplots(1, 2, figsize=(7.2, 3.3))
        for ax, name in zip(axes, ("WR_b", "WR_m"), strict=True):
            for model in first.models:
                if model == first.baseline:
                    continue
                _line(ax, xs, [p.metrics.win_rates[(model, name)][1] for p in points], model)
            ax.axhline(0.5, color="#999", linewidth=0.8, linestyle=":")
            ax.set_title(f"{name} vs {first.baseline}")
            _axis(ax, axis, xs)
        axes[0].legend(fontsize=8)
        figures.append(fig)
    return figures


def _axis(ax, axis: str, xs: list[float]) -> None:
    ax.set_xlabel(axis)
    ax.set_ylim(-0.02, 1.02)
    if axis == "alpha" and min(xs) > 0 and max(xs) / min(xs) >= 4:
        ax.set_xscale("log")  # a scale factor: 0.5 and 2 are equally far from 1
        ax.minorticks_off()
        ax.set_xticks(xs, [f"{x:g}" for x in xs])


def _line(ax, xs: list[float], series: Sequence[Estimate], label: str) -> None:
    values = [e.value for e in series]
    (line,) = ax.plot(xs, values, marker="o", markersize=3, label=label)
    ax.fill_between(
        xs, [e.low for e in series], [e.high for e in series], color=line.get_color(), alpha=0.15
    )


def sweep_table(points: Sequence[SweepPoint], axis: str) -> tuple[list[str], list[list[object]]]:
    """One row per (value, model): pass@1 at each τ (or at the swept τ) and the win rates."""
    first = points[0].metrics
    taus = first.taus if axis != "tau" else (None,)
    header = [axis, "model", *(f"{tau_label(t)} pass@1" if t else "pass@1" for t in taus)]
    with_wins = first.baseline is not None and len(first.models) > 1
    if with_wins:
        header += [f"WR_b vs {first.baseline}", f"WR_m vs {first.baseline}"]
    rows = []
    for p in points:
        for model in first.models:
            row: list[object] = [f"{p.value:g}", model]
            row += [_fmt(p.metrics.pass_at_k[(model, t or p.value, 1)].value) for t in taus]
            if with_wins:
                row += (
                    ["(baseline)", ""]
                    if model == first.baseline
                    else [_fmt(p.metrics.win_rates[(model, n)][1].value) for n in ("WR_b", "WR_m")]
                )
            rows.append(row)
    return header, rows


def write_sweep_report(
    points: Sequence[SweepPoint], axis: str, out_dir: str | Path, *, note: str = ""
) -> Path:
    page = Page(f"execrl evaluation replay along {axis}", out_dir)
    first = points[0]
    page.paragraph(
        f"Every metric recomputed from the stored records at each value of {axis} "
        f"({len(points)} values: {', '.join(f'{p.value:g}' for p in points)}); nothing was "
        f"executed again. {AXIS_MEANING.get(axis, '')} {note}".strip()
    )
    for i, fig in enumerate(sweep_figures(points, axis)):
        name = "sweep_pass" if i == 0 else "sweep_win_rates"
        page.figure(fig, name, f"along {axis}, {round(100 * first.metrics.level)}% intervals")
    page.heading("pass@1 and win rates along the sweep")
    page.table(*sweep_table(points, axis))
    return page.write()


def _fmt(value: float) -> str:
    return "—" if value is None or math.isnan(value) else f"{value:.3f}"
