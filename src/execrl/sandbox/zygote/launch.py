"""Start the zygote: load the package's modules as ``_zygote.<name>`` and call ``main``.

Run as a script (``python -I -S launch.py CONFIG``). Each module is compiled from its source
by ``compile()``, whose syntax tree is freed at once (a script's stays allocated until it
ends, and every fork would copy its page-table entries), and no bytecode cache is read or
written: one written by an interpreter with another hash seed moved instruction counts from
one server to the next. Standard library only, like the package.
"""

import sys


def load_package(directory: str) -> None:
    """Register the package ``_zygote`` and every module of ``MODULES`` under it, in order."""
    package = sys.modules["_zygote"] = type(sys)("_zygote")
    package.__path__ = [directory]
    package.__package__ = "_zygote"
    run_source(package, directory + "/__init__.py")
    for name in package.MODULES:
        module = sys.modules["_zygote." + name] = type(sys)("_zygote." + name)
        module.__package__ = "_zygote"
        run_source(module, f"{directory}/{name}.py")
        setattr(package, name, module)


def run_source(module, path: str) -> None:
    module.__file__ = path
    with open(path, "rb") as f:
        exec(compile(f.read(), path, "exec"), module.__dict__)


if __name__ == "__main__":
    load_package(__file__.rpartition("/")[0])
    sys.modules["_zygote.main"].main()
