"""Make ``tests.service._server`` importable as such (pytest puts ``tests/`` on sys.path, not
the repository root, because ``tests/`` is not a package)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
