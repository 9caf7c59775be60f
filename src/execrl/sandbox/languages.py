"""Programs in more than one language: each language is one row of :data:`LANGUAGES`.

A row names the source file, the build and run commands (argv templates), the version probe,
a tiny program that echoes its stdin, the Debian package of the toolchain, the names other
systems use for the language (SandboxFusion's ``language`` values, CodeContests' enum,
Kattis file extensions) and two flag profiles: ``judge`` (the default; what Codeforces and
ICPC judges use) and ``sandboxfusion`` (SandboxFusion's exact commands). Nothing else
branches on the language (DESIGN.md, "Programs in more than one language").

Templates are tuples of argv elements. An element that is exactly ``{flags}``,
``{libraries}`` or ``{runtime_flags}`` becomes zero or more arguments (the profile's, then
the user's flags where ``{flags}`` is); ``{source}`` and ``{binary}`` are replaced inside an
element (``{binary}`` is the source file's stem: ``main``, or ``Main`` for Java).

:func:`probe` decides whether a toolchain is installed by building and running the row's
``test_program`` on the host. Compiling inside the sandbox, the build cache and the runners
come next (issue 31); this module runs nothing in the sandbox.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from execrl.errors import UsageError

PROFILES = ("judge", "sandboxfusion")
"""The flag profiles every row has; ``judge`` is the default."""
PLACEHOLDERS = frozenset({"source", "binary", "flags", "libraries", "runtime_flags", "memory_mb"})
"""The names a template may hold in braces."""
_LISTS = ("{flags}", "{libraries}", "{runtime_flags}")
_JAVA_PUBLIC_CLASS = re.compile(r"^\s*public\s+(?:final\s+|abstract\s+)*class\s+(\w+)", re.M)
_JAVA_TYPE = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)")
_JAVA_MAIN = re.compile(r"\bstatic\s+(?:final\s+)?void\s+main\s*\(")
_JAVA_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\])\'', re.S)


def _java_code(source: str) -> str:
    """Java source without comments, strings and characters (a word "class" in a comment is
    not a declaration)."""
    return _JAVA_NOISE.sub(" ", source)


PROBE_TIMEOUT_S = 60.0
"""How long one step of :func:`probe` (build, run, version) may take: javac and rustc take
seconds on a cold machine."""
PROBE_INPUT = "execrl 1 2 3\n"
"""What :func:`probe` feeds the test program; it must echo it back."""
CODECONTESTS_NAMES = {1: "PYTHON", 2: "CPP", 3: "PYTHON3", 4: "JAVA"}
"""CodeContests' ``Language`` enum (``0`` is UNKNOWN_LANGUAGE)."""


@dataclass(frozen=True)
class Profile:
    """The flags a language's templates are filled with under one profile."""

    name: str
    """``judge`` or ``sandboxfusion``."""
    flags: tuple[str, ...] = ()
    """Where ``{flags}`` is: compiler flags, or the interpreter's for an interpreted language;
    a user's flags follow them."""
    libraries: tuple[str, ...] = ()
    """Where ``{libraries}`` is, after the source (``-lm``: the linker reads left to right)."""
    runtime_flags: tuple[str, ...] = ()
    """Where ``{runtime_flags}`` is in the run command (the JVM's ``-Xss64m``)."""
    source: str = ""
    """Where these commands come from (a URL or a judge's documentation)."""


@dataclass(frozen=True)
class Commands:
    """A language's commands under one profile, templates filled."""

    compile: tuple[str, ...] | None
    """The build's argv, run in the program's directory; None for an interpreted language."""
    run: tuple[str, ...]
    """The program's argv, run in the same directory."""


