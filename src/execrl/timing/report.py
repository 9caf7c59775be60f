"""A campaign report: one self-contained HTML file and the PNGs it shows, in one folder.

Sections (each only when its input is given):

- **noise** (always): the per-solution rerun std of the mean percentile, CPU vs wall (and the
  count of a counted campaign), and the per-test rerun CV against the test's median duration
  (a count on its own axis, in its unit); then every table of ``diagnostics.diagnose``.
- **calibration** (``fresh`` and ``calibration``): stored vs fresh durations before and after
  the map (log-log, with the diagonal), and the residuals log(fresh / Γ(stored)) with the
  ±3σ band the drift monitor uses.
- **contention** (``contention``): CPU- vs wall-time noise per load level (and the count's,
  when the contention test ran with a counted timing).

Needs matplotlib (``pip install 'execrl[plot]'``); it is imported only here, with the Agg
backend, so nothing needs a display.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from execrl.report import escape, pyplot, table_html
from execrl.sandbox.limits import TIMING_UNITS, is_counted
from execrl.timing.calibration import pair_campaigns
from execrl.timing.contention import ContentionReport, load_contention
from execrl.timing.diagnostics import NoiseReport, diagnose, field_key
from execrl.timing.drift import DEFAULT_K
from execrl.timing.store import Campaign, describe_timing

COLORS = {
    "cpu": "#1f77b4",
    "wall": "#d62728",
    "instructions": "#2ca02c",
    "cycles_estimate": "#9467bd",
}


def axis_scale(timing: str) -> tuple[float, str]:
    """(factor, unit) a plot shows ``timing``'s durations in: seconds as ms, counts as counts."""
    return (1.0, TIMING_UNITS[timing]) if is_counted(timing) else (1000.0, "ms")


def write_report(
    campaign: Campaign,
    out_dir: str | Path,
    fresh: Campaign | None = None,
    calibration: Callable[[np.ndarray], np.ndarray] | None = None,
    contention: ContentionReport | str | Path | None = None,
) -> Path:
    """Write ``index.html`` and its PNGs into ``out_dir``; returns the HTML path.
    ``calibration`` maps ``campaign``'s (stored) durations onto ``fresh``'s scale."""
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(contention, str | Path):
        contention = load_contention(contention)
    noise = diagnose(campaign)
    body = [_header(campaign)]
    body.append(_noise_section(plt, noise, out))
    if calibration is not None and fresh is not None:
        body.append(_calibration_section(plt, campaign, fresh, calibration, out))
    elif calibration is not None or fresh is not None:
        body.append("<p><em>Calibration plots need both a fresh campaign and a map.</em></p>")
    if contention is not None:
        body.append(_contention_section(plt, contention, out))
    path = out / "index.html"
    path.write_text(_page(f"Timing report: {campaign.id}", "\n".join(body)), encoding="utf-8")
    return path


def _pyplot():
    return pyplot("timing reports")


# --------------------------------------------------------------------------------------------
# Sections


def _header(campaign: Campaign) -> str:
    info = campaign.info
    return (
        f"<h1>Timing report: {_e(campaign.id)}</h1>\n<p>Machine: {_e(info.machine.describe())}"
        f" · timing {_e(campaign.timing)} · {len(info.problems)} problems · "
        f"{info.settings.reruns} reruns · "
        f"{len(campaign.measurements)} (problem, test, reference) triples · measured "
        f"{info.created_at:%Y-%m-%d %H:%M} UTC · report written "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC</p>"
    )


def _noise_section(plt, noise: NoiseReport, out: Path) -> str:
    counted = (noise.counted,) if noise.counted else ()
    fig, axes = plt.subplots(1, 2 + len(counted), figsize=(11 + 5 * len(counted), 4))
    left = axes[0]
    stds = {t: [getattr(s, f"std_{field_key(t)}") for s in noise.solutions] for t in noise.timings}
    finite = [v for values in stds.values() for v in values if math.isfinite(v)]
    bins = np.linspace(0, max([*finite, 1.0]), 21)
    for timing, values in stds.items():
        left.hist(
            [v for v in values if math.isfinite(v)], bins=bins, alpha=0.55,
            color=COLORS[timing], label=timing,
        )  # fmt: skip
    left.set(
        xlabel="std of mean percentile over reruns (points)",
        ylabel="solutions",
        title="rerun noise per solution",
    )
    left.legend()
    _cv_scatter(axes[1], noise, ("cpu", "wall"))
    for ax, timing in zip(axes[2:], counted, strict=True):
        _cv_scatter(ax, noise, (timing,))
    _save(plt, fig, out / "noise.png")
    tables = "\n".join(
        f"<h3>{_e(title)}</h3>\n{_html_table(header, rows)}"
        for title, header, rows in noise.tables()
    )
    return (
        "<h2>Noise</h2>\n<p>Per solution: std over reruns of its mean per-test percentile "
        "among the other references' medians (spec §2), in points; per test: the rerun "
        'coefficient of variation, mean over its references.</p>\n<img src="noise.png" '
        f'alt="rerun noise">\n{tables}'
    )


