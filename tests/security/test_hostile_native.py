# ruff: noqa: E501  (hostile programs are kept verbatim, one per case)
"""Hostile native programs (issue 31, item 4): the Python suite's ideas ported to C.

A native program can issue any system call without a libc wrapper, so seccomp, the
namespaces, the rlimits and the cgroups (not a language runtime) must hold every promise.
Each case is a C program (raw ``syscall(SYS_...)`` where libc would hide the call) that
asserts one containment; they run in one batch on two workers with a benign C program beside
every hostile one, which must still pass. Host effects (files, a host process that must
survive ``kill(-1)``, surviving sandbox processes) are checked from outside. Then: scratch is
emptied between runs, and allocating past the memory limit is ``memory_limit`` in C++, Java,
Rust and JavaScript (Go and PyPy where installed). docs/sandbox.md, "Native programs", lists
the promises and the case that tests each.
"""

from __future__ import annotations

import platform
import subprocess
import textwrap
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from execrl.problems import StdioTest
from execrl.sandbox import LocalExecutor, builds, isolation
from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.isolation import python_paths
from execrl.sandbox.languages import probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.native import ENVIRONMENT, default_cache_dir, sandbox_folders
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

NONCE = uuid.uuid4().hex[:12]
HOST_SECRET = f"host-secret-{NONCE}"
HOST_FILE = Path(f"/tmp/execrl-native-host-file-{NONCE}")
PROJECT = Path(__file__).resolve().parents[2]
ESCAPE_FILES = [
    Path(f"/tmp/execrl-native-escape-{NONCE}"),
    Path(f"/root/execrl-native-escape-{NONCE}"),
    PROJECT / f"execrl-native-escape-{NONCE}",
]
SHORT = Limits(cpu_time_s=2.0, memory_mb=256, max_output_bytes=1 << 20)
BURNING = Limits(cpu_time_s=1.0, wall_time_s=15.0, memory_mb=256)
"""For programs that burn CPU until stopped: the CPU limit must stop them, also when the
machine is loaded (a shared core gives them a fraction of the wall clock)."""
BUILD = BuildOptions(compile_cpu_s=20, compile_memory_mb=1024)
ECHO = StdioTest(id="echo", input="41\n", output="42\n")
ANY = StdioTest(id="any", input="", output="__never_matches__\n")
CONTAINED = {Status.TIMEOUT, Status.RUNTIME_ERROR, Status.MEMORY_LIMIT}
X86_64 = platform.machine() == "x86_64"

PRELUDE = """\
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static void report(const char *name, long rc) {
    printf("%s %s\\n", name, rc == -1 ? "refused" : "ALLOWED");
}
static void burn(double seconds) {
    struct timespec t;
    double start = -1, now;
    do {
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        now = t.tv_sec + t.tv_nsec / 1e9;
        if (start < 0) start = now;
    } while (now - start < seconds);
}
static int echo(void) { int x; if (scanf("%d", &x) != 1) return 1; printf("%d\\n", x + 1); return 0; }
"""


@dataclass
class Case:
    name: str
    code: str
    test: StdioTest = ECHO
    limits: Limits = SHORT
    language: str = "c"
    expect: set[Status] = field(default_factory=lambda: {Status.SUCCESS})
    check: Callable[[ExecutionRecord, TestResult], None] | None = None


def c_program(body: str) -> str:
    """A C program: the prelude's includes and helpers, then ``body`` (which has main)."""
    return PRELUDE + textwrap.dedent(body).strip() + "\n"


def refusals(name: str, probes: dict[str, str], setup: str = "", **kwargs) -> Case:
    """A case whose program tries each of ``probes`` (a C expression returning -1 when
    refused) and prints ``<name> refused`` for each: it passes only when all are refused."""
    calls = "\n".join(f'    report("{label}", (long)({expr}));' for label, expr in probes.items())
    expected = "".join(f"{label} refused\n" for label in probes)
    source = c_program(
        f"int main(void) {{\n{textwrap.indent(setup, '    ')}\n{calls}\n    return 0;\n}}"
    )
    return Case(name, source, test=StdioTest(id="t", input="", output=expected), **kwargs)


