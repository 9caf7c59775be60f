# ruff: noqa: E501  (hostile programs are kept verbatim, one per case)
"""Hostile compiler inputs (issue 31, item 2): a build is a sandboxed run with limits of its own.

Compilers can be made to read devices, read the host's files, recurse without end, or emit
gigabytes. Each case is a source that tries one of these; it must end in a verdict
(``compile_error`` or ``compile_timeout``, or a build that is harmless and runs), never a
hang, never the host's data in a detail, never a file written on the host. The compile limits
are small (:data:`TIGHT`) so each case ends in seconds. The module has a build cache of its
own, empty at the start, so every case really compiles. docs/sandbox.md, "Native programs",
lists the promises and the case that tests each.
"""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from execrl.problems import StdioTest
from execrl.sandbox import LocalExecutor, builds
from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.languages import probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status

NONCE = uuid.uuid4().hex[:12]
HOST_SECRET = f"host-secret-{NONCE}"
HOST_FILE = Path(f"/tmp/execrl-build-host-file-{NONCE}.h")
THIS_FILE = Path(__file__).resolve()
ROOT_FILE = next(
    (p for p in (Path("/root/.bashrc"), Path("/root/.profile")) if p.is_file()), THIS_FILE
)
"""A file under /root that exists on the host (this file where there is none)."""
TIGHT = BuildOptions(
    profile="sandboxfusion",  # (no precompiled bits/stdc++.h to make: these read no headers)
    compile_cpu_s=3,
    compile_wall_s=8,
    compile_memory_mb=512,
    compile_output_mb=16,
)
"""Small compile limits: every hostile build ends within seconds."""
ROOMY = BuildOptions(compile_cpu_s=20, compile_memory_mb=1024, compile_output_mb=64)
"""For javac and rustc, which need a JVM's or LLVM's memory to build anything."""
PRINTS_X = StdioTest(id="t", input="", output="x\n")
BUILD_FAILED = {"compile_error", "compile_timeout"}


@dataclass
class Case:
    name: str
    language: str
    source: str
    build: BuildOptions = TIGHT
    expect: set[str] = field(default_factory=lambda: set(BUILD_FAILED))
    """The build statuses allowed (``ok`` for a build that is harmless and runs)."""
    test: StdioTest = PRINTS_X
    run_expect: set[Status] = field(default_factory=lambda: {Status.SUCCESS})
    """The run's verdict, for a build that succeeded."""
    check: Callable[[ExecutionRecord], None] | None = None


def detail_has(*needles: str) -> Callable[[ExecutionRecord], None]:
    def check(record: ExecutionRecord) -> None:
        for needle in needles:
            assert needle in record.build.detail, record.build

    return check


def host_file_unread(record: ExecutionRecord) -> None:
    """The compiler did not find the host's file (it is not in the sandbox), and nothing of
    it reached the detail."""
    assert "No such file" in record.build.detail, record.build
    assert HOST_SECRET not in record.build.detail and "alias" not in record.build.detail


def cpp_includes(path: str) -> str:
    return f'#include "{path}"\n#include <cstdio>\nint main() {{ puts("x"); }}\n'


def rust_reads(macro: str, path: str) -> str:
    return f'static DATA: &[u8] = {macro}!("{path}"){".as_bytes()" if macro == "include_str" else ""};\nfn main() {{ println!("{{}}", DATA.len()); }}\n'


PREPROCESSOR_BOMB = """\
#define A x
#define B A A A A A A A A A A
#define C B B B B B B B B B B
#define D C C C C C C C C C C
#define E D D D D D D D D D D
#define F E E E E E E E E E E
#define G F F F F F F F F F F
#define H G G G G G G G G G G
#define I H H H H H H H H H H
#define J I I I I I I I I I I
J
int main() {}
"""
"""Ten macros, each ten of the one before: 10⁹ tokens from a 300-byte source."""

ERROR_FLOOD = (
    "\n".join(f"int f{i}(void) {{ return undeclared_{i}; }}" for i in range(1000))
    + "\nint main(void) { return 0; }\n"
)
"""1,000 errors: 150 KB of diagnostics."""

JAVA_PROCESSOR_IN_SOURCE = """\
import java.util.Set;
import javax.annotation.processing.*;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

@SupportedAnnotationTypes("*")
class Evil extends AbstractProcessor {
    @Override
    public SourceVersion getSupportedSourceVersion() { return SourceVersion.latestSupported(); }
    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment env) {
        processingEnv.getMessager().printMessage(javax.tools.Diagnostic.Kind.ERROR, "PROCESSOR-RAN");
        return false;
    }
}

public class Main {
    public static void main(String[] args) { System.out.println("x"); }
}
"""

