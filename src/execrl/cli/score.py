"""``execrl score``: the main job, filled in below."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    pass
