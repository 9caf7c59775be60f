"""Shared helpers for the benchmark scripts: machine description and result printing."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "kernel": platform.release(),
        "load_1min": round(os.getloadavg()[0], 2),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
    }


def median_ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1000


def report(name: str, result: dict, out: Path | None) -> None:
    payload = {"benchmark": name, "machine": machine(), **result}
    text = json.dumps(payload, indent=2)
    print(text)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")