@dataclass(frozen=True)
class Language:
    """One language: everything execrl knows about it is here."""

    name: str
    """execrl's name (``cpp``): the key of :data:`LANGUAGES`."""
    title: str
    """For people: ``C++ (g++, GNU++17)``."""
    source_file: str
    """The file the source is written to (``main.cpp``; Java needs ``Main.java``)."""
    compile: tuple[str, ...] | None
    """The build's argv template; None for an interpreted language."""
    run: tuple[str, ...]
    """The run's argv template."""
    version: tuple[str, ...]
    """The argv whose first output line names the toolchain's version."""
    test_program: str
    """A tiny program that copies its stdin to its stdout (as DMOJ's executors carry)."""
    debian_package: str
    """The Debian package that provides the toolchain."""
    profiles: tuple[Profile, ...]
    """One per name of :data:`PROFILES`."""
    sandboxfusion: tuple[str, ...] = ()
    """SandboxFusion's ``language`` values for it (``cpp``; ``nodejs`` and ``js``)."""
    codecontests: tuple[int, ...] = ()
    """CodeContests' enum values for it (2 is CPP; see :data:`CODECONTESTS_NAMES`)."""
    kattis_extensions: tuple[str, ...] = ()
    """File extensions Kattis/problemtools read as this language, with the dot; case
    matters (``.C`` is C++, ``.c`` is C)."""
    aliases: tuple[str, ...] = ()
    """Other names people write for it (``c++``, ``python3``, ``golang``), matched without
    regard to case."""
    outputs: tuple[str, ...] = ("{binary}",)
    """What a build leaves that the run needs: names, or ``*suffix`` patterns (Java's
    ``*.class``), in the build's directory."""
    address_space: str = "native"
    """How the run's memory is bounded besides the memory cgroup: ``native`` (RLIMIT_AS at
    the limit plus 64 MiB) or ``none`` for runtimes that reserve far more address space than
    they use (the JVM, Go, V8): the cgroup and their heap flags bound them."""
    build_address_space: str = "native"
    """The same for the build (rustc, javac and go reserve address space too)."""
    processes: int = 0
    """The fewest processes and threads a run needs (the JVM starts ~20 threads); the
    request's ``max_processes`` is raised to it."""

    @property
    def compiled(self) -> bool:
        return self.compile is not None

    @property
    def toolchain(self) -> str:
        """The program that must be installed: the compiler, else the interpreter."""
        return (self.compile or self.run)[0]

    def source_file_for(self, source: str) -> str:
        """The file ``source`` is written to: :attr:`source_file`, except for a Java program
        whose public class has another name (javac requires ``Solution.java`` for ``public
        class Solution``; Kattis, like javac, takes the class from the file)."""
        if self.name != "java":
            return self.source_file
        match = _JAVA_PUBLIC_CLASS.search(_java_code(source))
        return f"{match.group(1)}.java" if match else self.source_file

    def main_class_for(self, source: str) -> str | None:
        """The class a Java program's run names: the one declaring ``main`` (a program whose
        main class is not public, as Kattis submissions often are, is not ``Main``); None for
        other languages, or when no ``main`` is found (the file's stem is run)."""
        if self.name != "java":
            return None
        code = _java_code(source)
        main = _JAVA_MAIN.search(code)
        if main is None:
            return None
        declared = [m for m in _JAVA_TYPE.finditer(code) if m.start() < main.start()]
        return declared[-1].group(1) if declared else None

    def profile(self, name: str = "judge") -> Profile:
        for profile in self.profiles:
            if profile.name == name:
                return profile
        raise UsageError(f"unknown `profile` {name!r}; known: {', '.join(PROFILES)}")

    def commands(
        self,
        profile: str = "judge",
        flags: Sequence[str] = (),
        memory_mb: int = 256,
        source_file: str | None = None,
        binary: str | None = None,
    ) -> Commands:
        """The build and run argv under ``profile``, the user's ``flags`` after the
        profile's; ``{memory_mb}`` (a heap flag) is the run's memory limit; ``source_file``
        another name for the source (a Java program's public class decides its file)."""
        chosen = self.profile(profile)
        lists = {
            "{flags}": (*chosen.flags, *flags),
            "{libraries}": chosen.libraries,
            "{runtime_flags}": chosen.runtime_flags,
        }
        source = source_file or self.source_file
        names = {"source": source, "binary": binary or Path(source).stem}

        def fill(template: tuple[str, ...]) -> tuple[str, ...]:
            out: list[str] = []
            for part in template:
                if part in _LISTS:
                    out += [p.replace("{memory_mb}", str(memory_mb)) for p in lists[part]]
                else:
                    out.append(part.format(memory_mb=memory_mb, **names))
            return tuple(out)

        return Commands(self.compile and fill(self.compile), fill(self.run))


_SF = "https://github.com/bytedance/SandboxFusion/blob/main/sandbox/runners/major.py"
_CF = "the flags Codeforces and ICPC judges use: -O2, the GNU dialect, ONLINE_JUDGE defined"
_COMPILED_RUN = ("./{binary}",)


