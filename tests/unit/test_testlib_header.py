"""execrl's own testlib.h, built with the host's g++ and run the way judges run it.

Checkers get ``input output answer [report [-appes]]`` and report on stderr with testlib's
prefixes and exit codes (ok 0, wrong answer 1, wrong output format 2, FAIL 3, points 7);
validators read the test on stdin strictly; generators are functions of their command line.
The standard checkers are the shipped ones (``execrl.sandbox.testlib.standard_checker``); the
others are written here in the style of Polygon problems. Everything is compiled once per
module, in parallel, with ``-Wall -Wextra -Werror``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from execrl.errors import UsageError
from execrl.sandbox import testlib
from execrl.sandbox.testlib import STANDARD_CHECKERS, TESTLIB_DIR, standard_checker

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")

MAX_INDEX_CHECKER = r"""
#include "testlib.h"
// input: n, then a[1..n]; answer: max(a); output: an index of the maximum.
int main(int argc, char *argv[]) {
    setName("index of a maximum");
    registerTestlibCmd(argc, argv);
    int n = inf.readInt();
    ensure(n >= 1);
    std::vector<int> a = inf.readInts(n);
    int best = *std::max_element(a.begin(), a.end());
    int jury = ans.readInt();
    ensuref(jury == best, "jury's answer %d is not the maximum %d", jury, best);
    std::string token = ouf.readToken();
    if (token == "skip")
        return 0;  // forgets the verdict
    InStream parsed(ouf, token);
    int index = parsed.readInt(1, n, "index");
    int value = a[index - 1];
    if (value == best)
        quitf(_ok, "a[%d] = %d is the maximum", index, value);
    if (2 * value >= best)
        quitp(0.5, "a[%d] = %d is at least half the maximum", index, value);
    quitf(_wa, "a[%d] = %d is not the maximum %d", index, value, best);
}
"""

VALIDATOR = r"""
#include "testlib.h"
// "n k" (1 <= n <= 100, 0 <= k <= n), then n integers of [-1e9, 1e9], then a name.
int main(int argc, char *argv[]) {
    registerValidation(argc, argv);
    int n = readInt(1, 100, "n");
    if (std::string(argv[argc - 1]) == "lazy")
        return 0;  // forgets readEof
    readSpace();
    readInt(0, n, "k");
    readEoln();
    if (validator.group() == "small")
        ensuref(n <= 10, "n = %d is too large for group small", n);
    inf.readInts(n, -1000000000, 1000000000, "a");
    inf.readEoln();
    inf.readToken("[a-z]{1,10}", "name");
    inf.readEoln();
    inf.readEof();
}
"""

GENERATOR = r"""
#include "testlib.h"
// the validator's format: -n (required), -max (default 1000), -name, -sorted
int main(int argc, char *argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int maxValue = opt<int>("max", 1000);
    std::string name = has_opt("name") ? opt<std::string>("name") : rnd.next("[a-z]{1,10}");
    std::vector<int> a(static_cast<size_t>(n));
    for (int i = 0; i < n; i++)
        a[static_cast<size_t>(i)] = rnd.next(-maxValue, maxValue);
    if (opt<bool>("sorted", false))
        std::sort(a.begin(), a.end());
    println(n, rnd.next(0, n));
    println(a);
    println(name);
}
"""

READER = r"""
#include "testlib.h"
// one strict read of stdin, chosen by the first argument, printed; then the end of the file
int main(int argc, char *argv[]) {
    registerValidation(argc, argv);
    std::string what = argv[1];
    if (what == "strict")
        println(format("%.3f", readStrictDouble(0, 10, 1, 2, "p")));
    else if (what == "unsigned")
        println(readUnsignedLong(0ULL, ULLONG_MAX, "u"));
    else if (what == "long")
        println(readLong(-5, 5, "x"));
    else if (what == "double")
        println(readDouble(0.5, 1.5, "d"));
    else if (what == "chars") {
        char first = readChar();
        readChar('-');
        println(first, readChar());
    }
    if (what == "line")
        println(readLine("[a-z ]{1,20}", "s"));
    else
        readEoln();
    readEof();
}
"""

INTERACTOR = r"""
#include "testlib.h"
// guess the number of inf in at most 20 queries "? x" (answered <, > or =), then "! x"
int main(int argc, char *argv[]) {
    registerInteraction(argc, argv);
    int secret = inf.readInt(1, 1000, "secret");
    int queries = 0;
    for (;;) {
        std::string kind = ouf.readToken("[?!]", "kind");
        int x = ouf.readInt(1, 1000, "x");
        if (kind == "!") {
            tout << queries << std::endl;
            if (x == secret)
                quitf(_ok, "guessed %d in %d queries", secret, queries);
            quitf(_wa, "expected %d, found %d", secret, x);
        }
        if (++queries > 20)
            quitf(_wa, "more than 20 queries");
        std::cout << (x < secret ? "<" : x > secret ? ">" : "=") << std::endl;
    }
}
"""

PARTICIPANT = """
low, high = 1, 1000
while True:
    middle = (low + high) // 2
    print("?", middle, flush=True)
    reply = input().strip()
    if reply == "=":
        print("!", middle, flush=True)
        break
    low, high = (middle + 1, high) if reply == "<" else (low, middle - 1)
