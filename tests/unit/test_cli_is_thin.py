"""The CLI parses arguments, calls one library function, and prints or writes (STYLE.md, "A
thin CLI"): no command module grows past ``MAX_LINES``. A module that does is doing the
program's work, which belongs in the library, where a user can call it and a test can reach
it without a shell."""

from __future__ import annotations

from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "src" / "execrl" / "cli"
MAX_LINES = 200


def test_no_cli_module_is_over_the_limit():
    sizes = {p.name: len(p.read_text().splitlines()) for p in sorted(CLI.glob("*.py"))}
    assert len(sizes) > 20  # (the folder is there and read)
    over = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert over == {}, f"CLI modules over {MAX_LINES} lines (move their work into the library)"