def _python2() -> str:
    """Python 2's interpreter: ``$EXECRL_PYTHON2``, else ``python2`` on PATH, else the newest
    pyenv 2.7 (CodeContests' Python 2 solutions need one; Debian 12 ships none)."""
    if os.environ.get("EXECRL_PYTHON2"):
        return os.environ["EXECRL_PYTHON2"]
    found = sorted(Path.home().glob(".pyenv/versions/2.7*/bin/python2.7"))
    if found:  # (pyenv's shim on PATH runs only where a .python-version selects 2.7)
        return str(found[-1])
    return shutil.which("python2") or "python2"


PYTHON2 = _python2()
_BUILD_C_LIKE = ("{flags}", "{source}", "-o", "{binary}", "{libraries}")

LANGUAGES: dict[str, Language] = {
    language.name: language
    for language in (
        Language(
            name="python",
            aliases=("python3", "py", "py3", "cpython"),
            title=f"Python {sys.version_info.major}.{sys.version_info.minor} (CPython)",
            source_file="main.py",
            compile=None,
            run=(sys.executable, "{flags}", "{source}"),
            version=(sys.executable, "--version"),
            test_program="import sys\nsys.stdout.write(sys.stdin.read())\n",
            debian_package="python3",
            profiles=(
                Profile("judge", source=_CF),
                # run_python: `python {file}` in its sandbox-runtime conda env.
                Profile("sandboxfusion", source=_SF),
            ),
            sandboxfusion=("python",),
            codecontests=(3,),
            kattis_extensions=(".py", ".py3"),
        ),
        Language(
            name="python2",
            aliases=("py2", "python2.7"),
            title="Python 2.7 (CPython)",
            source_file="main.py",
            compile=None,
            run=(PYTHON2, "{flags}", "{source}"),
            version=(PYTHON2, "--version"),
            test_program="import sys\nsys.stdout.write(sys.stdin.read())\n",
            debian_package="python2 (not in Debian 12: pyenv install 2.7.18)",
            # SandboxFusion has no Python 2; CodeContests' enum 1 (PYTHON) is Python 2.
            profiles=(Profile("judge", source=_CF), Profile("sandboxfusion")),
            codecontests=(1,),
        ),
        Language(
            name="pypy",
            aliases=("pypy3",),
            title="Python 3 (PyPy)",
            source_file="main.py",
            compile=None,
            run=("pypy3", "{flags}", "{source}"),
            version=("pypy3", "--version"),
            test_program="import sys\nsys.stdout.write(sys.stdin.read())\n",
            debian_package="pypy3",
            # SandboxFusion has no PyPy: both profiles run it bare.
            profiles=(Profile("judge", source=_CF), Profile("sandboxfusion")),
        ),
        Language(
            name="c",
            aliases=("gcc", "c11"),
            title="C (gcc, GNU11)",
            source_file="main.c",
            compile=("gcc", *_BUILD_C_LIKE),
            run=_COMPILED_RUN,
            version=("gcc", "--version"),
            test_program=(
                "#include <stdio.h>\n"
                "int main(void) { int c; while ((c = getchar()) != EOF) putchar(c); return 0; }\n"
            ),
            debian_package="gcc",
            profiles=(
                Profile("judge", ("-O2", "-std=gnu11", "-DONLINE_JUDGE"), ("-lm",), source=_CF),
                # SandboxFusion has no C runner: its C++ command's shape (no -O), for gcc.
                Profile("sandboxfusion", ("-std=c11",), ("-lm",), source=_SF),
            ),
            kattis_extensions=(".c",),
        ),
        Language(
            name="cpp",
            aliases=("c++", "cxx", "cc", "gnu++17", "g++"),
            title="C++ (g++, GNU++17)",
            source_file="main.cpp",
            compile=("g++", *_BUILD_C_LIKE),
            run=_COMPILED_RUN,
            version=("g++", "--version"),
            test_program=(
                "#include <iostream>\nint main() { std::cout << std::cin.rdbuf(); return 0; }\n"
            ),
            debian_package="g++",
            profiles=(
                Profile("judge", ("-O2", "-std=gnu++17", "-DONLINE_JUDGE"), source=_CF),
                # run_cpp: `g++ -std=c++17 {file} -o test` + those of -lcrypto -lssl
                # -lpthread that link on the machine (get_cpp_rt_flags); -lpthread always does.
                Profile("sandboxfusion", ("-std=c++17",), ("-lpthread",), source=_SF),
            ),
            sandboxfusion=("cpp",),
            codecontests=(2,),
            kattis_extensions=(".cpp", ".cc", ".cxx", ".c++", ".C"),
        ),
        Language(
            name="java",
            aliases=("java17", "openjdk"),
            title="Java (OpenJDK)",
            source_file="Main.java",
            compile=("javac", "{flags}", "-d", ".", "{source}"),
            run=("java", "{runtime_flags}", "-cp", ".", "{binary}"),
            version=("javac", "-version"),
            test_program=(
                "public class Main {\n"
                "    public static void main(String[] args) throws Exception {\n"
                "        System.in.transferTo(System.out);\n"
                "        System.out.flush();\n"
                "    }\n"
                "}\n"
            ),
            debian_package="default-jdk-headless",
            profiles=(
                Profile(
                    "judge",
                    ("-encoding", "UTF-8"),
                    runtime_flags=(
                        "-Xss64m",
                        "-Xmx{memory_mb}m",
                        "-XX:+UseSerialGC",
                        "-DONLINE_JUDGE=true",
                    ),
                    source=_CF,
                ),
                # run_java: `javac -cp .:javatuples-1.2.jar Main.java`, then
                # `java -cp .:javatuples-1.2.jar -ea Main` (the jar is SandboxFusion's own).
                Profile("sandboxfusion", runtime_flags=("-ea",), source=_SF),
            ),
            outputs=("*.class",),
            address_space="none",
            build_address_space="none",
            processes=64,
            sandboxfusion=("java",),
            codecontests=(4,),
            kattis_extensions=(".java",),
        ),
        Language(
            name="rust",
            aliases=("rs", "rustc"),
            title="Rust (rustc)",
            source_file="main.rs",
            compile=("rustc", "{flags}", "{source}", "-o", "{binary}"),
            run=_COMPILED_RUN,
            version=("rustc", "--version"),
            test_program=(
                "use std::io;\n"
                "fn main() { io::copy(&mut io::stdin(), &mut io::stdout()).unwrap(); }\n"
            ),
            debian_package="rustc",
            profiles=(
                Profile("judge", ("-O", "--edition=2021", "--cfg", "ONLINE_JUDGE"), source=_CF),
                # run_rust: `rustc {file} -o test` (no -O; edition 2015, rustc's default).
                Profile("sandboxfusion", source=_SF),
            ),
            build_address_space="none",
            sandboxfusion=("rust",),
            kattis_extensions=(".rs",),
        ),
        Language(
            name="go",
            aliases=("golang",),
            title="Go (gc)",
            source_file="main.go",
            compile=("go", "build", "{flags}", "-o", "{binary}", "{source}"),
            run=_COMPILED_RUN,
            version=("go", "version"),
            test_program=(
                'package main\n\nimport (\n\t"io"\n\t"os"\n)\n\n'
                "func main() { io.Copy(os.Stdout, os.Stdin) }\n"
            ),
            debian_package="golang-go",
            profiles=(
                Profile("judge", source=_CF),
                # run_go: `go build -o out {file}` (with its runtime/go module files).
                Profile("sandboxfusion", source=_SF),
            ),
            address_space="none",
            build_address_space="none",
            processes=64,
            sandboxfusion=("go",),
            kattis_extensions=(".go",),
        ),
        Language(
            name="javascript",
            aliases=("node", "nodejs", "js"),
            title="JavaScript (Node.js)",
            source_file="main.js",
            compile=None,
            run=("node", "{flags}", "{source}"),
            version=("node", "--version"),
            test_program="process.stdin.pipe(process.stdout);\n",
            debian_package="nodejs",
            profiles=(
                Profile("judge", ("--max-old-space-size={memory_mb}",), source=_CF),
                # run_nodejs: `node {file}` (with its node_modules linked in).
                Profile("sandboxfusion", source=_SF),
            ),
            address_space="none",
            processes=32,
            sandboxfusion=("nodejs", "js"),
            kattis_extensions=(".js",),
        ),
    )
}
"""Every language execrl knows, by name."""