def cpu_at_least(seconds: float) -> Callable[[ExecutionRecord, TestResult], None]:
    """CPU time of processes nobody waits for is charged where there is a CPU cgroup (without
    one, docs/sandbox.md says it is not)."""

    def check(record: ExecutionRecord, result: TestResult) -> None:
        if "cpu-cgroup" in record.isolation:
            assert result.cpu_s >= seconds, result

    return check


def stopped_by(hit: str) -> Callable[[ExecutionRecord, TestResult], None]:
    """Stopped by the ``cpu`` or ``wall`` limit, within bounds. CPU burnt in children is
    stopped live only with a CPU cgroup; without one each child's own RLIMIT_CPU stops it, and
    the run may end at the wall limit instead."""

    def check(record: ExecutionRecord, result: TestResult) -> None:
        live = hit == "wall" or "cpu-cgroup" in record.isolation
        assert result.limit_hit == hit or not live, result
        limits = BURNING if hit == "cpu" else SHORT
        assert result.wall_s < limits.wall_limit_s + 2, result
        if result.limit_hit == "cpu":
            assert result.cpu_s < limits.cpu_time_s + 0.5, result

    return check


def detail_has(text: str) -> Callable[[ExecutionRecord, TestResult], None]:
    def check(record: ExecutionRecord, result: TestResult) -> None:
        assert text in result.detail, result

    return check


def memory_limit_where_cgroup(record: ExecutionRecord, result: TestResult) -> None:
    """With a memory cgroup the kernel's OOM killer makes it ``memory_limit``; without one
    (RLIMIT_AS only) any contained verdict is what the docs promise."""
    if "memory-cgroup" in record.isolation:
        assert result.status is Status.MEMORY_LIMIT, result


NETWORK = refusals(
    "raw_socket_syscalls",
    {
        "inet-stream": "syscall(SYS_socket, AF_INET, SOCK_STREAM, 0)",
        "inet-dgram": "syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0)",
        "inet6": "syscall(SYS_socket, AF_INET6, SOCK_STREAM, 0)",
        "inet-raw": "syscall(SYS_socket, AF_INET, SOCK_RAW, 1)",
        "packet": "syscall(SYS_socket, 17 /* AF_PACKET */, SOCK_RAW, 0)",
        "netlink": "syscall(SYS_socket, 16 /* AF_NETLINK */, SOCK_RAW, 0)",
        "vsock": "syscall(SYS_socket, 40 /* AF_VSOCK */, SOCK_STREAM, 0)",
        "socketpair-inet": "syscall(SYS_socketpair, AF_INET, SOCK_STREAM, 0, fds)",
    },
    setup="int fds[2];",
)

ESCAPES = refusals(
    "raw_escape_syscalls",
    {
        "ptrace-traceme": "syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0)",
        "ptrace-attach-1": "syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, 1, 0, 0)",
        "ptrace-attach-parent": "syscall(SYS_ptrace, 16, getppid(), 0, 0)",
        "process-vm-readv": "syscall(SYS_process_vm_readv, 1, iov, 1, iov, 1, 0)",
        "unshare-user": "syscall(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */)",
        "unshare-mount": "syscall(SYS_unshare, 0x00020000 /* CLONE_NEWNS */)",
        "unshare-net": "syscall(SYS_unshare, 0x40000000 /* CLONE_NEWNET */)",
        "clone-newuser": "clone_newuser()",
        "clone3": "syscall(435 /* SYS_clone3 */, clone3_args, 88)",
        "setns": "syscall(SYS_setns, ns, 0)",
        "mount-tmpfs": 'syscall(SYS_mount, "none", "/tmp/run", "tmpfs", 0, 0)',
        "umount-root": 'syscall(SYS_umount2, "/", 2 /* MNT_DETACH */)',
        "chroot": 'syscall(SYS_chroot, "/tmp/run")',
        "pivot-root": 'syscall(SYS_pivot_root, "/tmp/run", "/tmp/run")',
        "bpf": "syscall(SYS_bpf, 0, bpf_attr, 64)",
        "perf-event-open": "syscall(SYS_perf_event_open, perf_attr, 0, -1, -1, 0)",
        "keyctl": "syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0)",
        "io-uring-setup": "syscall(425 /* SYS_io_uring_setup */, 4, uring_params)",
        "init-module": 'syscall(SYS_init_module, bpf_attr, 64, "")',
        "kexec-load": "syscall(SYS_kexec_load, 0, 0, 0, 0)",
        "shmget": "syscall(SYS_shmget, 0x4242, 4096, 01666 | 01000)",
        "msgget": "syscall(SYS_msgget, 0x4242, 01666)",
        "mq-open": 'syscall(SYS_mq_open, "q", O_CREAT | O_RDWR, 0600, 0)',
        "sched-setaffinity": "syscall(SYS_sched_setaffinity, 0, sizeof mask, &mask)",
    },
    setup=textwrap.dedent("""\
        static char iov_buffer[64], bpf_attr[128], perf_attr[128], uring_params[128];
        static unsigned long clone3_args[11] = {0x10000000 /* CLONE_NEWUSER */, 0, 0, 0, 17};
        struct { void *base; size_t len; } iov[1] = {{iov_buffer, sizeof iov_buffer}};
        unsigned long mask = 1;
        int ns = open("/proc/self/ns/net", O_RDONLY);
        /* clone(CLONE_NEWUSER|SIGCHLD): a child that made it would print ALLOWED itself */
        #define clone_newuser() ({ long pid = syscall(SYS_clone, 0x10000000 | SIGCHLD, 0, 0, 0, 0); \\
            if (pid == 0) _exit(0); if (pid > 0) waitpid(pid, 0, 0); pid; })
    """),
)