"""

SELFTEST = r"""
#include "testlib.h"
using namespace std;  // as contestants' checkers do: nothing may clash with std

int main(int argc, char *argv[]) {
    registerGen(argc, argv, 1);
    println("ending", englishEnding(1), englishEnding(2), englishEnding(3), englishEnding(4),
            englishEnding(11), englishEnding(12), englishEnding(13), englishEnding(21),
            englishEnding(111), englishEnding(102));
    println("case", upperCase("aBc1"), lowerCase("AbC1"), "[" + trim("  a b \t\n") + "]");
    println("format", format("%d-%s-%.2f", 7, "x", 1.5));
    println("vtos", vtos(42), vtos(-7LL), vtos(0.25), toString(3), vtos(string("s")));
    println("compress", compress(string(100, 'a')).size(), compress("short"));
    println("double", doubleCompare(1.0, 1.0000005, 1e-6), doubleCompare(1.0, 1.00001, 1e-6),
            doubleCompare(1e9, 1e9 + 100, 1e-6), doubleCompare(0, 1e-7, 1e-6),
            doubleCompare(0, 1e-5, 1e-6));
    println("delta", format("%.3f %.3f", doubleDelta(2.0, 2.5), doubleDelta(0.0, 0.5)));
    const char *cases[][2] = {
        {"[a-z]{1,10}", "abc"}, {"[a-z]{1,10}", ""}, {"[a-z]{1,10}", "abcdefghijk"},
        {"[a-z]{1,10}", "abC"}, {"[0-9]+", "007"}, {"a|bc", "bc"}, {"a|bc", "abc"},
        {"(ab)*c", "ababc"}, {"(ab)*c", "abac"}, {"[^a-z]{2}", "A1"}, {"[^a-z]{2}", "a1"},
        {"x?y{2,3}", "xyyy"}, {"x?y{2,3}", "xyyyy"}, {"[a-c-]+", "a-c"},
        {"\\[[0-9]\\]", "[5]"}, {"(a|b)*abb", "babaabb"}, {"([a-z]+ )*[a-z]+", "big world"},
        {"([a-z]+ )*[a-z]+", "big  world"}, {"a{2,}", "aaaa"}, {"a{2,}", "a"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        println("match", cases[i][0], cases[i][1][0] ? cases[i][1] : "<empty>",
                pattern(cases[i][0]).matches(cases[i][1]) ? 1 : 0);
    println("long", pattern("[a-z]{100000}").matches(string(100000, 'q')),
            pattern("(a|b)*").matches(string(100000, 'a')),
            pattern("(a*)*b").matches(string(100000, 'a')));
    println("generated", rnd.next("[a-z]{5}"), rnd.next("(ab|cd){3}x"),
            rnd.next("[0-9]{1,%d}", 3), pattern("[A-Z]{2}-[0-9]{3}").next(rnd));

    InStream s(inf, "12 -5 abc\n3.5 line two\n");
    int i1 = s.readInt();
    long long l1 = s.readLong();
    string t1 = s.readToken();
    s.readEoln();
    double d1 = s.readDouble();
    string rest = s.readLine();
    println("stream", i1, l1, t1, d1, "[" + rest + "]", s.eof());
    InStream t(inf, "  7  \n\nx\r\ny");
    bool e1 = t.seekEoln();
    int seven = t.readInt();
    bool e2 = t.seekEoln();
    t.skipBlanks();
    char c = static_cast<char>(t.curChar());
    string x = t.readLine(), y = t.readLine();
    bool end = t.eof();
    string z = t.readLine();
    println("lenient", e1, seven, e2, c, x, y, end, "[" + z + "]", t.seekEof());

    println("opts", opt<int>("n"), opt<int>("max"), opt<bool>("flag"), opt<double>("ratio"),
            opt<int>("neg"), opt<string>("name"), has_opt("missing"), opt<int>("missing", 42),
            opt<string>(1), opt<long long>("n"));

    println("perm", rnd.perm(10, 1));
    println("distinct", rnd.distinct(5, 1, 8));
    println("distinct_wide", rnd.distinct(5, 1000000000));
    println("partition", rnd.partition(4, 20));
    println("partition0", rnd.partition(3, 10LL, 0LL));
    long long heavy = 0, light = 0, plain = 0;
    int lowest = 1000, highest = -1, far = 0;
    set<int> seen;
    for (int k = 0; k < 2000; k++) {
        heavy += rnd.wnext(1000, 5);
        light += rnd.wnext(1000, -5);
        plain += rnd.next(1000);
        int w = rnd.wnext(10, 40);
        lowest = min(lowest, w);
        highest = max(highest, w);
        seen.insert(rnd.next(5, 7));
        far = max(far, rnd.wnext(3, 8, 2));
    }
    println("weighted", heavy / 2000, light / 2000, plain / 2000, lowest, highest, far);
    println("range", vector<int>(seen.begin(), seen.end()));
    double real = rnd.next(1.5), unit = rnd.next();
    long long huge = rnd.next(LLONG_MIN, LLONG_MAX);
    unsigned long long uhuge = rnd.next(0ULL, ULLONG_MAX);
    long long small = rnd.next(-3LL, -1LL);
    println("reals", real >= 0 && real < 1.5, unit >= 0 && unit < 1, rnd.next(2.0, 3.0) >= 2.0,
            huge <= LLONG_MAX, uhuge <= ULLONG_MAX, small >= -3 && small <= -1);
    vector<int> v;
    for (int k = 1; k <= 6; k++)
        v.push_back(k);
    set<int> st(v.begin(), v.end());
    shuffle(v.begin(), v.end());
    println("shuffled", v);
    println("any", rnd.any(v), rnd.any(st), rnd.any(v.begin(), v.end()), rnd.wany(v, 3));
    println("mixed", rnd.next(1, 10LL), rnd.next(size_t(5)) < 5);
}
"""

SELFTEST_ARGS = ["-n", "5", "--max=1e3", "-flag", "-ratio=0.25", "-neg", "-7", "-name=bob"]

WARNINGS = ["-Wall", "-Wextra", "-Werror"]

# (name, source, -std, -O): the selftest also in C++11 and C++20, unoptimised (it is run too)
BUILDS = [
    *[(name, standard_checker(name), "gnu++17", "-O2") for name in STANDARD_CHECKERS],
    ("max_index", MAX_INDEX_CHECKER, "gnu++17", "-O2"),
    ("validator", VALIDATOR, "gnu++17", "-O2"),
    ("generator", GENERATOR, "gnu++17", "-O2"),
    ("interactor", INTERACTOR, "gnu++17", "-O2"),
    ("reader", READER, "gnu++17", "-O2"),
    ("selftest", SELFTEST, "gnu++17", "-O2"),
    ("selftest_cxx11", SELFTEST, "c++11", "-O0"),
    ("selftest_cxx20", SELFTEST, "c++20", "-O0"),
]


def _compile(folder: Path, name: str, source: str | Path, std: str, level: str) -> Path:
    if isinstance(source, str):
        path = folder / f"{name}.cpp"
        path.write_text(source)
    else:
        path = source
    binary = folder / name
    command = ["g++", level, f"-std={std}", *WARNINGS, "-I", str(TESTLIB_DIR), str(path)]
    done = subprocess.run([*command, "-o", str(binary)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr, f"{name} ({std}):\n{done.stderr}"
    return binary


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("testlib")
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        futures = {b[0]: pool.submit(_compile, folder, *b) for b in BUILDS}
        return {name: future.result() for name, future in futures.items()}


def check(
    binary: Path, folder: Path, *, output: str | None, answer: str, test: str = "", extra=()
) -> tuple[int, str]:
    """Runs a checker on the files of one test; returns its exit code and stderr."""
    (folder / "input.txt").write_text(test)
    (folder / "answer.txt").write_text(answer)
    out = folder / "output.txt"
    out.unlink(missing_ok=True)
    if output is not None:
        out.write_text(output)
    files = [folder / "input.txt", out, folder / "answer.txt"]
    done = subprocess.run(
        [str(binary), *map(str, files), *extra], capture_output=True, text=True, timeout=30
    )
    return done.returncode, done.stderr.rstrip("\n")


def assert_verdict(result: tuple[int, str], code: int, message_start: str) -> None:
    assert result[0] == code, result
    assert result[1].startswith(message_start), result


def run(binary: Path, args=(), stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(binary), *args], input=stdin, capture_output=True, text=True, timeout=30
    )


# ---------------------------------------------------------------- the accessor


def test_the_header_is_where_the_accessor_says():
    assert testlib.testlib_header() == TESTLIB_DIR / "testlib.h"
    assert "registerTestlibCmd" in testlib.testlib_header().read_text()
    assert all(standard_checker(name).is_file() for name in STANDARD_CHECKERS)


def test_an_unknown_standard_checker_is_a_usage_error():
    with pytest.raises(UsageError, match="`name`"):
        standard_checker("hcmp")


# ---------------------------------------------------------------- standard checkers


@pytest.mark.parametrize(
    ("output", "answer", "code", "message"),
    [
        ("a  b\n\nc \n", "a b c\n", 0, "ok 3 tokens"),
        ("hello", "hello\n", 0, 'ok single token: "hello"'),
        ("a x c", "a b c", 1, "wrong answer 2nd words differ - expected: 'b', found: 'x'"),
        (
            "a b",
            "a b c",
            1,
            "wrong answer Answer contains longer sequence [length = 3+], but output contains 2 "
            "elements",
        ),
        ("a b c d", "a b c", 1, "wrong answer Output contains longer sequence [length = 4+]"),
    ],
)
def test_wcmp(built, tmp_path, output, answer, code, message):
    assert_verdict(check(built["wcmp"], tmp_path, output=output, answer=answer), code, message)


@pytest.mark.parametrize(
    ("output", "answer", "code", "message"),
    [
        ("1 2\n3\n", "1 2 3", 0, 'ok 3 numbers "1 2 3"'),
        ("-9223372036854775808", "-9223372036854775808", 0, 'ok 1 number "-9223372036854775808"'),
        ("1 5 3", "1 2 3", 1, "wrong answer 2nd numbers differ - expected: '2', found: '5'"),
        ("1 abc", "1 2", 2, 'wrong output format Expected int64, but "abc" found'),
        ("9223372036854775808", "1", 2, 'wrong output format Expected int64, but "9223372036854'),
        ("1 2.0", "1 2", 2, 'wrong output format Expected int64, but "2.0" found'),
    ],
)
def test_ncmp(built, tmp_path, output, answer, code, message):
    assert_verdict(check(built["ncmp"], tmp_path, output=output, answer=answer), code, message)


def test_a_bad_answer_file_is_the_checkers_failure_and_names_the_file(built, tmp_path):
    code, message = check(built["ncmp"], tmp_path, output="1", answer="x")
    assert code == 3
    assert message == f'FAIL Expected int64, but "x" found ({tmp_path / "answer.txt"})'


@pytest.mark.parametrize(
    ("output", "code", "message"),
    [
        ("1.0000001 1000000100", 0, "ok 2 numbers"),
        ("1.5e0 1e9", 1, "wrong answer 1st numbers differ - expected: '1.0000000', found: "),
        (
            "1.00001 1e9",
            1,
            "wrong answer 1st numbers differ - expected: '1.0000000', found: "
            "'1.0000100', error = '0.0000100'",
        ),
        ("nan 1e9", 2, 'wrong output format Expected double, but "nan" found'),
        ("1 -", 2, 'wrong output format Expected double, but "-" found'),
    ],
)
def test_rcmp6(built, tmp_path, output, code, message):
    result = check(built["rcmp6"], tmp_path, output=output, answer="1 1000000000\n")
    assert_verdict(result, code, message)


@pytest.mark.parametrize(
    ("output", "answer", "code", "message"),
    [
        ("yes\n", "YES\n", 0, "ok answer is YES"),
        ("No", "no", 0, "ok answer is NO"),
        ("NO", "YES", 1, "wrong answer expected YES, found NO"),
        ("maybe", "YES", 2, "wrong output format YES or NO expected, but MAYBE found"),
        ("", "YES", 2, "wrong output format Unexpected end of file - token expected"),
        ("YES extra", "YES", 2, "wrong output format Extra information in the output file"),
        ("YES", "perhaps", 3, "FAIL YES or NO expected in answer, but PERHAPS found"),
    ],
)
def test_yesno(built, tmp_path, output, answer, code, message):
    assert check(built["yesno"], tmp_path, output=output, answer=answer) == (code, message)


@pytest.mark.parametrize(
    ("output", "code", "message"),
    [
        ("1  2\n3 \n", 0, "ok 2 lines"),
        ("1 2\r\n3\r\n", 0, "ok 2 lines"),
        ("1 2\n4\n", 1, "wrong answer 2nd lines differ - expected: '3', found: '4'"),
        ("1 2 3\n", 1, "wrong answer 1st lines differ - expected: '1 2', found: '1 2 3'"),
        ("1 2\n", 1, "wrong answer 2nd lines differ - expected: '3', found: ''"),
    ],
)
def test_lcmp(built, tmp_path, output, code, message):
    assert check(built["lcmp"], tmp_path, output=output, answer="1 2\n3\n") == (code, message)


def test_a_missing_output_file_is_a_presentation_error(built, tmp_path):
    code, message = check(built["wcmp"], tmp_path, output=None, answer="1")
    assert code == 2
    assert message.startswith('wrong output format Output file not found: "')


def test_a_checker_run_with_too_few_arguments_fails(built):
    done = run(built["wcmp"], ["only-one"])
    assert done.returncode == 3
    assert done.stderr.startswith("FAIL compare sequences of tokens: program must be run with")


def test_a_report_file_takes_the_verdict_and_appes_writes_xml(built, tmp_path):
    report = tmp_path / "report.txt"
    code, message = check(built["wcmp"], tmp_path, output="a b", answer="a b", extra=[report])
    assert (code, message) == (0, "")
    assert report.read_text() == "ok 2 tokens\n"
    code, _ = check(built["wcmp"], tmp_path, output="a", answer="b", extra=[report, "-appes"])
    assert code == 1
    assert report.read_text() == (
        '<?xml version="1.0" encoding="utf-8"?><result outcome = "wrong-answer">1st words '
        "differ - expected: 'b', found: 'a'</result>\n"
    )


# ---------------------------------------------------------------- a problem's own checker

MAX_INDEX_TEST = "5\n3 5 9 1 9\n"


@pytest.mark.parametrize(
    ("output", "answer", "code", "message"),
    [
        ("3\n", "9", 0, "ok a[3] = 9 is the maximum"),
        ("5", "9", 0, "ok a[5] = 9 is the maximum"),
        ("2", "9", 7, "points 0.5 a[2] = 5 is at least half the maximum"),
        ("1", "9", 1, "wrong answer a[1] = 3 is not the maximum 9"),
        (
            "7",
            "9",
            1,
            "wrong answer Integer parameter [name=index] equals to 7, violates the range [1, 5]",
        ),
        ("three", "9", 2, 'wrong output format Expected int32, but "three" found'),
        ("", "9", 2, "wrong output format Unexpected end of file - token expected"),
        ("3 3", "9", 2, "wrong output format Extra information in the output file"),
        ("3", "5", 3, "FAIL jury's answer 5 is not the maximum 9"),
        ("skip", "9", 3, "FAIL Checker must end with quit or quitf call."),
    ],
)
def test_a_checker_reading_input_answer_and_output(built, tmp_path, output, answer, code, message):
    result = check(built["max_index"], tmp_path, output=output, answer=answer, test=MAX_INDEX_TEST)
    assert result == (code, message)


def test_ensure_names_the_failed_condition_and_short_input_fails(built, tmp_path):
    result = check(built["max_index"], tmp_path, output="1", answer="1", test="0\n")
    assert result == (3, 'FAIL Condition failed: "n >= 1"')
    code, message = check(built["max_index"], tmp_path, output="1", answer="9", test="3\n1 2\n")
    assert code == 3
    assert message == f"FAIL Unexpected end of file - int32 expected ({tmp_path / 'input.txt'})"


# ---------------------------------------------------------------- validators

VALID = "3 2\n-5 0 1000000000\nbob\n"


@pytest.mark.parametrize(
    ("test", "message"),
    [
        (
            "101 2\n",
            "FAIL Integer parameter [name=n] equals to 101, violates the range [1, 100]"
            " (stdin, line 1)",
        ),
        (
            "3 4\n",
            "FAIL Integer parameter [name=k] equals to 4, violates the range [0, 3]"
            " (stdin, line 1)",
        ),
        ("3  2\n", "FAIL Unexpected white-space - int32 expected (stdin, line 1)"),
        ("3\t2\n", "FAIL Unexpected character TAB, but ' ' expected (stdin, line 1)"),
        ("03 2\n", 'FAIL Expected int32, but "03" found (stdin, line 1)'),
        ("3 2 \n", "FAIL Expected EOLN (stdin, line 1)"),
        ("3 2\r\n", "FAIL Expected EOLN (stdin, line 1)"),
        ("3 2\n-5 -0 1\nbob\n", 'FAIL Expected int32, but "-0" found (stdin, line 2)'),
        (
            "3 2\n1 2 1000000001\nbob\n",
            "FAIL Integer parameter [name=a[3]] equals to 1000000001,"
            " violates the range [-1000000000, 1000000000] (stdin, line 2)",
        ),
        ("3 2\n1 2\nbob\n", "FAIL Unexpected character EOLN, but ' ' expected (stdin, line 2)"),
        (
            "3 2\n1 2 3\nBob\n",
            'FAIL Token parameter [name=name] equals to "Bob", doesn\'t '
            'correspond to pattern "[a-z]{1,10}" (stdin, line 3)',
        ),
        ("3 2\n1 2 3\nbob", "FAIL Expected EOLN (stdin, line 3)"),
        ("3 2\n1 2 3\nbob\n\n", "FAIL Expected EOF (stdin, line 4)"),
        ("3 2\n1 2 3\n", "FAIL Unexpected end of file - token expected (stdin, line 3)"),
    ],
)
def test_the_validator_rejects_what_breaks_the_format(built, test, message):
    done = run(built["validator"], stdin=test)
    assert (done.returncode, done.stderr.rstrip("\n")) == (3, message)


def test_the_validator_accepts_silently_and_reads_its_group(built):
    done = run(built["validator"], stdin=VALID)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert run(built["validator"], ["--group", "small"], stdin=VALID).returncode == 0
    many = "11 0\n" + " ".join(["1"] * 11) + "\nx\n"
    assert run(built["validator"], stdin=many).returncode == 0
    done = run(built["validator"], ["--group", "small"], stdin=many)
    assert done.returncode == 3
    assert done.stderr == "FAIL n = 11 is too large for group small\n"


def test_a_validator_that_never_reads_eof_fails(built):
    done = run(built["validator"], ["lazy"], stdin="5\n")
    assert (done.returncode, done.stderr) == (3, "FAIL Validator must end with readEof call.\n")


# ---------------------------------------------------------------- generators


def test_a_generator_is_a_function_of_its_arguments_and_its_tests_validate(built):
    first = run(built["generator"], ["-n", "20", "-max=1000000000", "1"])
    again = run(built["generator"], ["-n", "20", "-max=1000000000", "1"])
    other = run(built["generator"], ["-n", "20", "-max=1000000000", "2"])
    assert first.returncode == 0 and first.stdout == again.stdout != other.stdout
    for done in (first, other, run(built["generator"], ["-n=100", "--sorted", "-name", "zed"])):
        assert run(built["validator"], stdin=done.stdout).returncode == 0, done.stdout
    lines = run(built["generator"], ["-n=100", "--sorted", "-name", "zed"]).stdout.splitlines()
    values = [int(v) for v in lines[1].split()]
    assert values == sorted(values) and len(values) == 100 and lines[2] == "zed"
    assert all(-1000 <= v <= 1000 for v in values)


def test_a_missing_option_fails_the_generator(built):
    done = run(built["generator"], ["-max=5"])
    assert (done.returncode, done.stderr) == (3, "FAIL Opts: unknown key 'n'\n")


# ---------------------------------------------------------------- the library's parts


@pytest.fixture(scope="module")
def selftest(built) -> dict[str, list[str]]:
    done = run(built["selftest"], SELFTEST_ARGS)
    assert done.returncode == 0, done.stderr
    for other in ("selftest_cxx11", "selftest_cxx20"):
        assert run(built[other], SELFTEST_ARGS).stdout == done.stdout, other
    rows: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        label, *values = line.split(" ")
        if label == "match":
            rows[f"match {values[0]} {values[1]}"] = values[2:]
        else:
            rows[label] = values
    return rows


def test_string_helpers(selftest):
    assert selftest["ending"] == ["st", "nd", "rd", "th", "th", "th", "th", "st", "th", "nd"]
    assert selftest["case"] == ["ABC1", "abc1", "[a", "b]"]
    assert selftest["format"] == ["7-x-1.50"]
    assert selftest["vtos"] == ["42", "-7", "0.25", "3", "s"]
    assert selftest["compress"] == ["64", "short"]


def test_double_comparison_is_absolute_or_relative(selftest):
    assert selftest["double"] == ["1", "0", "1", "1", "0"]
    assert selftest["delta"] == ["0.250", "0.500"]


@pytest.mark.parametrize(
    ("ptrn", "text", "matches"),
    [
        ("[a-z]{1,10}", "abc", "1"),
        ("[a-z]{1,10}", "<empty>", "0"),
        ("[a-z]{1,10}", "abcdefghijk", "0"),
        ("[a-z]{1,10}", "abC", "0"),
        ("[0-9]+", "007", "1"),
        ("a|bc", "bc", "1"),
        ("a|bc", "abc", "0"),
        ("(ab)*c", "ababc", "1"),
        ("(ab)*c", "abac", "0"),
        ("[^a-z]{2}", "A1", "1"),
        ("[^a-z]{2}", "a1", "0"),
        ("x?y{2,3}", "xyyy", "1"),
        ("x?y{2,3}", "xyyyy", "0"),
        ("[a-c-]+", "a-c", "1"),
        ("\\[[0-9]\\]", "[5]", "1"),
        ("(a|b)*abb", "babaabb", "1"),
        ("a{2,}", "aaaa", "1"),
        ("a{2,}", "a", "0"),
    ],
)
def test_patterns_match_whole_strings(selftest, ptrn, text, matches):
    assert selftest[f"match {ptrn} {text}"] == [matches]


def test_patterns_on_long_strings_and_generated_strings(selftest):
    assert selftest["long"] == ["1", "1", "0"]
    word, pairs, digits, plate = selftest["generated"]
    assert re.fullmatch("[a-z]{5}", word) and re.fullmatch("(ab|cd){3}x", pairs)
    assert re.fullmatch("[0-9]{1,3}", digits) and re.fullmatch("[A-Z]{2}-[0-9]{3}", plate)


def test_an_instream_over_a_string(selftest):
    assert selftest["stream"] == ["12", "-5", "abc", "3.5", "[", "line", "two]", "1"]


def test_checker_streams_are_lenient_about_blanks_and_line_ends(selftest):
    assert selftest["lenient"] == ["0", "7", "1", "x", "x", "y", "1", "[]", "1"]


@pytest.mark.parametrize(
    ("what", "test", "printed"),
    [
        ("strict", "1.25\n", "1.250"),
        ("strict", "0.5\n", "0.500"),
        ("unsigned", "18446744073709551615\n", "18446744073709551615"),
        ("long", "-5\n", "-5"),
        ("double", "1e0\n", "1"),
        ("chars", "a-b\n", "a b"),
        ("line", "hello world\n", "hello world"),
    ],
)
def test_strict_reads_accept(built, what, test, printed):
    done = run(built["reader"], [what], stdin=test)
    assert (done.returncode, done.stdout, done.stderr) == (0, printed + "\n", "")


@pytest.mark.parametrize(
    ("what", "test", "message"),
    [
        (
            "strict",
            "1.2345\n",
            "Expected strict double with number of digits after point in range [1, 2], but "
            '"1.2345" found',
        ),
        ("strict", "1\n", "Expected strict double with number of digits after point in range"),
        ("strict", "01.5\n", "Expected strict double"),
        ("strict", "-0.0\n", "Expected strict double"),
        ("strict", "1e1\n", "Expected strict double"),
        ("strict", "11.0\n", "Strict double parameter [name=p] equals to 11, violates the range"),
        ("unsigned", "18446744073709551616\n", 'Expected unsigned int64, but "1844674407370955'),
        ("unsigned", "-1\n", 'Expected unsigned int64, but "-1" found'),
        ("long", "6\n", "Integer parameter [name=x] equals to 6, violates the range [-5, 5]"),
        ("long", "+5\n", 'Expected int64, but "+5" found'),
        ("double", "2\n", "Double parameter [name=d] equals to 2, violates the range [0.5, 1.5]"),
        ("double", "inf\n", 'Expected double, but "inf" found'),
        ("chars", "a+b\n", "Unexpected character '+', but '-' expected"),
        ("chars", "", "Unexpected end of file - char expected"),
        ("chars", "a", "Unexpected end of file - '-' expected"),
        (
            "line",
            "Hello\n",
            'Line [name=s] equals to "Hello", doesn\'t correspond to pattern "[a-z ]{1,20}"',
        ),
    ],
)
def test_strict_reads_reject(built, what, test, message):
    done = run(built["reader"], [what], stdin=test)
    assert done.returncode == 3
    assert done.stderr.startswith("FAIL " + message), done.stderr
    assert done.stderr.endswith(", line 1)\n")


def test_generator_options_in_every_form(selftest):
    assert selftest["opts"] == ["5", "1000", "1", "0.25", "-7", "bob", "0", "42", "-n", "5"]


def test_random_helpers_keep_their_promises(selftest):
    assert sorted(map(int, selftest["perm"])) == list(range(1, 11))
    distinct = list(map(int, selftest["distinct"]))
    assert len(set(distinct)) == 5 and all(1 <= v <= 8 for v in distinct)
    wide = list(map(int, selftest["distinct_wide"]))
    assert len(set(wide)) == 5 and all(0 <= v < 10**9 for v in wide)
    parts = list(map(int, selftest["partition"]))
    assert len(parts) == 4 and sum(parts) == 20 and min(parts) >= 1
    parts = list(map(int, selftest["partition0"]))
    assert len(parts) == 3 and sum(parts) == 10 and min(parts) >= 0
    heavy, light, plain, lowest, highest, far = map(int, selftest["weighted"])
    assert heavy > 780 and light < 220 and 400 < plain < 600
    assert 0 <= lowest <= highest <= 9 and far <= 8
    assert selftest["range"] == ["5", "6", "7"]
    assert selftest["reals"] == ["1"] * 6
    assert sorted(selftest["shuffled"]) == list("123456")
    assert all(1 <= int(v) <= 6 for v in selftest["any"])
    assert 1 <= int(selftest["mixed"][0]) <= 10 and selftest["mixed"][1] == "1"


# ---------------------------------------------------------------- interactors


def _interact(built, tmp_path, participant: str) -> tuple[int, str]:
    (tmp_path / "input.txt").write_text("777\n")
    script = tmp_path / "participant.py"
    script.write_text(participant)
    to_interactor, from_participant = os.pipe()
    to_participant, from_interactor = os.pipe()
    interactor = subprocess.Popen(
        [str(built["interactor"]), str(tmp_path / "input.txt"), str(tmp_path / "tout.txt")],
        stdin=to_interactor,
        stdout=from_interactor,
        stderr=subprocess.PIPE,
        text=True,
    )
    solver = subprocess.Popen(
        [sys.executable, str(script)], stdin=to_participant, stdout=from_participant
    )
    for fd in (to_interactor, from_participant, to_participant, from_interactor):
        os.close(fd)
    try:
        _, stderr = interactor.communicate(timeout=30)
        solver.wait(timeout=30)
    finally:
        interactor.kill()
        solver.kill()
    return interactor.returncode, stderr.rstrip("\n")


def test_an_interactor_talks_to_the_participant(built, tmp_path):
    code, message = _interact(built, tmp_path, PARTICIPANT)
    assert code == 0
    assert re.fullmatch(r"ok guessed 777 in \d+ queries", message)
    assert (tmp_path / "tout.txt").read_text() == message.split()[-2] + "\n"


def test_an_interactor_sees_a_participant_that_stops(built, tmp_path):
    code, message = _interact(built, tmp_path, "print('? 500', flush=True)\ninput()\n")
    assert code == 2
    assert message == "wrong output format Unexpected end of file - token expected"
