"""Instruction counts as a timing: programs counted under Valgrind's cachegrind.

A clock on a shared machine moves with its neighbours (``execrl timing floor`` measures a CV of
20-24 % here); a count of executed instructions does not. With ``timing="instructions"`` (or
``"cycles_estimate"``) every passing test is run a second time, in a fork server that itself
runs under ``valgrind --tool=cachegrind``, and the count is the program's own work only:

- *start-up once*: the fork server (interpreter, imports, sandbox) starts once under Valgrind;
  each test is a forked child, which inherits the server's running count;
- *the twin*: right before the program starts, the child forks a twin that exits at once.
  Both report their totals at exit; the child's total less its twin's is exactly what the
  child did after the fork (the program, and a fixed harness path around it);
- *the harness constant*: that fixed path is measured once per server, on an empty program
  of each test kind, and subtracted. An empty program counts 0;
- *the same state every time*: each request is answered by a fork of a server whose own loop
  never changes its state, with the hash seed, the allocator and the address space fixed
  (below), so a rerun counts the same to the instruction.

The verdict never comes from the counted run: it is the native run's (its timeouts against
the problem's own limit included); the counted run only has to agree that the test passes,
under limits scaled by ``SLOWDOWN_CAP``. docs/timing.md has the rules and the measured cost.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from dataclasses import dataclass, fields

from execrl.errors import ConfigError
from execrl.sandbox.limits import Limits

SLOWDOWN_CAP = 100
"""The counted run's CPU and wall limits are the native limits times this: cachegrind runs
Python 30-60x slower than native, and the counted run must not time out where the native
one passed."""

EXTRA_MEMORY_MB = 512
"""Added to the memory limit of a counted run: Valgrind's own memory (its translations, the
cost tables) lives in the program's address space and cgroup."""

MAIN_STACK_MB = 256
"""Valgrind sizes the client's main stack when it starts (``--main-stacksize``), not from the
child's RLIMIT_STACK: this is ``Limits.stack_mb``'s default, so deep recursion that works
natively works counted."""

L1_MISS_CYCLES = 10
"""``cycles_estimate``: extra cycles charged per first-level cache miss (instruction or data)."""
LL_MISS_CYCLES = 100
"""``cycles_estimate``: extra cycles charged per last-level miss (a trip to memory)."""

WARM_UP_REQUESTS = 24
"""Pings a counted server answers before it measures its harness (see
``ForkServer._warm_up_counted_loop``)."""

HASH_SEED = "0"
"""PYTHONHASHSEED of the counted server: str and bytes hashes (so set and dict layouts, and the
probes of every lookup) are the same on every run; with a random seed a count moves by ~5 %."""

MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072"
"""glibc's defaults, set explicitly: that turns its dynamic thresholds off (they rise as large
blocks are freed), so where a big block comes from does not depend on what was freed before."""

INSTALL_HINT = (
    "install Valgrind (Debian/Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind)"
)