PRIVILEGES = refusals(
    "setuid_root_refused",
    {
        "setuid-0": "syscall(SYS_setuid, 0)",
        "setgid-0": "syscall(SYS_setgid, 0)",
        "setresuid-0": "syscall(SYS_setresuid, 0, 0, 0)",
        "setgroups-0": "syscall(SYS_setgroups, 1, groups)",
        "uid-is-0": "getuid() == 0 || geteuid() == 0 ? 0 : -1",
        "sched-fifo": "syscall(SYS_sched_setscheduler, 0, 1 /* SCHED_FIFO */, &priority)",
        "nice-minus-1": "syscall(SYS_setpriority, PRIO_PROCESS, 0, -1)",
        "no-new-privs-unset": "prctl_unset()",
    },
    setup=textwrap.dedent("""\
        unsigned groups[1] = {0};
        int priority = 1;
        /* PR_SET_NO_NEW_PRIVS cannot be cleared once set: prctl(38, 0) fails */
        #define prctl_unset() (syscall(SYS_prctl, 38, 0, 0, 0, 0) == 0 && syscall(SYS_prctl, 39, 0, 0, 0, 0) == 0 ? 0 : -1)
    """),
)

RLIMITS = refusals(
    "raise_rlimits_above_hard",
    {
        f"raise-{name}": f"raise_limit({resource})"
        for name, resource in (
            ("cpu", "RLIMIT_CPU"),
            ("as", "RLIMIT_AS"),
            ("nproc", "RLIMIT_NPROC"),
            ("nofile", "RLIMIT_NOFILE"),
            ("fsize", "RLIMIT_FSIZE"),
            ("stack", "RLIMIT_STACK"),
            ("rtprio", "RLIMIT_RTPRIO"),
        )
    }
    | {"prlimit-pid-1": "syscall(SYS_prlimit64, 1, RLIMIT_CPU, &unlimited, 0)"},
    setup=textwrap.dedent("""\
        struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
        /* the hard limit plus one, by the raw call (prlimit64 on itself) */
        #define raise_limit(r) ({ struct rlimit l; getrlimit(r, &l); \\
            l.rlim_max = l.rlim_max == RLIM_INFINITY ? RLIM_INFINITY : l.rlim_max + 1; \\
            l.rlim_cur = l.rlim_max; \\
            l.rlim_max == RLIM_INFINITY ? -1L : syscall(SYS_prlimit64, 0, r, &l, 0); })
    """),
)