def by_sandboxfusion_name(name: str) -> Language | None:
    """The language SandboxFusion calls ``name`` (``nodejs`` → javascript), or None."""
    return next((lang for lang in LANGUAGES.values() if name in lang.sandboxfusion), None)


def by_codecontests(value: int | str) -> Language | None:
    """The language of CodeContests' enum value (``2`` or ``"CPP"``; ``1`` is Python 2), or
    None."""
    if isinstance(value, str):
        number = {v: k for k, v in CODECONTESTS_NAMES.items()}.get(value.upper())
        if number is None:
            return None
        value = number
    return next((lang for lang in LANGUAGES.values() if value in lang.codecontests), None)


def _by_alias(name: str) -> Language | None:
    folded = name.strip().lower()
    for lang in LANGUAGES.values():
        if folded == lang.name or folded in lang.aliases:
            return lang
    return None


def by_extension(extension: str) -> Language | None:
    """The language of a Kattis file extension (``.cc``, or ``cc``), or None."""
    dotted = extension if extension.startswith(".") else f".{extension}"
    return next((lang for lang in LANGUAGES.values() if dotted in lang.kattis_extensions), None)


def language(name: str | int) -> Language:
    """The language of execrl's name, a SandboxFusion name, a CodeContests enum value (an int
    or its name) or a Kattis extension with its dot; a UsageError listing the known names
    for anything else."""
    if isinstance(name, str) and name in LANGUAGES:
        return LANGUAGES[name]
    if isinstance(name, str) and (alias := _by_alias(name)) is not None:
        return alias
    if isinstance(name, int):
        found = by_codecontests(name)
    elif name.startswith("."):
        found = by_extension(name)
    else:
        found = by_sandboxfusion_name(name) or by_codecontests(name)
    if found is None:
        raise UsageError(
            f"unknown `language` {name!r}; known: {', '.join(LANGUAGES)} (or a SandboxFusion "
            "name, a CodeContests enum value or a Kattis extension such as '.cpp')"
        )
    return found


