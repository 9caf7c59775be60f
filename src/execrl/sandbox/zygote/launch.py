"""Start the zygote: load the package's modules as ``_zygote.<name>`` and call ``main``.

Run as a script (``python -I -S launch.py CONFIG``), standard library only, like the package.
No bytecode cache is read or written: one written by an interpreter with another hash seed
moved instruction counts from one server to the next.

A native zygote compiles each module with ``compile()``, whose syntax tree is freed at once (a
script's stays allocated until it ends, and every fork would copy its page-table entries; the
freed blocks are handed back to the kernel in ``main``). A counted zygote (under Valgrind)
never parses at all: a child of its own — the same interpreter, the same hash seed — compiles
the modules and sends their code back marshalled, into one buffer of the announced size. The
freed syntax trees would have left holes in its heap that later allocations fill in an order
that varies from one server's start-up to the next, and a program's count moved with it.
"""

import sys


def load_package(directory: str, *, counted: bool) -> None:
    """Register the package ``_zygote`` and every module of ``MODULES`` under it, in order."""
    package = sys.modules["_zygote"] = type(sys)("_zygote")
    package.__path__ = [directory]
    package.__package__ = "_zygote"
    exec(compile_all([directory + "/__init__.py"], counted)[0], package.__dict__)
    names = package.MODULES
    paths = [f"{directory}/{name}.py" for name in names]
    for name, path, code in zip(names, paths, compile_all(paths, counted), strict=True):
        module = sys.modules["_zygote." + name] = type(sys)("_zygote." + name)
        module.__package__, module.__file__ = "_zygote", path
        exec(code, module.__dict__)
        setattr(package, name, module)


def compile_all(paths: list, counted: bool) -> list:
    """The modules' code objects: compiled here, or (counted) in a child that sends them."""
    if not counted:
        return [compile(read(path), path, "exec") for path in paths]
    import marshal
    import os

    ready, sent = os.pipe()
    pid = os.fork()
    if pid == 0:
        data = marshal.dumps([compile(read(path), path, "exec") for path in paths])
        view = memoryview(len(data).to_bytes(8, "big") + data)
        while view:
            view = view[os.write(sent, view) :]
        os._exit(0)
    os.close(sent)
    size = int.from_bytes(read_exactly(ready, 8), "big")
    data = read_exactly(ready, size)
    os.close(ready)
    os.waitpid(pid, 0)
    return marshal.loads(data)


def read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def read_exactly(fd: int, n: int) -> bytearray:
    """``n`` bytes into one buffer of that size, however they arrive."""
    import os

    buffer, got = bytearray(n), 0
    with memoryview(buffer) as view:
        while got < n:
            got += os.readv(fd, [view[got:]]) or ended_early()
    return buffer


def ended_early() -> int:
    raise EOFError("the zygote's compiling child ended early")


if __name__ == "__main__":
    load_package(__file__.rpartition("/")[0], counted='"counting": true' in sys.argv[1])
    sys.modules["_zygote.main"].main()