PROC_OF_PID_1 = refusals(
    "proc_of_pid_1_and_parent_unreadable",
    {
        "environ-1": 'open("/proc/1/environ", O_RDONLY)',
        "cmdline-1": 'open("/proc/1/cmdline", O_RDONLY)',
        "mem-1": 'open("/proc/1/mem", O_RDONLY)',
        "root-1": 'open("/proc/1/root/etc/hostname", O_RDONLY)',
        "cwd-1": 'syscall(SYS_readlinkat, AT_FDCWD, "/proc/1/cwd", link, sizeof link)',
        "environ-parent": "open(parent_environ, O_RDONLY)",
        "mem-parent": "open(parent_mem, O_RDWR)",
        "other-pids-visible": "other_pids()",
    },
    setup=textwrap.dedent("""\
        static char link[256], parent_environ[64], parent_mem[64];
        snprintf(parent_environ, sizeof parent_environ, "/proc/%d/environ", getppid());
        snprintf(parent_mem, sizeof parent_mem, "/proc/%d/mem", getppid());
        /* -1 unless /proc lists a process other than this one */
        #define other_pids() ({ DIR *d = opendir("/proc"); struct dirent *e; long others = -1; \\
            while (d && (e = readdir(d))) if (atoi(e->d_name) > 0 && atoi(e->d_name) != getpid()) others = 0; \\
            others; })
    """),
)

HOST_PATHS = refusals(
    "host_paths_absent_and_unwritable",
    {
        "root-bashrc": 'open("/root/.bashrc", O_RDONLY)',
        "this-test": f'open("{Path(__file__).resolve()}", O_RDONLY)',
        "host-file": f'open("{HOST_FILE}", O_RDONLY)',
        "shadow": 'open("/etc/shadow", O_RDONLY)',
        "docker-socket": 'open("/var/run/docker.sock", O_RDONLY)',
    }
    | {
        f"write-{i}": f'open("{path}", O_WRONLY | O_CREAT, 0644)'
        for i, path in enumerate([*ESCAPE_FILES, "/usr/escape", "/etc/escape", "/escape"])
    },
)

