"""Run the sandbox's cgroup v2 tests in a VM whose kernel mounts the unified hierarchy.

On a cgroup v1 host the memory, pids and cpu controllers are bound to v1 hierarchies, and a
private cgroup2 mount cannot get them, so the v2 code paths cannot run there. This tool boots
the distribution's kernel under QEMU with virtme-ng (``vng``): the host's root is the guest's
root, shared read-only over 9p (this checkout and its .venv included, at the same paths), the
checkout gets a guest-only writable overlay, and one host directory is shared writable for the
results. In the guest, cgroup2 is mounted at /sys/fs/cgroup with ``cpu memory pids`` enabled
for children of the root cgroup, and pytest runs the cgroup tests as root.

Needs (Debian): ``apt-get install -y qemu-system-x86 linux-image-amd64 busybox-static`` and
``pip install virtme-ng`` (the dev extra). KVM is used only with ``--kvm``: the default is
TCG (emulation), which works where KVM is missing or, nested, cannot start a guest.

    .venv/bin/python tools/cgroup2_vm.py            # summary as JSON on stdout
    make test-cgroup2                               # the same through pytest

Exit status: 0 when the inner pytest passed with the three controllers present and no case
of tests/security/test_cgroup_v2.py skipped; 1 otherwise; 2 when the VM could not run.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CONTROLLERS = ("cpu", "memory", "pids")
V2_TESTS = "tests/security/test_cgroup_v2.py"
DEFAULT_TESTS = (V2_TESTS, "tests/security/test_accounting_limits.py")
# Time bounds written for a real CPU, about cgroups not at all: under TCG emulation a
# 4,096-file flood takes ~5 s (run on 2026-12-07: 5.06 s against a 5 s bound).
EMULATION_DESELECTED = (
    "tests/security/test_accounting_limits.py::test_an_inode_flood_hits_enospc_quickly",
    "tests/security/test_accounting_limits.py::test_shared_memory_inodes_are_bounded_too",
)

GUEST_SCRIPT = """\
set -u
out={out}
cd {repo}
# the unified hierarchy, and the three controllers delegated to the root's children
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
echo '{enable}' > /sys/fs/cgroup/cgroup.subtree_control
cat /sys/fs/cgroup/cgroup.subtree_control > $out/subtree_control
cat /proc/self/cgroup > $out/self_cgroup
uname -r > $out/kernel
PYTHONDONTWRITEBYTECODE=1 {python} -m pytest -q -p no:randomly -p no:cacheprovider -rs \\
    --junitxml=$out/junit.xml {tests} > $out/pytest.log 2>&1