@dataclass(frozen=True)
class Counters:
    """Cachegrind's totals for one process (misses are 0 without cache simulation)."""

    ir: int = 0
    """Instructions executed."""
    i1mr: int = 0
    ilmr: int = 0
    d1mr: int = 0
    d1mw: int = 0
    dlmr: int = 0
    dlmw: int = 0

    def __add__(self, other: Counters) -> Counters:
        return Counters(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __sub__(self, other: Counters) -> Counters:
        return Counters(*(getattr(self, f.name) - getattr(other, f.name) for f in fields(self)))

    def times(self, k: int) -> Counters:
        return Counters(*(getattr(self, f.name) * k for f in fields(self)))

    def cycles_estimate(self) -> float:
        """Instructions plus weighted misses, as KCachegrind's cycle estimation (and in the
        spirit of CodSpeed's): ``Ir + L1_MISS_CYCLES * (I1mr + D1mr + D1mw)
        + LL_MISS_CYCLES * (ILmr + DLmr + DLmw)``."""
        l1 = self.i1mr + self.d1mr + self.d1mw
        ll = self.ilmr + self.dlmr + self.dlmw
        return float(self.ir + L1_MISS_CYCLES * l1 + LL_MISS_CYCLES * ll)

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_SUMMARY = re.compile(
    r"^==(?P<pid>\d+)== (?P<what>I   refs|I1  misses|LLi misses|D1  misses|LLd misses):\s+"
    r"(?P<total>[\d,]+)(?:\s+\(\s*(?P<rd>[\d,]+) rd\s+\+\s+(?P<wr>[\d,]+) wr\))?",
    re.MULTILINE,
)
_FAILED = re.compile(r"^==(?P<pid>\d+)== (?:error|.*[Cc]an't|.*[Ff]atal)", re.MULTILINE)


def _int(text: str | None) -> int:
    return int(text.replace(",", "")) if text else 0


def parse_summaries(log: str) -> tuple[dict[int, Counters], set[int]]:
    """The totals each process reported at exit in cachegrind's log, by pid, and the pids that
    reported an error (no trustworthy total: e.g. it could not write its output file). Only
    Valgrind's own ``==pid==`` lines count: what a program makes Valgrind print for it is
    prefixed ``**pid**``."""
    found: dict[int, dict[str, int]] = {}
    for m in _SUMMARY.finditer(log):
        values = found.setdefault(int(m["pid"]), {})
        what = m["what"]
        if what == "I   refs":
            values["ir"] = _int(m["total"])
        elif what == "I1  misses":
            values["i1mr"] = _int(m["total"])
        elif what == "LLi misses":
            values["ilmr"] = _int(m["total"])
        elif what == "D1  misses":
            values["d1mr"], values["d1mw"] = _int(m["rd"]), _int(m["wr"])
        else:
            values["dlmr"], values["dlmw"] = _int(m["rd"]), _int(m["wr"])
    failed = {int(m["pid"]) for m in _FAILED.finditer(log)}
    return {pid: Counters(**v) for pid, v in found.items() if "ir" in v}, failed


def valgrind_command(timing: str, log_fd: int) -> list[str]:
    """The prefix that runs the counted fork server under cachegrind (cache simulation only
    for ``cycles_estimate``: it doubles the cost)."""
    return [
        valgrind_path(),
        "--tool=cachegrind",
        f"--cache-sim={'yes' if timing == 'cycles_estimate' else 'no'}",
        "--cachegrind-out-file=/dev/null",  # the totals come from the log
        f"--log-fd={log_fd}",
        f"--main-stacksize={MAIN_STACK_MB * 1024 * 1024}",
        "--trace-children=no",  # (programs cannot exec in this mode: see the child's filter)
    ]


def fixed_layout_prefix() -> list[str]:
    """``setarch -R`` where there is one: no address-space randomisation for the counted
    server, so objects hashed by address (sets of objects, dicts keyed by them) are laid out
    the same on every run."""
    setarch = shutil.which("setarch")
    return [setarch, "-R"] if setarch else []


def fixed_width_json(config: dict) -> str:
    """A counted zygote's configuration as JSON of a width its numbers do not change: padded
    with spaces to the width it would have with every number at ``NUMBER_WIDTH`` digits. The
    text lands in the zygote's heap (``sys.argv``); at another length (a uid or a descriptor
    with one digit more) the heap the program starts in is laid out otherwise, and the same
    program counted 0.2 % more or less on one server than on the next."""
    text = json.dumps(config)
    return text.ljust(len(json.dumps(_widest(config))))


NUMBER_WIDTH = 12
"""Digits allowed for any number in a counted zygote's configuration (descriptors, uids,
sizes): the padding of ``fixed_width_json`` covers them."""


def _widest(value):
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return 10**NUMBER_WIDTH - 1
    if isinstance(value, dict):
        return {k: _widest(v) for k, v in value.items()}
    return [_widest(v) for v in value]


def valgrind_path() -> str:
    """The Valgrind executable; a ConfigError with the install command when there is none."""
    path = shutil.which("valgrind")
    if path is None:
        raise ConfigError(
            f"timing by instruction count needs Valgrind, which is not installed: {INSTALL_HINT}"
        )
    return path


@functools.cache
def valgrind_status() -> tuple[bool, str]:
    """Whether cachegrind can count here, and a line saying so (for ``execrl doctor``)."""
    path = shutil.which("valgrind")
    if path is None:
        return False, f"not installed: {INSTALL_HINT}"
    try:
        out = subprocess.run(
            [
                path,
                "--tool=cachegrind",
                "--cache-sim=no",
                "--cachegrind-out-file=/dev/null",
                "/bin/true",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"{path} does not run: {exc}"
    counters, _ = parse_summaries(out.stderr)
    if out.returncode != 0 or not counters:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return False, f"{path} cannot count instructions here: {last}"
    version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.strip()
    return True, f"{version} at {path}: timing='instructions' and 'cycles_estimate' work"


def require_valgrind() -> None:
    """Raise a one-line ConfigError (with the install command) when counting cannot work."""
    ok, line = valgrind_status()
    if not ok:
        raise ConfigError(f"timing by instruction count needs a working Valgrind: {line}")


COUNTS_PER_SECOND = {"instructions": 1.0e10, "cycles_estimate": 1.0e10}
"""A default exchange rate between a count and a CPU second, for the few places that must put
a limit given in seconds on a count scale (the duration a timed-out test is charged, a
filter's cut-off). Measured on the bundled references on the machine in docs/benchmarks.md;
``execrl.timing.calibration`` fits this machine's own (``fit_count_rate``) and callers should
pass that where they have it. Orders and percentiles never use it."""


def seconds_as(seconds: float, timing: str, per_second: float | None = None) -> float:
    """``seconds`` in ``timing``'s unit: itself for cpu and wall, a count for the counted
    timings (at ``per_second``, or the default rate)."""
    if timing not in COUNTS_PER_SECOND:
        return seconds
    return seconds * (per_second or COUNTS_PER_SECOND[timing])


def counted_limits(limits: Limits) -> Limits:
    """The limits of a counted run: CPU and wall limits times ``SLOWDOWN_CAP`` (past the
    native maximum: the counted run is a measurement, its verdict is the native run's) and
    ``EXTRA_MEMORY_MB`` more memory."""
    resolved = limits.resolved()
    return resolved.model_copy(
        update={
            "cpu_time_s": resolved.cpu_time_s * SLOWDOWN_CAP,
            "wall_time_s": resolved.wall_limit_s * SLOWDOWN_CAP,
            "memory_mb": resolved.memory_mb + EXTRA_MEMORY_MB,
        }
    )


def attach_counters(run: dict, harness: Counters | None) -> None:
    """Turn a counted run's log (``count_log``, ``count_pids``: the program's pid first, then
    the other processes of the test that are not its twin) into ``run["counters"]``: the
    program's total less its twin's, less ``harness`` (an empty program's, when given); or
    ``run["count_error"]`` saying why there is none. A count is only taken from a program
    that ended by itself: a killed process reports nothing."""
    log, pids = run.pop("count_log", None), run.pop("count_pids", None)
    if log is None or not pids:
        return
    totals, failed = parse_summaries(log)
    program = pids[0]
    twins = [pid for pid in totals if pid not in pids]
    if program in failed or program not in totals:
        run["count_error"] = "the program reported no count (it did not end by itself)"
        return
    if len(twins) != 1:
        run["count_error"] = f"expected one twin process in the log, found {len(twins)}"
        return
    own = totals[program] - totals[twins[0]]
    if harness is not None:
        own = own - harness
    if own.ir < -HARNESS_TOLERANCE:
        run["count_error"] = f"an impossible count ({own.ir} instructions): not trusted"
        return
    run["counters"] = Counters(*(max(0, v) for v in own.as_dict().values()))


HARNESS_TOLERANCE = 20_000
"""How far below the empty program's count a program may land before its count is refused as
impossible: the harness path varies by a few hundred instructions (the server's own history:
which of its code paths are specialised), a count below that by more than this means the
totals were not what they claim."""
