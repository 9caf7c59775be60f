"""The machine programs ran on: a fingerprint stored beside measured durations (a timing
campaign, an evaluation campaign) and reported by ``execrl serve``'s info endpoint.

It describes where the sandbox executed, not how durations are stored, so it lives in the
sandbox package, which the timing store, the evaluation campaigns and the service all sit
above.
"""

from __future__ import annotations

import os
import platform
import socket

from pydantic import BaseModel, ConfigDict


class MachineFingerprint(BaseModel):
    """Enough about the machine to tell two campaigns' hardware apart."""

    model_config = ConfigDict(frozen=True)

    hostname: str
    cpu_model: str
    cores: int
    kernel: str
    python: str

    @classmethod
    def current(cls) -> MachineFingerprint:
        """This machine now."""
        return cls(
            hostname=socket.gethostname(),
            cpu_model=cpu_model(),
            # the machine's cores, not this process's: reserve_host_core pins it to one
            cores=os.cpu_count() or 1,
            kernel=platform.release(),
            python=platform.python_version(),
        )

    def describe(self) -> str:
        """One line for a report: CPU, cores, kernel, Python."""
        return f"{self.cpu_model}, {self.cores} cores, Linux {self.kernel}, Python {self.python}"


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (what ``platform`` says where there is none)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
