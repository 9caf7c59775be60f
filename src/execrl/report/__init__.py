"""Plots and HTML reports: one self-contained page per run, with its PNGs beside it."""

from execrl.report.html import Page, Table, escape, pyplot, table_html

__all__ = ["Page", "Table", "escape", "pyplot", "table_html"]