CASES = [
    # --- system calls the sandbox refuses ------------------------------------------------
    NETWORK,
    ESCAPES,
    PRIVILEGES,
    RLIMITS,
    PROC_OF_PID_1,
    HOST_PATHS,
    Case(
        "foreign_syscall_abi_killed",
        c_program("""
        int main(void) {
        #if defined(__x86_64__)
            long rc;
            /* int 0x80: the i386 ABI (20 = getpid there); seccomp kills the process */
            __asm__ volatile("int $0x80" : "=a"(rc) : "a"(20) : "memory");
            printf("i386 abi ALLOWED %ld\\n", rc);
        #endif
            return 0;
        }
    """),
        test=ANY,
        expect={Status.RUNTIME_ERROR},
        check=detail_has("SIGSYS"),
    ),
    Case(
        "x32_syscall_abi_refused",
        c_program("""
        int main(void) {
        #if defined(__x86_64__)
            /* the x32 ABI: the same numbers with bit 30 set */
            long rc = syscall(SYS_socket | 0x40000000, AF_INET, SOCK_STREAM, 0);
            printf("x32 socket %s\\n", rc == -1 ? "refused" : "ALLOWED");
        #else
            printf("x32 socket refused\\n");
        #endif
            return 0;
        }
    """),
        test=StdioTest(id="t", input="", output="x32 socket refused\n"),
        expect={Status.SUCCESS, Status.RUNTIME_ERROR},
    ),
    Case(
        "kill_minus_one_and_every_pid",
        c_program("""
        int main(void) {
            syscall(SYS_kill, -1, SIGKILL);
            for (int pid = 1; pid < 400; pid++)
                if (pid != getpid()) syscall(SYS_kill, pid, SIGKILL);
            syscall(SYS_kill, getppid(), SIGSTOP);
            return echo();
        }
    """),
    ),
    Case(
        "inherited_descriptors_none_beyond_stdio",
        c_program("""
        int main(void) {
            int open_fds = 0;
            for (int fd = 3; fd < 4096; fd++)
                if (fcntl(fd, F_GETFD) != -1) open_fds++;
            printf("%d\\n", open_fds);
            return 0;
        }
    """),
        test=StdioTest(id="t", input="", output="0\n"),
    ),
    Case(
        "environment_is_scrubbed",
        c_program("""
        extern char **environ;
        static int by_name(const void *a, const void *b) { return strcmp(*(char **)a, *(char **)b); }
        int main(void) {
            char *names[256];
            int n = 0;
            for (char **e = environ; *e && n < 256; e++) { names[n] = strdup(*e); *strchr(names[n++], '=') = 0; }
            qsort(names, n, sizeof *names, by_name);
            for (int i = 0; i < n; i++) puts(names[i]);
            return 0;
        }
    """),
        test=StdioTest(id="t", input="", output="".join(f"{k}\n" for k in sorted(ENVIRONMENT))),
    ),
    Case(
        "scratch_holds_only_the_program",
        c_program("""
        int main(void) {
            DIR *d = opendir(".");
            struct dirent *e;
            while ((e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) printf("%s ", e->d_name);
            printf("\\n");
            return 0;
        }
    """),
        test=StdioTest(id="t", input="", output="main\n"),
    ),
    # --- memory of its own --------------------------------------------------------------------
    Case(
        "writable_executable_memory_allowed",  # JITs (the JVM, V8) need it: docs/sandbox.md
        c_program("""
        int main(void) {
        #if defined(__x86_64__)
            unsigned char code[] = {0xb8, 42, 0, 0, 0, 0xc3};  /* mov eax, 42; ret */
            unsigned char *page = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (page == MAP_FAILED) { puts("refused"); return 0; }
            memcpy(page, code, sizeof code);
            printf("%d\\n", ((int (*)(void))page)());
        #else
            puts("42");
        #endif
            return 0;
        }
    """),
        test=StdioTest(id="t", input="", output="42\n"),
    ),
    Case(
        "proc_self_mem_writes_only_itself",
        c_program("""
        static volatile const char message[] = "original";
        int main(void) {
            int fd = open("/proc/self/mem", O_RDWR);
            if (fd >= 0) pwrite(fd, "patched!", 8, (off_t)(unsigned long)message);
            printf("%s\\n", (const char *)message);
            return 0;
        }
    """),
        test=StdioTest(id="t", input="", output="patched!\n"),  # (its own memory: allowed)
    ),
    # --- limits ----------------------------------------------------------------------------
    Case(
        "busy_loop_ignoring_sigxcpu",
        c_program("""
        int main(void) {
            for (int s = 1; s < 32; s++) signal(s, SIG_IGN);
            struct rlimit l; getrlimit(RLIMIT_CPU, &l); l.rlim_cur = l.rlim_max;
            setrlimit(RLIMIT_CPU, &l);  /* soft up to hard: allowed, gains nothing */
            for (volatile unsigned long i = 0;; i++) {}
        }
    """),
        limits=BURNING,
        expect={Status.TIMEOUT},
        check=stopped_by("cpu"),
    ),
    Case(
        "sleep_forever",
        c_program(
            "int main(void) { struct timespec t = {1000000, 0}; nanosleep(&t, 0); return 0; }"
        ),
        expect={Status.TIMEOUT},
        check=stopped_by("wall"),
    ),
    Case(
        "fork_bomb",
        c_program("int main(void) { for (;;) syscall(SYS_fork); }"),
        expect=CONTAINED,
    ),
    Case(
        "fork_bomb_with_memory",
        c_program("""
        int main(void) {
            for (;;) {
                if (fork() == 0) { char *p = malloc(64 << 20); if (p) memset(p, 1, 64 << 20); pause(); }
            }
        }
    """),
        expect=CONTAINED,
    ),
    Case(
        "thread_bomb_bounded_by_max_processes",
        c_program("""
        #include <pthread.h>
        static void *wait_forever(void *arg) { pause(); return arg; }
        int main(void) {
            int n = 0;
            pthread_t t;
            while (pthread_create(&t, 0, wait_forever, 0) == 0 && n < 100000) n++;
            printf("%d\\n", n < 64 ? 0 : n);
            return 0;
        }
    """),
        test=StdioTest(id="t", input="", output="0\n"),
    ),
    Case(
        "stdout_flood",
        c_program(
            "int main(void) { static char b[65536]; memset(b, 'x', sizeof b); for (;;) fwrite(b, 1, sizeof b, stdout); }"
        ),
        expect={Status.OUTPUT_LIMIT},
    ),
    Case(
        "disk_fill_one_file",
        c_program("""
        int main(void) {
            static char b[1 << 20];
            int fd = open("big", O_WRONLY | O_CREAT, 0644);
            for (;;) if (write(fd, b, sizeof b) < 0) { printf("stopped %d\\n", errno); return 3; }
        }
    """),
        expect={Status.OUTPUT_LIMIT},
    ),
    Case(
        "stack_overflow",
        c_program("""
        static int down(volatile int n) { volatile char frame[512]; frame[0] = (char)n; return down(n + 1) + frame[0]; }
        int main(void) { return down(0); }
    """),
        expect={Status.RUNTIME_ERROR},
        check=detail_has("SIGSEGV"),
    ),
    Case(
        "memory_gradual",
        c_program("""
        int main(void) {
            for (;;) { char *p = malloc(16 << 20); if (!p) { puts("malloc failed"); return 3; } memset(p, 1, 16 << 20); }
        }
    """),
        expect=CONTAINED,
        check=memory_limit_where_cgroup,
    ),
    Case(
        "memory_in_children",
        c_program("""
        int main(void) {
            for (int i = 0; i < 8; i++)
                if (fork() == 0) { char *p = malloc(200 << 20); if (p) memset(p, 1, 200 << 20); pause(); }
            for (;;) pause();
        }
    """),
        expect=CONTAINED,
        check=memory_limit_where_cgroup,
    ),
    Case(
        "huge_static_array_cannot_load",
        c_program("static char a[1L << 40]; int main(void) { a[12345] = 1; return a[5]; }"),
        expect={Status.RUNTIME_ERROR, Status.MEMORY_LIMIT},
    ),
    # --- other binaries: exec'd programs keep the limits and the accounting ----------------
    Case(
        "exec_shell_with_endless_loop",
        c_program("""
        int main(void) {
            if (fork() == 0) { execl("/bin/sh", "sh", "-c", "while :; do :; done", (char *)0); _exit(9); }
            wait(0);
            return echo();
        }
    """),
        limits=BURNING,
        expect={Status.TIMEOUT},
        check=stopped_by("cpu"),
    ),
    Case(
        "shell_child_left_burning_is_killed",
        c_program("""
        int main(void) {
            execl("/bin/sh", "sh", "-c", "(trap '' HUP TERM; while :; do :; done) & read x; echo $((x + 1))", (char *)0);
            return 9;
        }
    """),
    ),
    Case(
        "detached_grandchild_cpu_is_counted",
        c_program("""
        int main(void) {
            int p[2];
            pipe(p);
            for (int i = 0; i < 2; i++) {
                if (fork() == 0) {
                    setsid();
                    if (fork() == 0) {
                        burn(0.4);
                        write(p[1], "d", 1);
                        execl("/bin/sleep", "sleep", "100", (char *)0);  /* never exits */
                    }
                    _exit(0);
                }
            }
            char c;
            read(p[0], &c, 1);
            read(p[0], &c, 1);
            return echo();  /* exits without waiting for its workers */
        }
    """),
        limits=Limits(cpu_time_s=8, memory_mb=256),
        check=cpu_at_least(0.6),
    ),
    Case(
        "cpu_limit_holds_across_exec",
        c_program("""
        int main(void) {
            /* two children each under the per-process RLIMIT_CPU; together past the test's */
            for (int i = 0; i < 2; i++)
                if (fork() == 0) { signal(SIGCHLD, SIG_IGN); execl("/bin/sh", "sh", "-c", "while :; do :; done", (char *)0); }
            signal(SIGCHLD, SIG_IGN);
            for (;;) pause();
        }
    """),
        limits=BURNING,
        expect={Status.TIMEOUT},
        check=stopped_by("cpu"),
    ),
]

