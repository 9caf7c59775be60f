"""Compiling Python: the worker's compiler process (a second sandboxed process that compiles
each new program and trusted code and returns marshalled code), the zygote's client of it,
its cache, and turning what it returned back into code objects in a child."""

from __future__ import annotations

import marshal

from .counting import COUNTING
from .seccomp import lock_down
from .wire import read_message, write_message


def compile_source(source: bytes, filename: str = "<program>") -> bytes | str:
    """A program's (or trusted code's) marshalled code, or its compile error (any failure of
    the parser, its own limits included: deep nesting is a MemoryError or RecursionError)."""
    try:
        code = compile(source.decode("utf-8", errors="surrogateescape"), filename, "exec")
        return marshal.dumps(code)
    except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        return _compile_error_line(exc)


class Compiler:
    """The zygote's side of the worker's compiler: a second sandboxed process (its own
    namespaces and root, seccomp; started by the host next to the zygote) that compiles each new
    program and returns its marshalled code. CPython's compiler leaves copies of a source in
    the heap it ran in (tokenizer buffers, the AST, constants); that heap is never forked, so
    no program inherits another's source. Without one (``fds`` None) it compiles here."""

    def __init__(self, fds) -> None:
        self.request_fd, self.reply_fd = fds if fds else (-1, -1)
        if fds:  # its greeting: it is up (or why not)
            ready, _ = read_message(self.reply_fd)
            if not ready.get("ready"):
                raise RuntimeError(f"the compiler did not start: {ready.get('error')}")

    @property
    def separate(self) -> bool:
        """Whether compiling happens in the compiler process (not in this one)."""
        return self.request_fd >= 0

    def compile(self, source: bytes, filename: str = "<program>") -> bytes | str:
        if not self.separate:
            return compile_source(source, filename)
        write_message(self.request_fd, {"op": "compile", "filename": filename}, source)
        try:
            reply, payloads = read_message(self.reply_fd, exact=COUNTING["on"])
        except EOFError:  # it died on this source (or was killed): the worker is restarted
            raise RuntimeError("the compiler process died") from None
        if "compile_error" in reply:
            return str(reply["compile_error"])[:2000]
        return payloads[0]


def serve_compiler(config: dict) -> None:
    """The compiler process: compile what the zygote sends until it closes the channel."""
    request_fd, reply_fd = config["request_fd"], config["reply_fd"]
    # (as the zygote did when it compiled: it stays root in its own namespaces, so no process
    # of the sandbox's uid exists between tests)
    lock_down(config)
    write_message(reply_fd, {"ready": True})
    cache = CompileCache()
    while True:
        try:
            header, payloads = read_message(request_fd)
        except EOFError:
            return
        compiled = cache.compile(bytes(payloads[0]), str(header.get("filename", "<program>")))
        del payloads
        if isinstance(compiled, str):
            write_message(reply_fd, {"compile_error": compiled})
        else:
            write_message(reply_fd, {"ok": True}, compiled)
        del compiled


class CompileCache:
    """The compiler process's last ``entries`` results (sources of up to ``max_source`` bytes):
    a group of samples of one problem shares its tests' code and prelude (and resubmitted
    programs recur), so most of a batch's compiles are one dictionary lookup. It lives in the
    compiler process only, which never forks and never runs a program."""

    def __init__(self, entries: int = 128, max_source: int = 1 << 16) -> None:
        self.entries, self.max_source = entries, max_source
        self.results: dict[tuple[str, bytes], bytes | str] = {}  # least recently used first
        self.hits = 0

    def compile(self, source: bytes, filename: str) -> bytes | str:
        key = (filename, source)
        compiled = self.results.pop(key, None)
        if compiled is None:
            compiled = compile_source(source, filename)
        else:
            self.hits += 1
        if len(source) <= self.max_source:
            self.results[key] = compiled
            while len(self.results) > self.entries:
                del self.results[next(iter(self.results))]
        return compiled


class CompileFailed(Exception):
    """Trusted code (a prelude, an assert test's code) that does not compile; its message is
    the compiler's error line."""


def trusted_code(item, filename: str):
    """In a child: the code object of trusted code the zygote passed on. ``item`` is its
    marshalled code (bytes: the worker's compiler compiled it), its compile error (str), or
    ``("source", text)`` without a compiler process (compiled here in the child, never in the
    zygote: an assert test's code must not reach the heap the candidate is forked from)."""
    if isinstance(item, tuple):
        return compile(text(item[1]), filename, "exec")
    if isinstance(item, str):
        raise CompileFailed(item)
    return marshal.loads(item)


def text(source) -> str:
    return source if isinstance(source, str) else bytes(source).decode("utf-8", "surrogateescape")


def _compile_error_line(exc: BaseException) -> str:
    try:
        return exception_line(exc)
    except BaseException:  # out of memory while formatting: the type still names it
        return type(exc).__name__


def trusted_failure_line(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, CompileFailed) else exception_line(exc)


def exception_line(exc: BaseException) -> str:
    import traceback  # (imported by the zygote: see main)

    return "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]
