"""Programs in other languages, judged exactly like Python: every verdict in every installed
language, one build per program (the cache), the precompiled header, Java's class names, files
and fetched files, and a missing toolchain as inconclusive."""

from __future__ import annotations

import dataclasses
import os
import threading
import time

import pytest

import execrl
from execrl.problems.models import CallTest, StdioTest
from execrl.sandbox import LocalExecutor
from execrl.sandbox.builds import BuildCache, BuildOptions, build, prepare
from execrl.sandbox.forkserver import ForkServer
from execrl.sandbox.languages import LANGUAGES, probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.records import Status

TESTS = [
    StdioTest(id="small", input="1 2\n", output="3\n"),
    StdioTest(id="big", input="4000000000 5\n", output="4000000005\n"),
]

# Each language: a correct program, a wrong one, one that crashes, one that loops.
PROGRAMS = {
    "c": {
        "correct": '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);'
        'printf("%lld\\n",a+b);return 0;}\n',
        "wrong": '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);'
        'printf("%d\\n",a+b);return 0;}\n',
        "crash": "#include <stdlib.h>\nint main(void){abort();}\n",
        "loop": "int main(void){volatile unsigned long i=0;for(;;)i++;}\n",
    },
    "cpp": {
        "correct": "#include <bits/stdc++.h>\nusing namespace std;\n"
        "int main(){long long a,b;cin>>a>>b;cout<<a+b<<endl;}\n",
        "wrong": "#include <iostream>\nint main(){int a,b;std::cin>>a>>b;std::cout<<a-b<<'\\n';}\n",
        "crash": "#include <vector>\nint main(){std::vector<int> v;return v.at(3);}\n",
        "loop": "int main(){volatile unsigned long i=0;for(;;)i++;}\n",
    },
    "java": {
        "correct": "import java.util.*;\npublic class Main {\n"
        "  public static void main(String[] x) {\n"
        "    Scanner s = new Scanner(System.in);\n"
        "    System.out.println(s.nextLong() + s.nextLong());\n  }\n}\n",
        "wrong": "import java.util.*;\npublic class Main {\n"
        "  public static void main(String[] x) {\n"
        "    Scanner s = new Scanner(System.in);\n"
        "    System.out.println((int) (s.nextLong() + s.nextLong()));\n  }\n}\n",
        "crash": "public class Main {\n  public static void main(String[] x) {\n"
        "    int[] a = new int[1];\n    System.out.println(a[5]);\n  }\n}\n",
        "loop": "public class Main {\n  public static void main(String[] x) {\n"
        "    long i = 0; while (true) { i++; }\n  }\n}\n",
    },
    "rust": {
        "correct": "use std::io::*;\nfn main(){let mut s=String::new();"
        "stdin().read_to_string(&mut s).unwrap();"
        "let v:Vec<i64>=s.split_whitespace().map(|x|x.parse().unwrap()).collect();"
        'println!("{}",v[0]+v[1]);}\n',
        "wrong": 'fn main(){println!("3");}\n',
        "crash": 'fn main(){let v: Vec<i32> = Vec::new(); println!("{}", v[3]);}\n',
        "loop": "fn main(){let mut i: u64 = 0; loop { i = i.wrapping_add(1); "
        "if i == 7 { std::hint::black_box(i); } }}\n",
    },
    "javascript": {
        "correct": 'const v=require("fs").readFileSync(0,"utf8").trim().split(/\\s+/).map(BigInt);'
        "console.log((v[0]+v[1]).toString());\n",
        "wrong": "console.log(3);\n",
        "crash": "null.x;\n",
        "loop": "for(;;){}\n",
    },
    "python2": {
        "correct": "a, b = map(int, raw_input().split())\nprint a + b\n",
        "wrong": "print 3\n",
        "crash": "raise ValueError('no')\n",
        "loop": "while True:\n    pass\n",
    },
    "pypy": {
        "correct": "a, b = map(int, input().split())\nprint(a + b)\n",
        "wrong": "print(3)\n",
        "crash": "raise ValueError('no')\n",
        "loop": "while True:\n    pass\n",
    },
    "go": {
        "correct": 'package main\nimport "fmt"\nfunc main(){var a,b int64\nfmt.Scan(&a,&b)\n'
        "fmt.Println(a+b)}\n",
        "wrong": 'package main\nimport "fmt"\nfunc main(){fmt.Println(3)}\n',
        "crash": "package main\nfunc main(){var a []int\n_ = a[5]}\n",
        "loop": "package main\nfunc main(){i := 0\nfor {i++}}\n",
    },
}