if not X86_64:  # (the i386 ABI's int 0x80 exists only there)
    CASES = [c for c in CASES if c.name != "foreign_syscall_abi_killed"]

BENIGN = Case(
    "benign",
    c_program("int main(void) { return echo(); }"),
    check=lambda rec, r: _assert(r.cpu_s < 0.5, r),
)


def _assert(condition: bool, result: TestResult) -> None:
    assert condition, result


@pytest.fixture(scope="module")
def native_executor(tmp_path_factory):
    """A pool of two workers with a fresh build cache of this module's own (set before the
    servers start: they bind the precompiled headers' folder next to it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXECRL_BUILD_CACHE", str(tmp_path_factory.mktemp("builds") / "cache"))
        patch.setenv("EXECRL_TEST_SECRET", HOST_SECRET)
        patch.setattr(builds, "_SHARED_CACHE", {})
        with LocalExecutor(workers=2) as executor:
            yield executor


@pytest.fixture(scope="module")
def host_sleeper():
    """A host process that ``kill(-1)`` from the sandbox must not reach."""
    HOST_FILE.write_text(HOST_SECRET)
    sleeper = subprocess.Popen(["sleep", "600"])
    yield sleeper
    sleeper.kill()
    sleeper.wait()
    HOST_FILE.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def verdicts(native_executor, host_sleeper):
    requests, labels = [], []
    for case in CASES:
        for item in (case, BENIGN):  # a benign program runs beside every hostile one
            requests.append(
                ExecutionRequest(
                    program=item.code,
                    language=item.language,
                    tests=[item.test],
                    limits=item.limits,
                    build=BUILD,
                )
            )
            labels.append(item.name if item is case else f"benign-after-{case.name}")
    records = list(native_executor.run_batch(requests, progress=False))
    return dict(zip(labels, records, strict=True))


def test_there_are_at_least_twenty_hostile_native_programs():
    assert len(CASES) >= 20
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_native_program_is_contained(case, verdicts):
    record = verdicts[case.name]
    assert record.build is not None and record.build.status == "ok", record.build
    (result,) = record.results
    assert result.status in case.expect, f"{case.name}: {result.status} ({result.detail})"
    if case.check:
        case.check(record, result)
    assert "network-namespace" in record.isolation and "seccomp" in record.isolation


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_benign_neighbour_is_unaffected(case, verdicts):
    record = verdicts[f"benign-after-{case.name}"]
    (result,) = record.results
    assert result.status is Status.SUCCESS, result
    BENIGN.check(record, result)


def test_nothing_reached_the_host(verdicts, host_sleeper):
    assert host_sleeper.poll() is None, "kill(-1) in the sandbox reached a host process"
    for path in ESCAPE_FILES:
        assert not path.exists(), path
    assert HOST_FILE.read_text() == HOST_SECRET
    assert subprocess.run(["true"]).returncode == 0  # the host can still fork


def test_no_sandbox_process_survives(verdicts, native_executor):
    uids = set(native_executor.uids)
    survivors = subprocess.run(
        ["ps", "-eo", "uid=,pid=,comm="], capture_output=True, text=True
    ).stdout
    leftover = [line for line in survivors.splitlines() if int(line.split()[0]) in uids]
    assert leftover == []


# -- another program's files: scratch is emptied between runs -------------------------------------

WRITER = c_program("""
int main(void) {
    FILE *f = fopen("left-behind.txt", "w");
    fputs("SECRET-OF-THE-LAST-RUN", f);
    fclose(f);
    mkdir("folder", 0755);
    f = fopen("/dev/shm/left-behind", "w");
    if (f) { fputs("SECRET-OF-THE-LAST-RUN", f); fclose(f); }
    puts("written");
    return 0;
}
""")

READER = c_program("""
int main(void) {
    const char *folders[] = {".", "/dev/shm"};
    for (int i = 0; i < 2; i++) {
        DIR *d = opendir(folders[i]);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) printf("%s/%s\\n", folders[i], e->d_name);
    }
    return 0;
}
""")


def test_another_programs_files_are_gone_on_the_same_worker(tmp_path, monkeypatch):
    monkeypatch.setenv("EXECRL_BUILD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(builds, "_SHARED_CACHE", {})
    with LocalExecutor(workers=1) as one_worker:
        wrote = one_worker.capture_streams(
            WRITER, "", SHORT, language="c", files={"given.txt": b"SECRET-GIVEN"}
        )
        assert wrote.stdout == "written\n", wrote
        read = one_worker.capture_streams(READER, "", SHORT, language="c")
    assert read.result.status is Status.SUCCESS, read
    # only its own binary in its working directory, nothing in /dev/shm
    assert read.stdout == "./main\n", read.stdout


# -- the host's files: only the toolchains' folders are there, read-only -------------------------

LIST_HOST_FILES = c_program("""
#include <ftw.h>
static char allowed[64][4096];
static int n_allowed;
static int visit(const char *path, const struct stat *info, int kind, struct FTW *where) {
    for (int i = 0; i < n_allowed; i++)
        if (!strncmp(path, allowed[i], strlen(allowed[i]))) return FTW_SKIP_SUBTREE;
    if (kind == FTW_F) printf("%s\\n", path);
    return FTW_CONTINUE;
}
int main(int argc, char **argv) {
    char line[4096];
    while (n_allowed < 64 && fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\\n")] = 0;
        strcpy(allowed[n_allowed++], line);
    }
    const char *roots[] = {"/root", "/home", "/work", "/opt", "/srv", "/var", PROJECT, CACHE};
    for (int i = 0; i < 8; i++) nftw(roots[i], visit, 16, FTW_PHYS | FTW_ACTIONRETVAL);
    return 0;
}
""")


def test_only_the_toolchains_folders_of_the_host_are_visible(native_executor):
    """/root, /home, the project and the build cache hold nothing a program can see but the
    folders bound read-only: the interpreter's installation (isolation.python_paths) and, for
    builds, toolchains outside /usr (rustup, pyenv), the precompiled headers and testlib.h
    (native.sandbox_folders)."""
    allowed = (*python_paths(), *sandbox_folders())
    source = f'#define PROJECT "{PROJECT}"\n#define CACHE "{default_cache_dir()}"\n'
    captured = native_executor.capture_streams(
        source + LIST_HOST_FILES, "".join(f"{a}\n" for a in allowed), SHORT, language="c"
    )
    assert captured.result.status is Status.SUCCESS, captured
    assert captured.stdout == "", captured.stdout[:2000]
    assert all(not Path(a).is_relative_to(PROJECT / "tests") for a in allowed)


# -- memory past the limit, language by language ---------------------------------------------------

MEMORY_PROGRAMS = {
    "cpp": (
        "#include <cstdio>\n#include <vector>\n"
        "int main() { std::vector<char*> v; for (;;) v.push_back(new char[1L << 36]); }\n"
    ),
    "java": (
        "import java.util.*;\n"
        "public class Main {\n"
        "    public static void main(String[] args) {\n"
        "        List<long[]> kept = new ArrayList<>();\n"
        "        for (;;) kept.add(new long[1 << 22]);\n"
        "    }\n"
        "}\n"
    ),
    "rust": (
        "fn main() {\n"
        "    let mut kept: Vec<Vec<u8>> = Vec::new();\n"
        "    loop { kept.push(Vec::with_capacity(1 << 36)); }\n"
        "}\n"
    ),
    "javascript": "const kept = [];\nfor (;;) kept.push(new Array(1 << 20).fill(1.5));\n",
    "javascript-array-buffers": (  # outside V8's heap: only the memory cgroup bounds them
        "const kept = [];\nfor (;;) kept.push(new Uint8Array(1 << 24).fill(1));\n"
    ),
    "go": (
        'package main\n\nimport "fmt"\n\n'
        "func main() {\n"
        "\tvar kept [][]byte\n"
        "\tfor {\n\t\tb := make([]byte, 1<<26)\n\t\tfor i := range b {\n\t\t\tb[i] = 1\n\t\t}\n"
        '\t\tkept = append(kept, b)\n\t\tfmt.Print("")\n\t}\n'
        "}\n"
    ),
    "pypy": "x = bytearray(8 * 1024**3)\n",
}
"""A program per language (and kind of memory) that allocates past any limit; each runtime's
own report of it (``std::bad_alloc``, ``OutOfMemoryError``, ``memory allocation of N bytes
failed``, V8's ``JavaScript heap out of memory``, ``runtime: out of memory``,
``MemoryError``) or the memory cgroup's OOM kill makes the verdict ``memory_limit``."""
NEEDS_MEMORY_CGROUP = {"go", "javascript-array-buffers"}
"""Bounded by nothing but the memory cgroup: Go and V8's buffers have no address-space limit
(their runtimes reserve far more than they use) and no heap flag that bounds them."""


@pytest.mark.parametrize("label", sorted(MEMORY_PROGRAMS))
def test_allocating_past_the_limit_is_memory_limit(label, native_executor):
    language = label.split("-")[0]
    toolchain = probe(language)
    if not toolchain.installed:
        pytest.skip(f"{language}: {toolchain.why_not}")
    if label in NEEDS_MEMORY_CGROUP and isolation.probe().memory_cgroup is None:
        pytest.skip("no memory cgroup here: nothing would bound it (docs/sandbox.md)")
    # (C++ under the sandboxfusion profile: no precompiled header to make for one test)
    build = BUILD.model_copy(update={"profile": "sandboxfusion"}) if language == "cpp" else BUILD
    request = ExecutionRequest(
        program=MEMORY_PROGRAMS[label],
        language=language,
        tests=[ANY],
        limits=Limits(cpu_time_s=5, memory_mb=256),
        build=build,
    )
    record = native_executor.execute(request)
    assert record.build.status == "ok", record.build
    (result,) = record.results
    assert result.status is Status.MEMORY_LIMIT, result