echo $? > $out/rc
"""


class VmError(Exception):
    """The VM could not be started or gave no result (not a test failure)."""


def find_kernel(kernel: str | None) -> str:
    if kernel:
        return kernel
    found = sorted(glob.glob("/boot/vmlinuz-*"))
    if not found:
        raise VmError("no kernel in /boot: apt-get install -y linux-image-amd64")
    return found[-1]


def find_vng() -> tuple[str, dict[str, str]]:
    """The ``vng`` command next to this interpreter, and an environment whose PATH has its
    helpers (``virtme-run``)."""
    bindir = Path(sys.executable).parent
    vng = bindir / "vng"
    if not vng.exists():
        raise VmError("virtme-ng is not installed here: pip install virtme-ng")
    for tool in ("qemu-system-x86_64", "busybox"):
        if shutil.which(tool) is None:
            raise VmError(f"`{tool}` is missing: apt-get install -y qemu-system-x86 busybox-static")
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '')}")
    return str(vng), env


def vng_command(vng: str, kernel: str, out: Path, args: argparse.Namespace) -> list[str]:
    script = GUEST_SCRIPT.format(
        out=shlex.quote(str(out)),
        repo=shlex.quote(str(REPO)),
        enable=" ".join(f"+{c}" for c in CONTROLLERS),
        python=shlex.quote(str(REPO / ".venv" / "bin" / "python")),
        tests=" ".join(shlex.quote(t) for t in [*args.tests, *deselected(args)]),
    )
    (out / "guest.sh").write_text(script)
    command = [vng, "--run", kernel, "--memory", args.memory, "--cpus", str(args.cpus)]
    command += [f"--rwdir={out}", f"--overlay-rwdir={REPO}"]
    if not args.kvm:
        command.append("--disable-kvm")
    return [*command, "--exec", f"sh {shlex.quote(str(out / 'guest.sh'))}"]


def deselected(args: argparse.Namespace) -> list[str]:
    """``--deselect`` options for the time-bound cases that emulation cannot meet."""
    return [] if args.kvm else [f"--deselect={node}" for node in EMULATION_DESELECTED]


def summarise(out: Path) -> dict:
    """What the guest left in ``out``: controllers, the inner pytest's status and cases."""
    read = lambda name: (out / name).read_text().strip() if (out / name).exists() else ""  # noqa: E731
    if not read("rc"):
        raise VmError(f"the guest wrote no result; console: {read('console.log')[-2000:]}")
    cases: dict[str, list[str]] = {"passed": [], "failed": [], "skipped": []}
    skip_reasons: dict[str, str] = {}
    if (out / "junit.xml").exists():
        for case in ET.parse(out / "junit.xml").getroot().iter("testcase"):
            name = f"{case.get('classname')}::{case.get('name')}"
            if case.find("skipped") is not None:
                cases["skipped"].append(name)
                skip_reasons[name] = case.find("skipped").get("message", "")
            elif case.find("failure") is not None or case.find("error") is not None:
                cases["failed"].append(name)
            else:
                cases["passed"].append(name)
    v2_module = V2_TESTS.removesuffix(".py").replace("/", ".")
    return {
        "kernel": read("kernel"),
        "cgroup": read("self_cgroup"),
        "controllers": read("subtree_control").split(),
        "returncode": int(read("rc")),
        **cases,
        "v2_passed": [c for c in cases["passed"] if c.startswith(v2_module)],
        "v2_skipped": [c for c in cases["skipped"] if c.startswith(v2_module)],
        "skip_reasons": skip_reasons,
        "pytest_tail": read("pytest.log")[-3000:],
    }


def verdict(summary: dict) -> bool:
    return (
        summary["returncode"] == 0
        and set(CONTROLLERS) <= set(summary["controllers"])
        and bool(summary["v2_passed"])
        and not summary["v2_skipped"]
        and not summary["failed"]
    )


def run_vm(args: argparse.Namespace) -> dict:
    kernel = find_kernel(args.kernel)
    vng, env = find_vng()
    out = Path(tempfile.mkdtemp(prefix="execrl-cgroup2-vm-"))
    command = vng_command(vng, kernel, out, args)
    with open(out / "console.log", "wb") as console:
        try:
            # its own session: on a timeout, QEMU and its helpers go with it
            proc = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT,
                env=env, cwd=REPO, start_new_session=True,
            )  # fmt: skip
            proc.wait(timeout=args.timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            raise VmError(f"the VM ran past {args.timeout_s} s (results in {out})") from None
    summary = summarise(out)
    summary.update(results_dir=str(out), accel="kvm" if args.kvm else "tcg", ok=verdict(summary))
    return summary


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernel", help="kernel image to boot (default: newest /boot/vmlinuz-*)")
    parser.add_argument("--memory", default="2G", help="guest memory (QEMU -m)")
    parser.add_argument("--cpus", type=int, default=2, help="guest CPUs")
    parser.add_argument("--kvm", action="store_true", help="use KVM instead of TCG emulation")
    parser.add_argument("--timeout-s", type=int, default=1200, help="limit for the whole VM run")
    parser.add_argument(
        "tests", nargs="*", default=list(DEFAULT_TESTS), help="test paths, relative to the repo"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        summary = run_vm(args)
    except VmError as exc:
        print(f"cgroup2_vm: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