def _installed(name: str) -> None:
    if name in ("c", "cpp"):
        assert probe(name).installed, f"{name} is required: {probe(name).why_not}"
        return
    toolchain = probe(name)
    if not toolchain.installed:
        pytest.skip(f"{name} is not installed here: {toolchain.why_not}")


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(workers=1) as ex:
        yield ex


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_verdict_in_every_language(executor, name):
    _installed(name)
    limits = Limits(cpu_time_s=1.0, wall_time_s=4.0)
    verdicts = {}
    for kind, source in PROGRAMS[name].items():
        record = executor.run(source, TESTS, limits, language=name)
        assert record.language == name
        assert record.build is not None and record.build.status == "ok", record.build
        verdicts[kind] = [r.status for r in record.results]
    assert verdicts["correct"] == [Status.SUCCESS, Status.SUCCESS]
    assert Status.WRONG_ANSWER in verdicts["wrong"]
    assert set(verdicts["crash"]) == {Status.RUNTIME_ERROR}
    assert set(verdicts["loop"]) == {Status.TIMEOUT}


def test_a_compile_error_is_the_verdict_of_every_test_with_the_compiler_message(executor):
    record = executor.run("int main() { return undefined_name; }\n", TESTS, language="cpp")
    assert [r.status for r in record.results] == [Status.COMPILE_ERROR] * 2
    assert "undefined_name" in record.results[0].detail
    assert record.build.status == "compile_error" and "undefined_name" in record.build.detail


def test_a_build_past_its_limits_is_compile_timeout(executor, tmp_path, monkeypatch):
    monkeypatch.setenv("EXECRL_BUILD_CACHE", str(tmp_path / "builds"))
    # constexpr evaluation that takes far longer than a one-second build budget
    slow = (
        "constexpr unsigned long f(unsigned long n){unsigned long s=0;"
        "for(unsigned long i=0;i<n;i++) s+=i*i%7; return s;}\n"
        "constexpr unsigned long x = f(4000000000UL);\nint main(){return x==1;}\n"
    )
    options = BuildOptions(
        compile_cpu_s=1,
        compile_wall_s=3,
        flags=("-fconstexpr-ops-limit=4000000000000", "-fconstexpr-loop-limit=2147483647"),
    )
    record = executor.run(slow, TESTS, language="cpp", build=options)
    assert [r.status for r in record.results] == [Status.COMPILE_TIMEOUT] * 2


def test_a_program_is_built_once_and_the_cache_serves_it_across_requests(tmp_path):
    cache = BuildCache(tmp_path / "cache")
    source = PROGRAMS["c"]["correct"] + "/* cache test */\n"
    lang = LANGUAGES["c"]
    version = probe("c").version
    with ForkServer() as server:
        first = build(server, lang, source.encode(), "main.c", BuildOptions(), version, cache)
        again = build(server, lang, source.encode(), "main.c", BuildOptions(), version, cache)
        other = build(
            server, lang, b"int main(void){return 1;}\n", "main.c", BuildOptions(), version, cache
        )
    assert first.info.status == "ok" and not first.info.cached and first.info.seconds > 0
    assert again.info.cached and again.info.seconds == 0
    assert (
        again.outputs == first.outputs and again.info.artifact_sha256 == first.info.artifact_sha256
    )
    assert not other.info.cached and other.outputs != first.outputs
    assert (cache.hits, cache.misses) == (1, 2)


def test_two_workers_building_the_same_source_at_once_both_get_it(tmp_path):
    cache = BuildCache(tmp_path / "cache")
    source = (PROGRAMS["cpp"]["correct"] + "// two writers\n").encode()
    lang, version = LANGUAGES["cpp"], probe("cpp").version
    results = []

    def one() -> None:
        with ForkServer() as server:
            results.append(build(server, lang, source, "main.cpp", BuildOptions(), version, cache))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.info.status for r in results] == ["ok", "ok"]
    assert results[0].outputs == results[1].outputs
    assert len(list((tmp_path / "cache").glob("*/*.build"))) == 1
    assert not list((tmp_path / "cache").glob("*/.tmp-*"))  # no half-written file left


def test_the_cache_evicts_the_least_recently_used(tmp_path):
    cache = BuildCache(tmp_path, max_bytes=3500)  # three entries of ~1060 bytes fit
    for i in range(3):
        cache.put(f"{i:064x}", {"status": "ok"}, {"main": bytes(1000)})
    cache.get(f"{0:064x}")  # used: now the most recent
    cache.put(f"{9:064x}", {"status": "ok"}, {"main": bytes(1000)})
    kept = sorted(p.stem for p in tmp_path.glob("*/*.build"))
    assert kept == [f"{0:064x}", f"{2:064x}", f"{9:064x}"]  # 1 was the least recently used


