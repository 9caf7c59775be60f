"""The repository root on sys.path, so ``tests.service._server`` imports as such (pytest puts
``tests/`` there, not the root: ``tests/`` is not a package)."""

import sys
from pathlib import Path

if (root := str(Path(__file__).resolve().parents[2])) not in sys.path:
    sys.path.insert(0, root)