def _cv_scatter(ax, noise: NoiseReport, timings: tuple[str, ...]) -> None:
    """Rerun CV per test against its median duration, for timings that share a unit."""
    factor, unit = axis_scale(timings[0])
    positive = False
    for timing in timings:
        k = field_key(timing)
        suffix = "" if is_counted(timing) else "_s"
        x = [(getattr(t, f"median_{k}{suffix}") or math.nan) * factor for t in noise.tests]
        y = [getattr(t, f"cv_{k}") for t in noise.tests]
        ax.scatter(x, y, s=12, alpha=0.6, color=COLORS[timing], label=timing)
        plotted = (a > 0 and b is not None and math.isfinite(b) for a, b in zip(x, y, strict=True))
        positive = positive or any(plotted)
    # A log axis needs a plotted point at a positive x (with one rerun, or nothing passing, every
    # CV is undefined and nothing is plotted).
    ax.set(xscale="log" if positive else "linear")
    ax.set(xlabel=f"median ({unit})", ylabel="rerun CV", title="rerun CV per test")
    ax.legend()


def _calibration_section(plt, stored: Campaign, fresh: Campaign, calibration, out: Path) -> str:
    timing = getattr(calibration, "timing", "cpu")
    pairs = pair_campaigns(stored, fresh, timing=timing)
    factor, unit = axis_scale(timing)
    s, f = pairs.stored_s * factor, pairs.fresh_s * factor  # (ms, or the count)
    predicted = np.asarray(calibration(pairs.stored_s), dtype=float) * factor
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, x, title in ((axes[0], s, "before: stored"), (axes[1], predicted, "after: Γ(stored)")):
        ax.scatter(x, f, s=10, alpha=0.6)
        ok = np.concatenate([x[x > 0], f[f > 0]])
        lo, hi = (ok.min(), ok.max()) if ok.size else (1, 10)
        ax.plot([lo, hi], [lo, hi], color="grey", lw=1, ls="--")
        ax.set(xscale="log", yscale="log", xlabel=f"{title} ({unit})", title=title)
    axes[0].set_ylabel(f"fresh {timing} ({unit})")
    _save(plt, fig, out / "calibration.png")

    keep = (predicted > 0) & (f > 0)
    residuals = np.log(f[keep] / predicted[keep])
    sigma = float(residuals.std(ddof=1)) if residuals.size > 1 else math.nan
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.scatter(s[keep], residuals, s=10, alpha=0.6)
    ax.axhline(0, color="grey", lw=1)
    if math.isfinite(sigma):
        for sign in (-1, 1):
            ax.axhline(sign * DEFAULT_K * sigma, color=COLORS["wall"], lw=1, ls="--")
    ax.set(
        xscale="log",
        xlabel=f"stored ({unit})",
        ylabel="log(fresh / Γ(stored))",
        title=f"residuals (σ = {sigma:.3f}; dashed: ±{DEFAULT_K:g}σ)",
    )
    _save(plt, fig, out / "residuals.png")
    formula = getattr(calibration, "formula", "a custom map")
    metrics = getattr(calibration, "metrics", None)
    figures = (
        f" · R²_CV {metrics.r2_cv:.4f} · Spearman {metrics.spearman_before:.3f} → "
        f"{metrics.spearman_after:.3f}"
        if metrics is not None
        else ""
    )
    return (
        f"<h2>Calibration</h2>\n<p>{_e(stored.id)} (stored) → {_e(fresh.id)} (fresh), "
        f"{describe_timing(timing)}, {len(pairs)} triples · Γ: {_e(formula)}{_e(figures)}</p>\n"
        '<img src="calibration.png" alt="calibration before and after">\n'
        '<img src="residuals.png" alt="calibration residuals">'
    )


def _contention_section(plt, report: ContentionReport, out: Path) -> str:
    loads = [r.load for r in report.results]
    fig, ax = plt.subplots(figsize=(7, 4))
    counted = (report.timing,) if is_counted(report.timing) else ()
    for timing in ("cpu", "wall", *counted):
        for stat, style in (("mean", "-o"), ("median", "--s")):
            values = [getattr(r, f"{field_key(timing)}_std_{stat}") for r in report.results]
            ax.plot(
                loads, [math.nan if v is None else v for v in values], style,
                color=COLORS[timing], label=f"{timing} ({stat})",
            )  # fmt: skip
    ax.axhline(report.target_points, color="grey", lw=1, ls=":")
    ax.set(
        xlabel="busy-loop processes per core",
        ylabel="std of mean percentile (points)",
        title="rerun noise under contention",
    )
    ax.legend()
    _save(plt, fig, out / "contention.png")
    verdict = "met" if report.target_met() else "not met"
    return (
        f"<h2>Contention</h2>\n<p>{len(report.problems)} problems, {report.reruns} reruns, "
        f"{_e(report.machine.describe())}. Target (CPU std ≤ {report.target_points:g} points "
        f"at every load, wall above it somewhere): <strong>{verdict}</strong>.</p>\n"
        f'<img src="contention.png" alt="contention">\n{_html_table(*report.table())}'
    )


# --------------------------------------------------------------------------------------------
# HTML


def _save(plt, fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    return table_html(header, rows)


def _page(title: str, body: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; max-width: 1200px; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }}
th, td {{ border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }}
th {{ background: #f3f3f3; }}
td:first-child, td:nth-child(2) {{ text-align: left; }}
img {{ max-width: 100%; display: block; margin: 0.5em 0; }}
</style></head>
<body>
{body}
</body></html>
"""


def _e(text: object) -> str:
    return escape(text)
