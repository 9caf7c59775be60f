"""The zygote's server: one reply per request from the host. For each test it forks a child
(a spare, set up ahead of its test), lowers its limits, drops it to the sandbox's uid, hands
it to the language's runner, supervises it against the wall and CPU limits and output caps,
kills everything the test started, and reports raw results (exit status, streams, CPU time
measured from outside). It never holds expected outputs: the host compares."""

from __future__ import annotations

import _signal  # built in: signal's C layer
import contextlib
import errno
import gc
import math
import mmap
import os
import resource
import select
import signal
import time

from . import child, scratch
from .cgroup import TestCgroup, process_cpu_s
from .compiler import Compiler, text
from .counting import COUNTING, discard_pending
from .native import NativeRunner, fetch_files
from .runner import RUNNERS, Runner, runner_for
from .scratch import CleanupFailed, remove_tree
from .seccomp import lock_down
from .syscalls import AF_UNIX, PR_SET_PDEATHSIG, close_fds_from, libc
from .wire import encode_message, joined, read_message, scrub, write_all, write_message


class Server:
    def __init__(self, config: dict) -> None:
        self.config = config
        self.request_fd, self.reply_fd = config["request_fd"], config["reply_fd"]
        self.is_init = os.getpid() == 1
        self.can_setuid = os.geteuid() == 0 and config["drop_privileges"]
        # The filter is installed once, here, after the privileged set-up: the zygote needs
        # none of the denied calls any more and every child inherits it (installing it per
        # child cost ~0.2 ms of page faults). Same for no_new_privs.
        lock_down(config)
        self.compiler = Compiler(config.get("compiler_fds"))
        self.runner = runner_for(config, self.compiler)  # what a program is, per language
        # a test names its runner ("native": a command, see native.py); the worker's by default
        self.runners: dict[str, Runner] = {self.runner.name: self.runner}
        self.compiled: tuple | None = None  # (source, marshalled code, runner) of the program
        self.preludes: dict[str, bytes | str] = {}  # prelude source -> its compiled item
        self.live_runs: list[dict] = []  # the current request's results so far
        self.next_limits: dict | None = None  # the limits the next spare is forked for
        self.broken: str | None = None  # why the zygote must not serve another request
        self.pid_counter_fd: int | None = None
        if self.is_init:
            with contextlib.suppress(OSError):  # needs CAP_SYS_ADMIN over the pid namespace
                self.pid_counter_fd = os.open("/proc/sys/kernel/ns_last_pid", os.O_WRONLY)
        self.runs = 0
        self.rlimits: tuple | None = None  # (limits, their rlimit_table), the last built
        self.base_vm_bytes = _vm_size_bytes()
        self.spare: _Spare | None = None
        self.scratch_dirty = True
        self.count_log_fd = config.get("count_log_fd")  # Valgrind's log (counted zygote only)
        if self.count_log_fd is not None:
            os.set_blocking(self.count_log_fd, False)
            discard_pending(self.count_log_fd)

    # -- protocol ----------------------------------------------------------------------------
    def serve(self) -> None:
        """One reply per request, echoing its ``id``. A failure of the zygote's own bookkeeping
        (cleanup, encoding, even a RecursionError or MemoryError here) is answered once, as an
        error for that request, and ends the zygote: the host restarts it rather than trust
        a worker in an unknown state. The next spare is forked here, at the top of the loop,
        after the request's buffers are gone, so no child inherits another run's data."""
        write_message(self.reply_fd, {"ok": True, "ready": True, "pid": os.getpid()})
        while True:
            try:
                self.between_requests()
            except Exception as exc:  # e.g. scratch too deep to clean: never run on it dirty
                self.broken = f"cleaning up after the last run failed: {type(exc).__name__}: {exc}"
            if not self.serve_one():
                return

    def serve_forked(self) -> None:
        """A counted zygote's loop: each request is read and answered by a fork of this
        process, whose own state never changes (it only waits, forks and reaps). A rerun of a
        request then starts from exactly the state its first run did, and counts the same: a
        server that handled the requests itself would carry their traces (its allocator's free
        lists, its caches) into every later child, and a count moved by ~0.2 % with them."""
        write_message(self.reply_fd, {"ok": True, "ready": True, "pid": os.getpid()})
        gc.collect()
        gc.freeze()
        while True:
            select.select([self.request_fd], [], [])  # a request (or the host's hang-up)
            pid = os.fork()
            if pid == 0:
                ok = self.serve_one()
                self.kill_everything(os.getpid())  # (its own processes: ours does not vary)
                os._exit(0 if ok else 1)
            _, status = os.waitpid(pid, 0)
            _reap_orphans()
            if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
                return

    def serve_one(self) -> bool:
        """Read one request and answer it; False when the zygote must stop (the host hung up,
        asked it to, or its own bookkeeping failed)."""
        try:
            header, payloads = read_message(self.request_fd, exact=COUNTING["on"])
        except EOFError:
            return False
        op, request_id = header.get("op"), header.get("id")
        if op == "shutdown":
            return False
        fatal, reply, out = self.broken, None, None
        try:
            if fatal:
                raise _ZygoteBroken(fatal)
            if op == "run":
                reply, out = self.handle_run(header, payloads)
            elif op == "ping":
                reply, out = {"ok": True}, []
            else:
                reply, out = {"ok": False, "error": f"unknown op {op!r}"}, []
            message = encode_message(dict(reply, id=request_id), *out)
        except Exception as exc:  # the sandbox failed, not the program: say so, then stop
            fatal = f"{type(exc).__name__}: {exc}"[:2000]
            message = encode_message({"ok": False, "id": request_id, "error": fatal})
        scrub(*payloads, *(out or ()))  # (the message holds its own copy of the outputs)
        del header, payloads, reply, out  # nothing of this request reaches the next child
        try:
            write_all(self.reply_fd, message)
        finally:
            scrub(message)
        del message
        return not fatal

    def between_requests(self) -> None:
        """Off the critical path: clean scratch and fork the next spare (stdio and call tests;
        an assert test forks its own processes)."""
        gc.collect()  # the last request's cycles (tracebacks, frames) go before the next fork
        # What survived is the server's live state: frozen, the next collection (here or in
        # a child) skips it instead of writing every object's header, which cost a fork's
        # pages 60 copy-on-write faults per test (~0.15 ms) here alone.
        gc.freeze()
        if self.next_limits is not None:
            self.prepare_spare(self.next_limits)

    def runner_of(self, test: dict) -> Runner:
        """The runner a test names (the worker's own when it names none)."""
        name = test.get("runner") or self.runner.name
        runner = self.runners.get(name)
        if runner is None:
            kinds = {**RUNNERS, NativeRunner.name: NativeRunner}
            if name not in kinds:
                raise ValueError(f"this sandbox has no runner for {name!r}")
            runner = self.runners[name] = kinds[name](self.compiler)
        return runner

    def handle_run(self, header: dict, payloads: list) -> tuple[dict, list]:
        """Run one test; returns the reply and its payloads (the caller sends them)."""
        test, limits = header["test"], header["limits"]
        code = self.compile_program(payloads[0], self.runner_of(test))
        if isinstance(code, str):
            return {"ok": True, "compile_error": code}, []
        runs = self.live_runs = []  # a child forked between repeats empties its copy of these
        # An assert test's code is zeroed after its first use, so it runs once.
        repeats = 1 if test["kind"] == "assert" else max(1, header.get("repeats", 1))
        fetched: tuple[list, list] = ([], [])
        for _ in range(repeats):
            if test["kind"] == "assert":
                result = self.run_assert(code, test, limits, payloads[1:])
            else:
                result = self.run_once(code, test, limits, payloads[1])
            if not runs and test.get("fetch"):  # (read before the next spare empties scratch)
                fetched = fetch_files(test["fetch"], int(test.get("fetch_max_bytes", 0)))
            runs.append(result)
            if result["outcome"] != "exited" or result["exit_code"] != 0:
                break  # a failing run is not timed again
        # the next test most likely has the same limits: its spare is forked after the reply
        self.next_limits = limits if test["kind"] != "assert" else None
        self.live_runs = []
        # Every repeat is judged by the host: the first run's streams always travel, a later
        # run's only when they differ from the first's (``own_streams``), so equal repeats
        # cost nothing extra.
        first, streams = runs[0], ("stdout", "stderr", "result")
        out = [first[k] for k in streams]
        for run in runs[1:]:
            run["own_streams"] = any(run[k] != first[k] for k in streams)
            if run["own_streams"]:
                out += [run[k] for k in streams]
        out += fetched[1]  # the fetched files' data, after every stream
        reply = {
            "ok": True,
            "fetched": fetched[0],
            "runs": [{k: v for k, v in r.items() if not isinstance(v, bytes)} for r in runs],
            "outputs_differ": any(
                r["stdout"] != first["stdout"] or r["result"] != first["result"] for r in runs
            ),
        }
        for run in runs[1:]:  # a repeat's output that is not sent (equal to the first's) goes now
            if not run["own_streams"]:
                scrub(*(run[k] for k in streams if run[k] is not first[k]))
        return reply, out

    def compile_program(self, source, runner: Runner) -> bytes | str:
        """The current program's marshalled code, or its compile error. The compiler process
        compiles it: CPython's compiler leaves copies of a source all over the heap it ran in
        (tokenizer buffers, the AST, constants), and no child is ever forked from that one.
        The zygote holds only the source and the marshalled code, both zeroed when the next
        program replaces them; children unmarshal their own copy."""
        compiled = self.compiled
        if compiled is not None and compiled[2] is runner and compiled[0] == source:
            return compiled[1]
        self.forget_compiled()
        # Copies the zygote owns, as bytearrays: zeroed in place without ctypes (the request's
        # own buffer and the compiler's reply are scrubbed after the request)
        key = bytearray(source)
        compiled = runner.prepare(key)
        if isinstance(compiled, str):
            scrub(key)
            return compiled
        marshalled = bytearray(compiled)
        scrub(compiled)
        self.compiled = (key, marshalled, runner)
        return marshalled

    def compiled_prelude(self, source: str):
        """A prelude's item for ``trusted_code`` (None: there is none). Preludes are the
        problem's, not secret (the candidate runs them): the last few are kept here."""
        if not source:
            return None
        item = self.preludes.get(source)
        if item is None:
            try:
                data = source.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # (a lone surrogate: the child compiles the text itself)
                return ("source", source)
            item = self.compile_trusted(data, "<prelude>")
            if len(self.preludes) >= 4:
                self.preludes.clear()
            self.preludes[source] = item
        return item

    def compile_trusted(self, source, filename: str):
        """Trusted code for ``trusted_code``: compiled by the compiler process (a child then
        only unmarshals it: compiling in a forked child cost it ~110 copy-on-write faults and
        ~0.5 ms per test), or handed on as source without one."""
        if not self.compiler.separate:  # (``source`` itself: its owner zeroes it)
            return ("source", source)
        compiled = self.compiler.compile(source, filename)
        if isinstance(compiled, str):
            return compiled
        item = bytearray(compiled)  # (a copy the owner can zero; the reply's is zeroed now)
        scrub(compiled)
        return item

    # -- spare children: forked and set up while the host is busy ----------------------------
    def prepare_spare(self, limits: dict) -> None:
        """Fork the next child ahead of its test (after the reply, so off the critical path).
        It sets itself up completely — fds, scratch, limits, uid, seccomp, stdio — and waits
        for its task: the marshalled program and the test."""
        if self.spare is not None and self.spare.limits == limits:
            return
        self.discard_spare()
        self.clean_scratch()
        stdin_fd = os.memfd_create("stdin", 0)
        task_r, task_w = os.pipe()
        ready_r, ready_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        memory_flag = mmap.mmap(-1, 1)  # (shared with the child: see child._MEMORY_FLAG)
        self.reset_pid_counter()
        self.rlimit_table(limits)
        pid = os.fork()
        if pid == 0:  # ---- child: never returns
            child.use_status_channel(5, memory_flag)  # (see child.setup_failed) its ready pipe
            self.spare_child(limits, task_r, ready_w, stdin_fd, out_w, err_w, res_w)
        self.charge_to_test(pid, limits)  # before its task exists: nothing escapes the cgroup
        for fd in (task_r, ready_w, out_w, err_w, res_w):
            os.close(fd)
        self.spare = _Spare(pid, limits, task_w, ready_r, stdin_fd, out_r, err_r, res_r)
        self.spare.memory_flag = memory_flag
        self.scratch_dirty = True

    def take_spare(self, limits: dict) -> _Spare:
        """The spare for the next test, its set-up finished. Waiting for the set-up matters
        for timing: a spare forked just before its task arrives has not run yet (on a pinned
        core the zygote keeps the CPU), and its whole set-up would otherwise be charged to
        the program's CPU time — sometimes, depending on a race with the host."""
        self.prepare_spare(limits)
        spare, self.spare = self.spare, None
        with contextlib.suppress(OSError):  # b"" if it died: the task write then fails and retries
            spare.ready = os.read(spare.ready_r, 1)  # b"r", or b"F" (its set-up failed)
        return spare

    def discard_spare(self) -> None:
        spare, self.spare = self.spare, None
        if spare is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(spare.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(spare.pid, 0)
        spare.close()

    def clean_scratch(self) -> None:
        """Make the next run's scratch directory (and /dev/shm) empty."""
        if self.scratch_dirty:
            remove_tree(scratch.PATH)
            self.clear_shared_memory()
            self.wait_for_bound_sockets()
            os.mkdir(scratch.PATH, 0o700)
            if self.can_setuid:
                os.chown(scratch.PATH, self.config["uid"], self.config["gid"])
            self.scratch_dirty = False

    def reset_pid_counter(self) -> None:
        """As pid 1 of the sandbox's pid namespace (every process of the last test killed and
        reaped): make the next pid a fixed number, so each test's processes get the same pids
        whatever earlier tests forked (a program cannot learn from its pid how many processes
        an earlier repeat started)."""
        if self.is_init and self.pid_counter_fd is not None:
            with contextlib.suppress(OSError):  # (then counting simply goes on)
                os.pwrite(self.pid_counter_fd, b"%d" % _FIRST_PID_MINUS_1, 0)

    def forget_compiled(self) -> None:
        """Drop the cached program, its source and marshalled code zeroed first."""
        compiled, self.compiled = self.compiled, None
        if compiled is not None:
            scrub(*compiled[:2])

    def forget_in_child(self) -> None:
        """In a just-forked child: drop what belongs to other runs (the compiled program, the
        results of earlier repeats), so nothing the program can reach through ``gc`` or its
        frames holds another run's data."""
        # (this copy of the cached program: the child unmarshals its own from its task)
        self.forget_compiled()
        for run in self.live_runs:  # (an earlier repeat's output: zeroed in this copy)
            scrub(*(v for v in run.values() if type(v) is bytes))
            run.clear()
        self.live_runs.clear()

    @staticmethod
    def send_task(fd: int, test: dict, code, prelude) -> None:
        """A spare's task: the test, the marshalled program and the prelude's item."""
        if isinstance(prelude, (bytes, bytearray)):
            write_message(fd, {"test": test, "prelude": "code"}, code, prelude)
        else:  # (None, a compile error, or ("source", text))
            kind = ["source", text(prelude[1])] if isinstance(prelude, tuple) else prelude
            write_message(fd, {"test": test, "prelude": kind}, code)

    @staticmethod
    def received_prelude(header: dict, payloads: list):
        kind = header.get("prelude")
        if kind == "code":
            return payloads[1]
        return tuple(kind) if isinstance(kind, list) else kind

    def spare_child(self, limits, task_r, ready_w, stdin_fd, out_w, err_w, res_w) -> None:
        try:
            self.forget_in_child()
            self.setup_process(limits, stdin_fd, out_w, err_w, res_w, (task_r, ready_w), drop=False)
            os.write(5, b"r")  # set up: whatever CPU it used so far is not the program's
        except BaseException as exc:
            child.setup_failed(f"{type(exc).__name__}: {exc}")
        try:
            header, payloads = read_message(4, exact=COUNTING["on"])
        except BaseException:  # discarded before it got a task
            os._exit(0)
        try:
            os.close(4)
            if header["test"].get("kind") != "call":  # fd 3 is the result channel in call tests
                _null_result_channel()
            # A spare waits as root, so no process of the sandbox's uid exists between tests.
            self.drop_privileges()
            runner = self.runner_of(header["test"])
            code = runner.load(payloads[0])
            prelude = self.received_prelude(header, payloads)
        except BaseException as exc:
            child.setup_failed(f"{type(exc).__name__}: {exc}")
        runner.run(code, header["test"], prelude)

    # -- one execution -----------------------------------------------------------------------
    def run_once(self, code: bytes, test: dict, limits: dict, stdin: bytes) -> dict:
        """One stdin/stdout or call-based test on a spare child."""
        self.runs += 1
        for attempt in range(2):
            spare = self.take_spare(limits)
            write_all(spare.stdin_fd, stdin)
            os.lseek(spare.stdin_fd, 0, os.SEEK_SET)
            os.close(spare.stdin_fd)
            self.read_count_log()  # (what earlier processes wrote: not this test's)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            setup_s = process_cpu_s(spare.pid)  # the child's own set-up is not the program's
            clock = self.program_clock(spare.pid, setup_s)
            start = time.perf_counter()
            try:
                prelude = self.compiled_prelude(test.get("prelude", ""))
                self.send_task(spare.task_w, test, code, prelude)
                break
            except BrokenPipeError:  # the spare died waiting (killed from outside): once more
                self.kill_everything(spare.pid)
                spare.close()
                if attempt:
                    raise
            finally:
                os.close(spare.task_w)
        fds = {"stdout": spare.out_r, "stderr": spare.err_r, "result": spare.res_r}
        outcome, status, wall_s, streams, rusage, hit = self.supervise(
            spare.pid, start, limits, fds, clock
        )
        self.kill_everything(spare.pid)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu_s = max(0.0, clock() if self.counts_cpu else cpu_s - setup_s)
        result = _raw_result(
            outcome, status, cpu_s, wall_s, rusage, streams, hit, self.memory_exceeded()
        )
        result["setup_failed"], result["memory_error"] = child.read_status(
            spare.ready_r, spare.ready, spare.memory_flag
        )
        spare.ready_r, spare.memory_flag = -1, None
        self.add_count_log(result, spare.pid)
        return result

    def run_assert(self, code, test: dict, limits: dict, payloads: list[bytes]) -> dict:
        """An assert-style test: two processes. The checker runs the (trusted) test code and
        holds every expected value; it is forked first, while the zygote still has the test
        code. The zygote then zeroes its only copy, and only then forks the candidate, which
        serves calls."""
        self.runs += 1
        self.discard_spare()
        self.clean_scratch()
        self.scratch_dirty = True
        stdin_fd = os.memfd_create("stdin", 0)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        secret = payloads[1]
        calls_r, calls_w = os.pipe()  # checker → candidate
        answers_r, answers_w = os.pipe()  # candidate → checker
        devnull = os.open("/dev/null", os.O_WRONLY)
        checker_status_r, checker_status_w = os.pipe()
        status_r, status_w = os.pipe()
        prelude = self.compiled_prelude(test.get("prelude", ""))
        checker_prelude = self.compiled_prelude(test.get("checker_prelude", test.get("prelude")))
        # the test's code, compiled by the compiler process: zeroed with its source below
        test_code = self.compile_trusted(secret, "<test>")
        self.reset_pid_counter()
        self.rlimit_table(limits)
        self.read_count_log()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            trusted = (checker_prelude, test_code)
            peer = (answers_r, calls_w, checker_status_w)
            self.assert_child(None, test, limits, stdin_fd, devnull, devnull, res_w, peer, trusted)
        secret[:] = bytes(len(secret))
        if isinstance(test_code, bytearray):
            scrub(test_code)
        del test_code
        memory_flag = mmap.mmap(-1, 1)  # the candidate's (child._MEMORY_FLAG)
        self.enter_test_cgroup(limits)  # the candidate (and all it starts) is born there
        candidate = os.fork()
        if candidate == 0:  # no result pipe for the candidate: fd 3 is /dev/null
            peer = (calls_r, answers_w, status_w)
            child.use_status_channel(6, memory_flag)
            self.assert_child(code, test, limits, stdin_fd, out_w, err_w, devnull, peer, prelude)
        clock = self.leave_test_cgroup(candidate)
        for fd in (devnull, calls_r, calls_w, answers_r, answers_w, stdin_fd, out_w, err_w, res_w):
            os.close(fd)
        os.close(checker_status_w)
        os.close(status_w)
        outcome, status, wall_s, streams, _, hit = self.supervise(
            pid, start, limits, {"stdout": out_r, "stderr": err_r, "result": res_r}, clock
        )
        if self.count_log_fd is not None and outcome == "exited":  # written when it ends
            self.await_exit(candidate, limits)
        self.kill_tree(candidate)  # time the candidate, not the checker
        _, cand_status, rusage = os.wait4(candidate, 0)
        self.kill_everything(pid)
        # the candidate's process tree (helpers included) with a cgroup; else its own rusage
        cpu_s = max(0.0, clock()) if self.counts_cpu else rusage.ru_utime + rusage.ru_stime
        result = _raw_result(
            outcome, status, cpu_s, wall_s, rusage, streams, hit, self.memory_exceeded()
        )
        if os.WIFSIGNALED(cand_status) and os.WTERMSIG(cand_status) == signal.SIGXCPU:
            result["limit_hit"] = "cpu"  # the kernel's CPU limit stopped the candidate
        checker_failed, _ = child.read_status(checker_status_r)
        result["setup_failed"], result["memory_error"] = child.read_status(
            status_r, memory_flag=memory_flag
        )
        result["setup_failed"] = checker_failed or result["setup_failed"]
        self.add_count_log(result, candidate, pid)
        return result

    # -- counting (a zygote under Valgrind) --------------------------------------------------
    def read_count_log(self) -> str:
        """What Valgrind wrote to its log since the last read ("" when not counting)."""
        if self.count_log_fd is None:
            return ""
        chunks = []
        while True:
            try:
                data = os.read(self.count_log_fd, 1 << 16)
            except BlockingIOError:
                break
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks).decode("utf-8", "replace")

    def add_count_log(self, result: dict, program_pid: int, *others: int) -> None:
        """A counted test's log (every process of it has ended): the host finds the program's
        total and its twin's there (the twin is the one process that is neither the program
        nor one of ``others``)."""
        if self.count_log_fd is not None:
            result["count_log"] = self.read_count_log()[-20000:]
            result["count_pids"] = [program_pid, *others]

    def await_exit(self, pid: int, limits: dict) -> None:
        """An assert test's candidate ends by itself once its checker has hung up (its count is
        written at its exit; a killed one has none): wait for it, within the wall limit."""
        deadline = time.monotonic() + min(limits["wall_time_s"], _CANDIDATE_EXIT_S)
        while time.monotonic() < deadline:  # (pidfd_open is not there under Valgrind 3.19)
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return
            time.sleep(_EXIT_POLL_S)

    def supervise(self, pid: int, start: float, limits: dict, fds: dict[str, int], cpu_used):
        """Collect ``pid``'s output until it exits or a limit is hit. The wall-clock limit
        runs from ``start``; ``cpu_used()`` (the program's CPU seconds so far: its test cgroup's,
        or its own process clock without one) is read every 20 ms while it runs, and reaching
        the CPU limit stops it. Returns (outcome,
        status, wall_s, streams, rusage, limit_hit)."""
        caps = {
            "stdout": limits["max_output_bytes"],
            "stderr": 64 * 1024,
            "result": limits["max_output_bytes"],
        }
        chunks = {name: [] for name in fds}
        sizes = dict.fromkeys(fds, 0)
        deadline = start + limits["wall_time_s"]
        cpu_limit = limits["cpu_time_s"]
        # Only a CPU limit below the wall limit needs watching: a program that reaches it
        # first is stopped here (its threads count together); polls cost one clock read.
        cpu_check = None
        if cpu_limit < limits["wall_time_s"]:
            cpu_check = start + min(cpu_limit, _CPU_POLL_S)
        limit_hit = None
        pidfd = _pidfd_open(pid)
        names = {fd: name for name, fd in fds.items()}
        poller = select.poll()
        for fd in names:
            os.set_blocking(fd, False)
            poller.register(fd, select.POLLIN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        open_fds = set(names)
        outcome, status, rusage, wall_s, exited = "exited", None, None, None, False
        while True:
            now = time.perf_counter()
            if now >= deadline:
                if not exited:
                    outcome, limit_hit = "timeout", "wall"
                break  # (after exit: descendants still hold the pipes; they are killed below)
            wait_s = deadline - now
            if cpu_check is not None and not exited:
                if now >= cpu_check:
                    used = cpu_used()
                    if used >= cpu_limit:
                        outcome, limit_hit = "timeout", "cpu"
                        break
                    cpu_check = now + min(cpu_limit - used, _CPU_POLL_S)
                wait_s = min(wait_s, max(0.0, cpu_check - now))
            if pidfd is None and not exited:  # no pidfd: look for its exit every few ms
                reaped, status, rusage = os.wait4(pid, os.WNOHANG)
                if reaped:
                    wall_s, exited = time.perf_counter() - start, True
                    deadline = min(deadline, time.perf_counter() + 0.05)  # short drain
                wait_s = min(wait_s, _EXIT_POLL_S)
            events = poller.poll(wait_s * 1000)
            if exited and not events:
                break
            for fd, _ in events:
                if fd == pidfd:
                    _, status, rusage = os.wait4(pid, 0)
                    wall_s = time.perf_counter() - start
                    exited = True
                    deadline = min(deadline, time.perf_counter() + 0.05)  # short drain
                    poller.unregister(pidfd)
                    continue
                try:
                    data = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                name = names[fd]
                if not data:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                    continue
                sizes[name] += len(data)
                if sizes[name] <= caps[name]:
                    chunks[name].append(data)
                elif name == "stderr":  # keep its *tail*: the error that ends it is last
                    kept = joined(chunks[name])
                    whole = bytearray(len(kept) + len(data))
                    whole[: len(kept)], whole[len(kept) :] = kept, data
                    chunks[name] = [bytes(memoryview(whole)[-caps[name] :])]
                    scrub(kept, data, whole)
                else:
                    outcome = "output_limit"
            if outcome == "output_limit" or (exited and not open_fds):
                break
        if not exited:
            self.kill_tree(pid)
            _, status, rusage = os.wait4(pid, 0)
            wall_s = time.perf_counter() - start
            if outcome == "timeout":
                status = None
        if pidfd is not None:
            os.close(pidfd)
        for fd in fds.values():
            os.close(fd)
        streams = {k: joined(v) if v else b"" for k, v in chunks.items()}
        return outcome, status, wall_s, streams, rusage, limit_hit

    def kill_tree(self, pid: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        if self.is_init:
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)  # pid 1: everything in the namespace but us

    def kill_everything(self, pid: int) -> None:
        """No process of a test outlives it: as pid 1 of the sandbox we kill every other
        process in the namespace and reap it (its CPU time is counted by then)."""
        self.kill_tree(pid)
        while True:
            try:
                reaped, _ = os.waitpid(-1, 0 if self.is_init else os.WNOHANG)
            except ChildProcessError:
                return
            if reaped == 0:
                return

    def wait_for_bound_sockets(self) -> None:
        """The sandbox's network namespace is shared by its tests: a unix socket bound to a
        name (abstract ones included) that outlives its test — kept alive only by being in
        flight in a cycle of SCM_RIGHTS messages, until the kernel's garbage collector frees
        it — could be reached by the next test. Wait for the collector; if such a socket is
        still there after _SOCKET_WAIT_S, this zygote must not serve on (a fresh one has a
        fresh namespace)."""
        if not self.config.get("own_network"):
            return
        deadline = time.monotonic() + _SOCKET_WAIT_S
        while _bound_unix_sockets():
            if time.monotonic() >= deadline:
                raise CleanupFailed("a named unix socket outlived its test")
            # Releasing a unix socket while fds are in flight makes the kernel collect them.
            fd = libc.socket(AF_UNIX, 2, 0)  # SOCK_DGRAM; the zygote has no socket module
            if fd >= 0:
                os.close(fd)
            time.sleep(0.002)

    def clear_shared_memory(self) -> None:
        if os.path.isdir("/dev/shm") and self.config["fs_isolation"]:
            remove_tree("/dev/shm", keep_root=True)

    # -- an assert test's two processes ------------------------------------------------------
    def assert_child(
        self, code, test, limits, stdin_fd, out_w, err_w, res_w, peer, trusted
    ) -> None:
        """Set up and run one process of an assert test; never returns. ``peer`` is the
        (read, write) pair of the call channel and the status channel, placed on fds 4-6;
        ``trusted``: the candidate's prelude item, or the checker's (prelude, test code)."""
        if code is None:  # (the candidate's: set by run_assert, with its memory flag)
            child.use_status_channel(6)
        try:
            program = self.runner.load(code) if code is not None else None
            self.forget_in_child()
            self.setup_process(limits, stdin_fd, out_w, err_w, res_w, peer)
        except BaseException as exc:
            child.setup_failed(f"{type(exc).__name__}: {exc}")
        if program is None:
            self.runner.run_checker(test, *trusted)
        self.runner.run(program, test, trusted)

    def setup_process(self, limits, stdin_fd, out_w, err_w, res_w, extra=(), drop=True) -> None:
        """In a fresh child: own process group, fds 0-3 (+ ``extra`` from 4), scratch as cwd,
        limits and (with ``drop``) the unprivileged uid. Seccomp is inherited."""
        os.setpgid(0, 0)
        # The zygote (pid 1) ignores SIGINT and SIGTERM; a program gets Python's own
        # dispositions back. Inherited SIG_IGN made multiprocessing.Pool.terminate() hang on
        # workers that ignored its SIGTERM.
        # (``_signal`` itself: ``signal.signal``'s enum conversions cost each child ~30
        # copy-on-write page faults, ~75 us)
        _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        os.dup2(stdin_fd, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        # 3 and up close-on-exec: what a program execs holds 0-2 (docs/sandbox.md)
        os.dup2(res_w, 3, inheritable=False)
        for i, fd in enumerate(extra):
            os.dup2(fd, 4 + i, inheritable=False)
        close_fds_from(4 + len(extra))
        os.chdir(scratch.PATH)
        self.apply_limits(limits)
        if drop:
            self.drop_privileges()

    def drop_privileges(self) -> None:
        if self.can_setuid:
            os.setgroups([])
            os.setresgid(self.config["gid"], self.config["gid"], self.config["gid"])
            os.setresuid(self.config["uid"], self.config["uid"], self.config["uid"])
        if not self.is_init:  # (as pid 1, our death kills the whole namespace anyway)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # after setuid: it clears it

    # -- accounting: the test cgroup ---------------------------------------------------------
    @property
    def cgroup(self) -> TestCgroup | None:
        return self.config.get("cgroup")

    @property
    def counts_cpu(self) -> bool:
        return self.cgroup is not None and self.cgroup.counts_cpu

    def memory_bytes(self, limits: dict) -> int:
        """The memory bound of one process (RLIMIT_AS) and of a whole test (its cgroup)."""
        return self.base_vm_bytes + limits["memory_mb"] * 1024 * 1024

    def address_space_bytes(self, limits: dict) -> int:
        """RLIMIT_AS: on top of the interpreter for a Python child (``memory_bytes``); for an
        exec'd program (``address_space`` "native") the limit plus 64 MiB for its loader and
        libraries; none (``"none"``) for runtimes that reserve far more address space than
        they use (the JVM, Go, V8), which the memory cgroup and their heap flags bound."""
        kind = limits.get("address_space", "python")
        if kind == "none":
            return resource.RLIM_INFINITY
        if kind == "native":
            return (limits["memory_mb"] + 64) * 1024 * 1024
        return self.memory_bytes(limits)

    def charge_to_test(self, pid: int, limits: dict) -> None:
        """A freshly forked spare goes into the test cgroup, under this test's memory limit."""
        if self.cgroup is not None:
            self.cgroup.limit_memory(self.memory_bytes(limits))
            self.cgroup.join(pid)

    def enter_test_cgroup(self, limits: dict) -> None:
        if self.cgroup is not None:
            self.cgroup.limit_memory(self.memory_bytes(limits))
            self.cgroup.enter()

    def leave_test_cgroup(self, pid: int):
        """Back to the server cgroup; returns the clock of the test begun in there."""
        if self.cgroup is not None:
            self.cgroup.leave()
        return self.program_clock(pid, 0.0)

    def program_clock(self, pid: int, setup_s: float):
        """A function giving the CPU seconds the test's programs used from now on: the test
        cgroup's whole process tree, or (without one) ``pid``'s own clock less its set-up."""
        if self.counts_cpu:
            cgroup = self.cgroup
            base = cgroup.cpu_s()
            return lambda: cgroup.cpu_s() - base
        return lambda: process_cpu_s(pid) - setup_s

    def memory_exceeded(self) -> bool:
        return self.cgroup is not None and self.cgroup.memory_exceeded()

    def rlimit_table(self, limits: dict) -> tuple:
        """The resource limits of ``limits`` as ((resource, (soft, hard)), ...), built once
        in the zygote before the fork (a child that builds it takes ~10 copy-on-write faults)."""
        if self.rlimits is not None and self.rlimits[0] is limits:
            return self.rlimits[1]
        table = [
            (resource.RLIMIT_AS, self.address_space_bytes(limits)),
            (resource.RLIMIT_FSIZE, limits["max_file_bytes"]),
            (resource.RLIMIT_NOFILE, limits["max_open_files"]),
            (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_STACK, limits["stack_mb"] * 1024 * 1024),
            # no real-time scheduling and no raised priority: the worker's core is timed
            (resource.RLIMIT_RTPRIO, 0),
            (resource.RLIMIT_NICE, 0),
        ]
        if self.can_setuid:  # counts per uid: meaningful only with a uid of our own
            table.append((resource.RLIMIT_NPROC, limits["max_processes"]))
        self.rlimits = (limits, tuple((res, (value, value)) for res, value in table))
        return self.rlimits[1]

    def apply_limits(self, limits: dict) -> None:
        # The kernel's CPU limit: SIGXCPU at the limit in whole seconds, SIGKILL a second later
        # (for a program that ignores SIGXCPU). The supervisor stops it sooner, to 20 ms. The
        # kernel counts the whole process, so the CPU its set-up used so far (fork's page
        # copies: 0.1 s on a loaded machine) is added, lest it stop a program short of its
        # limit with a verdict that says the limit was reached.
        cpu = math.ceil(limits["cpu_time_s"] + time.process_time())
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        for res, pair in self.rlimit_table(limits):
            try:
                resource.setrlimit(res, pair)
            except ValueError:  # (only under Valgrind, which keeps some hard limits: lower soft)
                if self.count_log_fd is None:
                    raise
                hard = resource.getrlimit(res)[1]
                resource.setrlimit(res, (min(pair[0], hard), hard))


_SOCKET_WAIT_S = 1.0
_EXIT_POLL_S = 0.002
"""Without pidfd_open (Valgrind 3.19 does not know the syscall), how often a child's exit is
looked for."""


def _null_result_channel() -> None:
    """In a stdio test's child: fd 3 becomes /dev/null (close-on-exec), as documented."""
    null = os.open("/dev/null", os.O_RDWR | os.O_CLOEXEC)
    os.dup2(null, 3, inheritable=False)
    os.close(null)


def _reap_orphans() -> None:
    """As pid 1: kill and reap whatever a request's process left behind (re-parented here)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, 0)[0]:
            pass


def _pidfd_open(pid: int) -> int | None:
    """A pidfd for ``pid``, or None where the system call is missing (ENOSYS)."""
    try:
        return os.pidfd_open(pid)
    except OSError as exc:
        if exc.errno != errno.ENOSYS:
            raise
        return None


_CANDIDATE_EXIT_S = 60.0


def _bound_unix_sockets() -> int:
    """How many unix sockets with a name (a path or an abstract one) this network namespace
    has; the zygote itself has none."""
    try:
        with open("/proc/net/unix", "rb") as f:
            lines = f.read().splitlines()[1:]
    except OSError:
        return 0
    return sum(1 for line in lines if len(line.split()) >= 8)


_FIRST_PID_MINUS_1 = 99
"""The pid counter is set to this before each test's first fork (its first process is 100)."""


class _ZygoteBroken(Exception):
    """The zygote's own state is not trustworthy any more (e.g. scratch it could not clean)."""


class _Spare:
    """A child forked ahead of its test, and the zygote's ends of its pipes."""

    __slots__ = ("err_r", "limits", "out_r", "pid", "ready", "ready_r", "res_r", "stdin_fd")
    __slots__ += ("memory_flag", "task_w")

    def __init__(self, pid, limits, task_w, ready_r, stdin_fd, out_r, err_r, res_r) -> None:
        self.pid, self.limits, self.task_w, self.ready_r = pid, limits, task_w, ready_r
        self.ready = b""  # the first byte of its status channel, once read
        self.stdin_fd, self.out_r, self.err_r, self.res_r = stdin_fd, out_r, err_r, res_r
        self.memory_flag = None  # its shared page (child._MEMORY_FLAG)

    def close(self) -> None:
        for fd in (self.task_w, self.ready_r, self.stdin_fd, self.out_r, self.err_r, self.res_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.memory_flag is not None:
            self.memory_flag.close()


def _raw_result(
    outcome, status, cpu_s, wall_s, rusage, streams, limit_hit=None, memory_exceeded=False
) -> dict:
    result = {
        "outcome": outcome,
        "limit_hit": limit_hit,
        # the kernel's memory accounting (the test's memory cgroup killed a process for it)
        "memory_exceeded": memory_exceeded,
        "exit_code": None,
        "signal": None,
        "cpu_s": cpu_s,
        "wall_s": wall_s,
        "max_rss_mb": (rusage.ru_maxrss / 1024) if rusage else 0.0,
        **streams,
    }
    if status is not None:
        if os.WIFSIGNALED(status):
            result["signal"] = os.WTERMSIG(status)
        else:
            result["exit_code"] = os.WEXITSTATUS(status)
    return result


_CPU_POLL_S = 0.02
"""How often the supervisor reads a running program's CPU clock (the CPU limit's precision)."""


def _vm_size_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0