@dataclass(frozen=True)
class Toolchain:
    """Whether a language can be built and run here, as :func:`probe` found."""

    language: str
    installed: bool
    """The toolchain built (if compiled) and ran the test program, which echoed its input."""
    version: str | None
    """The first line the version probe printed; None if it failed."""
    path: str | None
    """Where the toolchain's program is (``/usr/bin/g++``); None if not on PATH."""
    why_not: str | None
    """For one not installed: what failed, and the Debian package to install."""


def probe(lang: Language | str) -> Toolchain:
    """Build and run ``lang``'s test program in a temporary directory on the host (the test
    program is trusted), each step under :data:`PROBE_TIMEOUT_S`; cached per process. No
    sandbox is involved: compilation inside the sandbox comes next (issue 31)."""
    return _probe(language(lang) if isinstance(lang, str) else lang)


@functools.cache
def _probe(lang: Language) -> Toolchain:
    path = shutil.which(lang.toolchain)
    install = f"install the Debian package {lang.debian_package}"
    if path is None:
        why = f"{lang.toolchain} is not on PATH; {install}"
        return Toolchain(lang.name, False, None, None, why)
    version = _version(lang)
    commands = lang.commands()
    with tempfile.TemporaryDirectory(prefix=f"execrl-probe-{lang.name}-") as folder:
        (Path(folder) / lang.source_file).write_text(lang.test_program)
        steps = [("build", commands.compile, "")] if commands.compile else []
        for step, argv, stdin in [*steps, ("run", commands.run, PROBE_INPUT)]:
            failed = _failure(argv, stdin, folder)
            if failed is not None:
                why = f"the test program's {step} failed ({failed}); {install}"
                return Toolchain(lang.name, False, version, path, why)
    return Toolchain(lang.name, True, version, path, None)


def _failure(argv: Sequence[str], stdin: str, folder: str) -> str | None:
    """Why running ``argv`` in ``folder`` failed (for the run step: did not echo ``stdin``),
    or None."""
    try:
        done = subprocess.run(
            argv,
            cwd=folder,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            errors="replace",
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {PROBE_TIMEOUT_S:g} s"
    except OSError as exc:
        return f"{argv[0]}: {exc.strerror or exc}"
    if done.returncode != 0:
        tail = " ".join(done.stderr.split())[-300:]
        return f"exit code {done.returncode}: {tail}" if tail else f"exit code {done.returncode}"
    if stdin and done.stdout != stdin:
        return f"printed {done.stdout[:80]!r} for input {stdin!r}"
    return None


def _version(lang: Language) -> str | None:
    try:
        done = subprocess.run(
            lang.version,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            errors="replace",
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [line.strip() for line in (done.stdout + "\n" + done.stderr).splitlines()]
    first = next((line for line in lines if line), None)
    return first if done.returncode == 0 else None


def probe_all() -> list[Toolchain]:
    """:func:`probe` of every row of :data:`LANGUAGES`, in table order."""
    return [probe(lang) for lang in LANGUAGES.values()]
