"""The fork server ("zygote") that runs inside the sandbox: a package of small modules, one
per job, in the order they build on each other (``MODULES``).

It imports only the standard library, so the sandbox needs no site-packages, and its modules
import only each other (``tests/unit/test_zygote_stdlib.py`` checks both). Every module it
imports is in every forked child's address space, and a larger one makes each fork slower:
it keeps to small modules (no socket, selectors, shutil, hashlib, threading, typing);
traceback is imported once the zygote has started (see ``main``).

It is started by ``execrl.sandbox.forkserver`` as ``python -I -S launch.py CONFIG``
(``isolation.zygote_command``), usually as pid 1 of fresh namespaces (net, pid, mount, ipc,
uts). ``launch.py`` loads these modules as the package ``_zygote`` (``_zygote.wire``, ...;
no bytecode cache is read or written) and calls ``main.main``. On the host the same modules
are ``execrl.sandbox.zygote.*``: the host shares the wire format and the value codec.

Life of the zygote:

1. Build a minimal read-only root (``rootfs``) and ``pivot_root`` into it.
2. Import the allowed modules once, install the seccomp filter (``seccomp``), then serve
   requests from the host on a private pipe (``server``).
3. For each test: compile the program once (``compiler``, cached), fork one fresh child,
   lower its limits, drop to an unprivileged uid, run it with the language's runner
   (``runner``; Python's: ``child``, and for assert tests ``calls`` and ``checker``), and
   report raw results — exit status, stdout/stderr bytes, CPU time measured from outside
   (``cgroup``: the worker's test cgroup, which counts every process the program spawned,
   whoever reaps it; the zygote's ``RUSAGE_CHILDREN`` delta where no cgroup is available).

The zygote never holds expected outputs: the host compares results, so nothing a child reads
from its inherited memory can reveal an answer.
"""

MODULES = (
    "wire",  # the framing of messages to and from the host
    "codec",  # call and assert values as JSON
    "syscalls",  # libc through ctypes: mounts, prctl, close_range
    "seccomp",  # the system-call filter
    "counting",  # what a counted (Valgrind) zygote does differently
    "scratch",  # the one writable directory, emptied between runs
    "rootfs",  # the minimal root file system
    "compiler",  # the compiler process and trusted code
    "cgroup",  # CPU and memory accounting of a test
    "calls",  # the call channel of an assert test, both ends
    "child",  # a Python program's process
    "checker",  # an assert test's checker process
    "runner",  # the runner interface; Python's runner
    "native",  # the runner of a command: native, JVM and other interpreters, compilers
    "server",  # one reply per request: forks, supervises, reports
    "main",  # set-up and the serving loop
)
"""The package's modules, each after those it imports (``launch.py`` loads them in this
order)."""
