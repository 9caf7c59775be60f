"""The machine programs ran on: a fingerprint stamped on every record where the program ran
(``ExecutionRecord.machine``: the local pool, an ``execrl serve`` server, a Ray node's pool),
kept in every timing-campaign row, stored beside an evaluation campaign and reported by
``execrl serve``'s info endpoint.

``$EXECRL_MACHINE_ID`` replaces the host name: a container gets a new host name each time it
starts, and containers sharing one machine's hardware may want one name (or each its own).

It describes where the sandbox executed, not how durations are stored, so it lives in the
sandbox package, which the timing store, the evaluation campaigns and the service all sit
above.
"""

from __future__ import annotations

import hashlib
import os
import platform
import socket

from pydantic import BaseModel, ConfigDict

from execrl.errors import ConfigError

MACHINE_ID_ENV = "EXECRL_MACHINE_ID"
"""The environment variable that replaces the host name in this machine's fingerprint."""
MAX_MACHINE_ID = 100


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
            hostname=machine_name(),
            cpu_model=cpu_model(),
            # the machine's cores, not this process's: reserve_host_core pins it to one
            cores=os.cpu_count() or 1,
            kernel=platform.release(),
            python=platform.python_version(),
        )

    def describe(self) -> str:
        """One line for a report: CPU, cores, kernel, Python."""
        return f"{self.cpu_model}, {self.cores} cores, Linux {self.kernel}, Python {self.python}"

    @property
    def key(self) -> str:
        """A short name that tells machines apart: the host name and 8 hex digits of every
        field, so two fingerprints have the same key exactly when they are equal (a host
        whose kernel or Python changed is another machine to a timing)."""
        digest = hashlib.sha256(self.model_dump_json().encode("utf-8")).hexdigest()[:8]
        return f"{self.hostname}/{digest}"


def machine_name() -> str:
    """``$EXECRL_MACHINE_ID`` where it is set (a ConfigError when it is not a short name
    without spaces), else the host name."""
    given = os.environ.get(MACHINE_ID_ENV, "").strip()
    if not given:
        return socket.gethostname()
    if len(given) > MAX_MACHINE_ID or not given.isprintable() or any(c.isspace() for c in given):
        raise ConfigError(
            f"{MACHINE_ID_ENV}={given[:40]!r}: a machine id is a name of at most "
            f"{MAX_MACHINE_ID} printable characters without spaces"
        )
    return given


_EXECUTING: dict[str, MachineFingerprint] = {}


def executing_machine() -> MachineFingerprint:
    """This machine's fingerprint as records are stamped with it: read once per process (and
    again if its name changes) rather than for every record."""
    name = machine_name()
    fingerprint = _EXECUTING.get(name)
    if fingerprint is None:
        fingerprint = _EXECUTING.setdefault(name, MachineFingerprint.current())
    return fingerprint


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
