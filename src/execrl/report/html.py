"""The page builder every execrl report uses.

A :class:`Page` collects headings, paragraphs, tables and matplotlib figures, then writes one
``index.html`` (or any name) with the PNGs saved beside it, so a report folder can be copied or
served as it is. matplotlib is imported only by :func:`pyplot`, with the Agg backend, so
nothing needs a display; without it, a report fails with one line saying what to install.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from execrl.errors import ExecrlError

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; max-width: 1200px; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td:first-child, td:nth-child(2) { text-align: left; }
img { max-width: 100%; display: block; margin: 0.5em 0; }
figcaption { color: #555; font-size: 0.9em; margin-bottom: 1.5em; }
"""


def escape(text: object) -> str:
    return html.escape(str(text))


def pyplot(purpose: str = "reports") -> Any:
    """``matplotlib.pyplot`` on the Agg backend, or an ExecrlError naming the extra to install."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ExecrlError(
            f"{purpose} draw PNGs with matplotlib, which is not installed; "
            "pip install 'execrl[plot]'"
        ) from None
    return plt


Table = tuple[list[str], list[list[str]]]
"""A table as text cells, ``(header, rows)``: what library functions return for a CLI (or a
page) to print."""


def table_html(header: list[str], rows: list[list[object]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "\n".join(
        "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table>\n<tr>{head}</tr>\n{body}\n</table>"


class Page:
    """An HTML report under construction; ``out_dir`` receives the page and its figures."""

    def __init__(self, title: str, out_dir: str | Path) -> None:
        self.title = title
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._parts: list[str] = [f"<h1>{escape(title)}</h1>"]

    def heading(self, text: str, level: int = 2) -> None:
        self._parts.append(f"<h{level}>{escape(text)}</h{level}>")

    def paragraph(self, text: str) -> None:
        self._parts.append(f"<p>{escape(text)}</p>")

    def raw(self, markup: str) -> None:
        """Trusted markup, added as it is (never pass user or program text here)."""
        self._parts.append(markup)

    def table(self, header: list[str], rows: list[list[object]]) -> None:
        self._parts.append(table_html(header, rows))

    def figure(self, fig: Any, name: str, caption: str = "") -> Path:
        """Save a matplotlib figure as ``<name>.png`` beside the page, close it, and show it."""
        import matplotlib.pyplot as plt

        path = self.out_dir / f"{name}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        self._parts.append(f'<img src="{escape(path.name)}" alt="{escape(name)}">')
        if caption:
            self._parts.append(f"<figcaption>{escape(caption)}</figcaption>")
        return path

    def html(self) -> str:
        body = "\n".join(self._parts)
        return (
            f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{escape(self.title)}</title>\n<style>{_STYLE}</style></head>\n"
            f"<body>\n{body}\n</body></html>\n"
        )

    def write(self, name: str = "index.html") -> Path:
        path = self.out_dir / name
        path.write_text(self.html(), encoding="utf-8")
        return path
