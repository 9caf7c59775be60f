"""HTML reports of a simulation (a few curves) and of a sweep (ranked table, degenerate
configurations, heatmaps per family), built with ``execrl.report.html.Page``."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from execrl.report.html import Page, pyplot
from execrl.simulate.diagnostics import moving_average
from execrl.simulate.grid import FAMILIES, axes_of
from execrl.simulate.simulation import Simulation
from execrl.simulate.sweep import SweepResult

HOW_TO_READ = (
    "Each curve is the mean reward (normalised to [0, 1]: (r + 1)/2, the pass rate for ±1 "
    "rewards) or the pass rate (share with r > 0) of reference solutions sampled from quality "
    "bands, weak (x = 0) to strong (x = 1), replayed through the environment and reward with "
    "stored durations. A useful signal rises along the diagonal: low deviation from the "
    "diagonal, high quality correlation and steepness. A curve that rewards everything or "
    "nothing, or is flat, gives a policy nothing to climb and is flagged degenerate."
)


def _fmt(value: Any, digits: int = 3) -> str:
    if isinstance(value, float):
        return "—" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _draw_curve(ax, x, curve, window: int, a: float, b: float, title: str) -> None:
    finite = np.isfinite(curve)
    ax.plot([0, 1], [0, 1], color="#bbbbbb", lw=1, label="diagonal")
    ax.plot(x[finite], curve[finite], "o", ms=3, color="#1f77b4", label="c (raw)")
    if finite.sum() >= window:
        ax.plot(
            moving_average(x[finite], window),
            moving_average(curve[finite], window),
            color="#1f77b4",
            lw=1.5,
            label=f"moving average (w={window})",
        )
    grid = np.linspace(0, 1, 101)
    ax.plot(grid, np.clip(a * grid + b, 0, 1), "--", color="#d62728", lw=1, label="clamped fit")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=8)
    ax.set_xlabel("quality x (weak → strong)", fontsize=8)
    ax.tick_params(labelsize=7)


def curves_figure(items: Sequence[tuple[str, np.ndarray, np.ndarray, int, float, float]]):
    """A grid of curve panels: (title, x, curve, window, slope, intercept) each."""
    plt = pyplot("simulation reports")
    n = len(items)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    for ax, (title, x, curve, window, a, b) in zip(axes.flat, items, strict=False):
        _draw_curve(ax, x, curve, window, a, b, title)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7, loc="upper left")
    axes.flat[0].set_ylabel("mean normalised reward / pass rate", fontsize=8)
    return fig


def _wrap(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def write_simulation_report(
    simulations: Sequence[Simulation], out_dir: str | Path, *, corpus: str = "", schedule: str = ""
) -> Path:
    """One page: the diagnostics table and the curves of every simulation."""
    page = Page("execrl simulate: reward curves", out_dir)
    page.paragraph(HOW_TO_READ)
    if corpus or schedule:
        page.paragraph(" ".join(p for p in (corpus, schedule) if p))
    header = [
        "environment",
        "reward",
        "degenerate",
        "deviation ↓",
        "correlation ↑",
        "corr. smoothed",
        "steepness ↑",
        "AUC",
        "AUC smoothed",
        "variance",
    ]
    rows = []
    for sim in simulations:
        d = sim.diagnostics
        values = d.ranked_values()
        rows.append(
            [
                sim.environment,
                sim.reward,
                d.degenerate or "no",
                *(_fmt(v) for v in values),
                _fmt(d.variance, 5),
            ]
        )
    page.heading("Diagnostics (spec §7)")
    page.table(header, rows)
    page.heading("Curves")
    for start in range(0, len(simulations), 12):
        items = [
            (
                _wrap(f"{s.environment} · {s.reward}"),
                s.x,
                s.curve,
                s.window,
                s.diagnostics.slope,
                s.diagnostics.intercept,
            )
            for s in simulations[start : start + 12]
        ]
        page.figure(
            curves_figure(items),
            f"curves-{start // 12 + 1}",
            "raw points, moving average, clamped-linear fit and the diagonal",
        )
    return page.write()


# --------------------------------------------------------------------------------------------
# Sweep


def _heatmap(ax, matrix, rows, cols, title, *, cmap, vmin, vmax, fmt="{:.2f}") -> None:
    plt = pyplot("simulation reports")
    shown = np.ma.masked_invalid(matrix)
    colours = plt.get_cmap(cmap).with_extremes(bad="#dddddd")
    image = ax.imshow(shown, cmap=colours, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(cols)), [str(c) for c in cols], fontsize=7, rotation=60, ha="right")
    ax.set_yticks(range(len(rows)), [str(r) for r in rows], fontsize=7)
    ax.set_title(title, fontsize=9)
    if matrix.size <= 120:
        for (i, j), value in np.ndenumerate(matrix):
            text = "deg." if not np.isfinite(value) else fmt.format(value)
            ax.text(j, i, text, ha="center", va="center", fontsize=6)
    ax.figure.colorbar(image, ax=ax, fraction=0.04)


_PANELS = (
    ("deviation", "min deviation from the diagonal ↓", "viridis_r", 0.0, 0.6, min),
    ("correlation", "max quality correlation ↑", "viridis", -1.0, 1.0, max),
    ("steepness", "max steepness ↑", "viridis", 0.0, 1.0, max),
)


def _cells(rows: list[dict], row_of, col_of, row_values, col_values, key, best) -> np.ndarray:
    """Best non-degenerate value of ``key`` per cell (NaN where every one is degenerate)."""
    matrix = np.full((len(row_values), len(col_values)), np.nan)
    index_r = {v: i for i, v in enumerate(row_values)}
    index_c = {v: j for j, v in enumerate(col_values)}
    for row in rows:
        if row["degenerate"] or not np.isfinite(row[key]):
            continue
        i, j = index_r[row_of(row)], index_c[col_of(row)]
        current = matrix[i, j]
        matrix[i, j] = row[key] if np.isnan(current) else best(current, row[key])
    return matrix


def family_figure(result: SweepResult, family: str):
    """Three heatmaps (deviation, correlation, steepness) over the family's first two
    parameters (or parameter × reward, or family × reward), best over everything else."""
    plt = pyplot("simulation reports")
    rows = [r for r in result.rows if r["family"] == family]
    axes = axes_of(family)
    rewards = result.rewards
    if len(axes) >= 2:
        y, x = axes[0], axes[1]
        y_values, x_values = FAMILIES[family][y], FAMILIES[family][x]
        row_of, col_of = (lambda r: r["params"][y]), (lambda r: r["params"][x])
        y_label, x_label = y, x
    elif len(axes) == 1:
        y = axes[0]
        y_values, x_values = FAMILIES[family][y], rewards
        row_of, col_of = (lambda r: r["params"][y]), (lambda r: r["reward"])
        y_label, x_label = y, "reward"
    else:
        y_values, x_values = [family], rewards
        row_of, col_of = (lambda r: r["family"]), (lambda r: r["reward"])
        y_label, x_label = "", "reward"
    wide = len(x_values) > 10
    fig, panels = plt.subplots(
        1, 3, figsize=(18 if wide else 15, 0.35 * len(y_values) + (3.4 if wide else 2.6))
    )
    for ax, (key, title, cmap, vmin, vmax, best) in zip(panels, _PANELS, strict=True):
        matrix = _cells(rows, row_of, col_of, list(y_values), list(x_values), key, best)
        labels = [_short(v) for v in x_values]
        _heatmap(ax, matrix, list(y_values), labels, title, cmap=cmap, vmin=vmin, vmax=vmax)
        ax.set_xlabel(x_label, fontsize=8)
        ax.set_ylabel(y_label, fontsize=8)
    fig.suptitle(f"{family}: best over the other parameters and rewards (grey: degenerate)")
    return fig


def _short(value: Any) -> str:
    text = str(value)
    for long, short in (
        ("graded, map=", ""),
        ("range_third", "r⅓"),
        ("range_half", "r½"),
        ("optimization", "opt"),
        ("collapsed", "coll"),
        ("multitask", "multi"),
        ("(binary)", "(bin)"),
        ("map=", ""),
    ):
        text = text.replace(long, short)
    return text


def overview_figure(result: SweepResult):
    """Family × reward: the best composite score (rank average; lower is better)."""
    plt = pyplot("simulation reports")
    families = list(dict.fromkeys(p.family for p in result.environments))
    matrix = np.full((len(families), len(result.rewards)), np.nan)
    share = np.zeros_like(matrix)
    counts = np.zeros_like(matrix)
    for row in result.rows:
        i, j = families.index(row["family"]), result.rewards.index(row["reward"])
        counts[i, j] += 1
        if row["degenerate"]:
            share[i, j] += 1
        elif np.isnan(matrix[i, j]) or row["score"] < matrix[i, j]:
            matrix[i, j] = row["score"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(18, 0.4 * len(families) + 3.4))
    labels = [_short(r) for r in result.rewards]
    finite = matrix[np.isfinite(matrix)]
    vmax = float(finite.max()) if finite.size else 1.0
    _heatmap(
        left,
        matrix,
        families,
        labels,
        "best composite score ↓ (mean rank)",
        cmap="viridis_r",
        vmin=1.0,
        vmax=vmax,
        fmt="{:.0f}",
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        _heatmap(
            right,
            share / counts,
            families,
            labels,
            "share of degenerate configurations",
            cmap="Reds",
            vmin=0.0,
            vmax=1.0,
        )
    return fig


def write_sweep_report(
    result: SweepResult,
    out_dir: str | Path,
    *,
    top: int = 25,
    highlight: Sequence[tuple[str, str]] = (),
) -> Path:
    """The sweep's page: summary, ranked table, curves of the best, degenerate configurations
    and heatmaps per family; the full table goes to ``configurations.csv`` beside it."""
    out_dir = Path(out_dir)
    page = Page("execrl simulate sweep: screening reward designs offline", out_dir)
    csv_path = result.write_csv(out_dir / "configurations.csv")
    reasons = Counter(r["degenerate"] for r in result.degenerate)
    page.paragraph(HOW_TO_READ)
    page.paragraph(
        f"{len(result.rows):,} configurations ({len(result.environments):,} environments × "
        f"{len(result.rewards)} rewards) on {result.corpus or 'the stored runs'}; metric "
        f"{result.metric}, {len(result.x)} points, window {result.window}; "
        f"{len(result.degenerate):,} degenerate ("
        + ", ".join(f"{n:,} {reason}" for reason, n in reasons.most_common())
        + f"); {result.seconds:.1f} s. Full table: {csv_path.name}."
    )
    page.heading("Ranked configurations")
    page.paragraph(
        "Ranked by the mean of three ranks among the non-degenerate configurations: "
        "deviation from the diagonal (lower is better), quality correlation and steepness "
        "(higher is better) — the diagnostics that predicted online results in the source."
    )
    header = [
        "rank",
        "environment",
        "reward",
        "deviation ↓",
        "correlation ↑",
        "steepness ↑",
        "corr. smoothed",
        "AUC",
        "variance",
        "same curve",
    ]
    distinct = result.distinct(top)
    page.table(header, [[*_row(r), str(r["same"])] for r in distinct])
    page.paragraph(
        "Configurations with a curve identical to a better one are folded into it ('same "
        "curve' counts them): a graded reward ignores the gate p, for example."
    )
    best = distinct[:6]
    chosen = [*best]
    for env, rew in highlight:
        match = [r for r in result.rows if r["environment"] == env and r["reward"] == rew]
        chosen += [r for r in match if r not in chosen]
    if chosen:
        items = [
            (
                _wrap(
                    f"{'#' + str(r['rank']) if r['rank'] else r['degenerate']} "
                    f"{r['environment']} · {r['reward']}",
                    56,
                ),
                result.x,
                np.array(r["curve"]),
                result.window,
                r["slope"],
                r["intercept"],
            )
            for r in chosen
        ]
        page.figure(curves_figure(items), "curves", "the best configurations (and any named)")
    page.heading("Degenerate configurations")
    page.paragraph(
        "Flagged when the curve rewards (almost) everything (min c ≥ 0.99), (almost) nothing "
        "(max c ≤ 0.01), or is flat (the smoothed curve moves less than 0.05)."
    )
    families = list(dict.fromkeys(p.family for p in result.environments))
    table = []
    for family in families:
        rows = [r for r in result.rows if r["family"] == family]
        flagged = Counter(r["degenerate"] for r in rows if r["degenerate"])
        table.append(
            [
                family,
                len(rows),
                sum(flagged.values()),
                *(flagged.get(k, 0) for k in ("rewards everything", "rewards nothing", "flat")),
            ]
        )
    page.table(
        ["family", "configurations", "degenerate", "rewards everything", "rewards nothing", "flat"],
        table,
    )
    page.heading("Heatmaps")
    page.figure(overview_figure(result), "overview", "family × reward")
    for family in families:
        page.figure(family_figure(result, family), f"heatmap-{family}", family)
    return page.write()


def _row(r: dict[str, Any]) -> list[str]:
    return [
        str(r["rank"]),
        r["environment"],
        r["reward"],
        _fmt(r["deviation"]),
        _fmt(r["correlation"]),
        _fmt(r["steepness"]),
        _fmt(r["correlation_smoothed"]),
        _fmt(r["auc"]),
        _fmt(r["variance"], 5),
    ]