def test_the_precompiled_header_is_used_by_the_judge_profile(executor):
    source = PROGRAMS["cpp"]["correct"] + f"// {os.getpid()} {time.time()}\n"  # (not cached)
    record = executor.run(source, TESTS, language="cpp", build=BuildOptions(flags=("-H",)))
    assert record.build.status == "ok"
    # -H lists what the compiler read: "! <file>.gch" marks a precompiled header it used, and
    # then none of the headers it holds is read
    used = [line for line in record.build.detail.splitlines() if line.startswith("! ")]
    assert used and used[0].endswith("bits/stdc++.h.gch"), record.build.detail[:500]
    assert "/vector" not in record.build.detail
    plain = executor.run(
        source, TESTS, language="cpp", build=BuildOptions(profile="sandboxfusion", flags=("-H",))
    )
    assert not [line for line in plain.build.detail.splitlines() if line.startswith("! ")]


def test_testlib_is_on_the_include_path(executor):
    from execrl.sandbox.native import TESTLIB_DIR

    if not (TESTLIB_DIR / "testlib.h").is_file():
        pytest.skip("testlib.h is not shipped in this checkout yet")
    source = '#include "testlib.h"\n#include <cstdio>\nint main(){printf("3\\n");}\n'
    record = executor.run(source, TESTS[:1], language="cpp")
    assert record.results[0].status is Status.SUCCESS, record.results[0].detail


def test_a_java_class_named_after_its_file(executor):
    _installed("java")
    source = PROGRAMS["java"]["correct"].replace("class Main", "class Solution")
    record = executor.run(source, TESTS, language="java")
    assert [r.status for r in record.results] == [Status.SUCCESS] * 2, record.results[0].detail


def test_files_are_placed_and_fetched_in_any_language(executor):
    c = executor.capture_streams(
        '#include <stdio.h>\nint main(void){char b[32]={0};FILE*f=fopen("in.txt","r");'
        'fgets(b,32,f);FILE*o=fopen("out.txt","w");fprintf(o,"got %s",b);return 0;}\n',
        "",
        Limits(cpu_time_s=2),
        language="c",
        files={"in.txt": b"hello", "sub/dir/x.txt": b"nested"},
        fetch=["out.txt", "missing.txt"],
    )
    assert c.result.status is Status.SUCCESS, c.result.detail
    assert c.files == {"out.txt": b"got hello"}
    python = executor.capture_streams(
        "print(open('sub/dir/x.txt').read())\n",
        "",
        Limits(cpu_time_s=2),
        files={"sub/dir/x.txt": b"n"},
    )
    assert python.stdout == "n\n"


def test_file_names_outside_the_working_directory_are_refused(executor):
    from execrl.errors import UsageError

    for name in ("../escape", "/etc/passwd", "a/../../b"):
        with pytest.raises(UsageError, match="relative path"):
            executor.capture_streams("print(1)\n", "", files={name: b"x"})


def test_a_missing_toolchain_is_inconclusive_never_a_wrong_answer(tmp_path):
    absent = dataclasses.replace(
        LANGUAGES["c"],
        name="c-absent",
        compile=("execrl-no-such-compiler", "{source}"),
        version=("execrl-no-such-compiler", "--version"),
        debian_package="execrl-no-such-package",
    )
    with ForkServer() as server:
        prepared = prepare(server, absent, "int main(){}", BuildOptions(), memory_mb=64)
    assert prepared.job is None and prepared.info.status == "language_unavailable"
    assert "execrl-no-such-package" in prepared.info.detail
    from execrl.sandbox.judge import build_failure

    result = build_failure(TESTS[0], prepared.info)
    assert result.status is Status.INCONCLUSIVE
    assert result.detail.startswith("language_unavailable")


def test_call_tests_are_refused_for_another_language():
    with pytest.raises(execrl.errors.UsageError, match="stdin/stdout tests only"):
        execrl.run(
            "int main(){}", [CallTest(id="c", fn_name="f", args=[1], expected=1)], language="cpp"
        )


def test_an_unknown_language_is_a_usage_error():
    with pytest.raises(execrl.errors.UsageError, match="unknown `language` 'cobol'"):
        execrl.run("x", TESTS, language="cobol")


def test_a_runtime_out_of_memory_is_the_memory_limit(executor):
    source = (
        "#include <vector>\n#include <cstdio>\nint main(){std::vector<std::vector<char>> v;"
        "for(;;) v.emplace_back(1<<20, 1); }\n"
    )
    record = executor.run(source, TESTS[:1], Limits(cpu_time_s=5, memory_mb=64), language="cpp")
    assert record.results[0].status is Status.MEMORY_LIMIT, record.results[0].detail