CASES = [
    # --- devices and the host's files ------------------------------------------------------
    Case(
        "include_dev_zero",
        "cpp",
        cpp_includes("/dev/zero"),
        check=lambda r: _assert(r.build.seconds < 8 + 5, r.build),
    ),
    Case("include_dev_random", "cpp", cpp_includes("/dev/random")),
    Case("include_dev_urandom", "c", cpp_includes("/dev/urandom").replace("<cstdio>", "<stdio.h>")),
    Case(
        "include_dev_stdin_reads_nothing",  # the build's stdin is empty: nothing of the host's
        "cpp",
        cpp_includes("/dev/stdin"),
        expect={"ok"},
    ),
    Case("include_etc_shadow", "cpp", cpp_includes("/etc/shadow"), check=host_file_unread),
    Case("include_host_file_in_tmp", "cpp", cpp_includes(str(HOST_FILE)), check=host_file_unread),
    Case(
        "include_file_under_root",
        "c",
        cpp_includes(str(ROOT_FILE)).replace("<cstdio>", "<stdio.h>"),
        check=host_file_unread,
    ),
    Case("include_this_test_file", "cpp", cpp_includes(str(THIS_FILE)), check=host_file_unread),
    Case(
        "has_include_cannot_probe_the_host",
        "cpp",
        "#include <cstdio>\n"
        + "".join(
            f'#if __has_include("{path}")\n#define SEEN_{i} 1\n#else\n#define SEEN_{i} 0\n#endif\n'
            for i, path in enumerate((HOST_FILE, THIS_FILE, ROOT_FILE))
        )
        + 'int main() { printf("%d%d%d\\n", SEEN_0, SEEN_1, SEEN_2); }\n',
        expect={"ok"},
        test=StdioTest(id="t", input="", output="000\n"),
    ),
    # --- endless work at compile time ---------------------------------------------------------
    Case(
        "endless_template_recursion",
        "cpp",
        "template <int N> struct F { enum { v = F<N + 1>::v }; };\nint main() { return F<0>::v; }\n",
        check=detail_has("template instantiation depth"),
    ),
    Case(
        "endless_template_recursion_depth_raised",  # the user's flag: only the limits stop it
        "cpp",
        "template <int N> struct F { enum { v = F<N + 1>::v }; };\nint main() { return F<0>::v; }\n",
        build=TIGHT.model_copy(update={"flags": ("-ftemplate-depth=100000000",)}),
    ),
    Case(
        "endless_constexpr_loop",
        "cpp",
        "constexpr long f() { long s = 0; for (long i = 0;; i++) s += i; return s; }\nconstexpr long x = f();\nint main() { return (int)x; }\n",
        check=detail_has("loop iteration count exceeds"),
    ),
    Case(
        "constexpr_loop_with_limits_raised",
        "cpp",
        "constexpr long f() { long s = 0; for (long i = 0; i < (1L << 60); i++) s += i; return s; }\nconstexpr long x = f();\nint main() { return (int)x; }\n",
        build=TIGHT.model_copy(
            update={
                "flags": (
                    "-fconstexpr-loop-limit=2147483647",
                    "-fconstexpr-ops-limit=9223372036854775807",
                ),
                "compile_cpu_s": 1.5,
                "compile_wall_s": 5,
            }
        ),
        expect={"compile_timeout"},
    ),
    Case("preprocessor_bomb", "cpp", PREPROCESSOR_BOMB),
    # --- huge outputs --------------------------------------------------------------------------
    Case(
        "huge_static_array_builds_small_and_cannot_load",  # 4 TiB of .bss is a size, not bytes
        "cpp",
        "int a[1L << 40];\nint main() { return a[5]; }\n",
        expect={"ok"},
        run_expect={Status.RUNTIME_ERROR, Status.MEMORY_LIMIT},
        check=lambda r: _assert(r.build.seconds < 8, r.build),
    ),
    Case(
        "gib_initialised_array_past_compile_output_mb",
        "c",
        "char a[1L << 30] = {1};\nint main(void) { return a[5]; }\n",
        check=detail_has("File size limit exceeded"),
    ),
    Case(
        "error_flood_is_bounded_in_the_detail",
        "c",
        ERROR_FLOOD,
        check=lambda r: _assert(
            len(r.build.detail) <= 2100 and len(r.results[0].detail) <= 300, r.build
        ),
    ),
    # --- Java: annotation processors run only when javac is told of one -----------------------
    Case(
        "java_annotation_processor_in_source_never_runs",
        "java",
        JAVA_PROCESSOR_IN_SOURCE,
        build=ROOMY,
        expect={"ok"},
        check=lambda r: _assert("PROCESSOR-RAN" not in r.build.detail, r.build),
    ),
    # --- Rust: include_bytes!, include_str!, env! ----------------------------------------------
    Case(
        "rust_include_bytes_dev_zero",
        "rust",
        rust_reads("include_bytes", "/dev/zero"),
        build=ROOMY.model_copy(update={"compile_memory_mb": 512, "compile_wall_s": 15}),
    ),
    Case(
        "rust_include_bytes_etc_shadow",
        "rust",
        rust_reads("include_bytes", "/etc/shadow"),
        build=ROOMY,
        check=host_file_unread,
    ),
    Case(
        "rust_include_bytes_host_file",
        "rust",
        rust_reads("include_bytes", str(HOST_FILE)),
        build=ROOMY,
        check=host_file_unread,
    ),
    Case(
        "rust_include_str_file_under_root",
        "rust",
        rust_reads("include_str", str(ROOT_FILE)),
        build=ROOMY,
        check=host_file_unread,
    ),
    Case(
        "rust_include_str_this_test_file",
        "rust",
        rust_reads("include_str", str(THIS_FILE)),
        build=ROOMY,
        check=host_file_unread,
    ),
    Case(
        "rust_include_bytes_dev_stdin_reads_nothing",
        "rust",
        rust_reads("include_bytes", "/dev/stdin"),
        build=ROOMY,
        expect={"ok"},
        test=StdioTest(id="t", input="", output="0\n"),
    ),
    Case(
        "rust_env_home_is_the_sandboxes",
        "rust",
        'fn main() { println!("{} {:?}", env!("HOME"), option_env!("EXECRL_TEST_SECRET")); }\n',
        build=ROOMY,
        expect={"ok"},
        test=StdioTest(id="t", input="", output="/tmp/run None\n"),
    ),
]


def _assert(condition: bool, value: object) -> None:
    assert condition, value


@pytest.fixture(scope="module")
def build_executor(tmp_path_factory):
    """Two workers with an empty build cache of this module's own, and a host secret in the
    environment and in a file that no build may read."""
    HOST_FILE.write_text(f'#define SECRET "{HOST_SECRET}"\n')
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXECRL_BUILD_CACHE", str(tmp_path_factory.mktemp("builds") / "cache"))
        patch.setenv("EXECRL_TEST_SECRET", HOST_SECRET)
        patch.setattr(builds, "_SHARED_CACHE", {})
        with LocalExecutor(workers=2) as executor:
            yield executor
    HOST_FILE.unlink(missing_ok=True)


def installed(case: Case) -> bool:
    return probe(case.language).installed


@pytest.fixture(scope="module")
def records(build_executor) -> dict[str, ExecutionRecord]:
    cases = [c for c in CASES if installed(c)]
    requests = [
        ExecutionRequest(
            program=case.source,
            language=case.language,
            tests=[case.test],
            limits=Limits(cpu_time_s=2, memory_mb=256),
            build=case.build,
        )
        for case in cases
    ]
    done = build_executor.run_batch(requests, progress=False)
    return {case.name: record for case, record in zip(cases, done, strict=True)}


def test_every_promise_has_its_case():
    assert len(CASES) >= 20 and len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_build_is_contained(case, records):
    if not installed(case):
        pytest.skip(f"{case.language}: {probe(case.language).why_not}")
    record = records[case.name]
    build, (result,) = record.build, record.results
    assert build is not None and not build.cached, build
    assert build.status in case.expect, f"{case.name}: {build.status} ({build.detail[-300:]})"
    limit = case.build.compile_wall_s or 90
    assert build.seconds < limit + 5, build  # ended by its own limits, never a hang
    if build.status == "ok":
        assert result.status in case.run_expect, result
    else:
        assert result.status.value == build.status, result
    assert HOST_SECRET not in build.detail and HOST_SECRET not in result.detail
    if case.check:
        case.check(record)


def test_the_host_is_unaffected(records):
    """The host's file is as it was, and the builds left nothing on the host but the cache's
    own entries (and the precompiled headers' folder)."""
    assert HOST_FILE.read_text() == f'#define SECRET "{HOST_SECRET}"\n'
    cache = builds.shared_cache().folder
    written = [p.relative_to(cache) for p in cache.rglob("*") if p.is_file()]
    assert written and all(p.suffix == ".build" or p.parts[0] == "pch" for p in written), written


def test_a_java_processor_given_as_files_is_not_seen_by_the_build(build_executor, tmp_path):
    """``files`` (SandboxFusion's) are placed for the run only: a compiled annotation processor
    and its META-INF/services entry among them never reach javac."""
    if not probe("java").installed:
        pytest.skip(f"java: {probe('java').why_not}")
    source = JAVA_PROCESSOR_IN_SOURCE.split("public class Main")[0].replace(
        "class Evil", "public class Evil"
    )
    (tmp_path / "Evil.java").write_text(source)
    subprocess.run(
        ["javac", "-d", str(tmp_path), str(tmp_path / "Evil.java")], check=True, timeout=120
    )
    files = {
        "Evil.class": (tmp_path / "Evil.class").read_bytes(),
        "META-INF/services/javax.annotation.processing.Processor": b"Evil\n",
    }
    main = (
        'public class Main { public static void main(String[] a) { System.out.println("x"); } }\n'
    )
    captured = build_executor.capture_streams(
        main, "", Limits(cpu_time_s=5), language="java", build=ROOMY, files=files
    )
    assert captured.build.status == "ok", captured.build
    assert "PROCESSOR-RAN" not in captured.build.detail
    assert captured.stdout == "x\n", captured
