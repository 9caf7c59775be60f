"""Getting the program out of a completion."""

from __future__ import annotations

import pytest

from execrl.extract import extract_code
from execrl.sandbox.languages import language

FUNCTION = "def is_even(n):\n    return n % 2 == 0\n"
USAGE = "print(is_even(4))\n"
BOTH = f"Here:\n```python\n{FUNCTION}```\nUsage:\n```python\n{USAGE}```\n"


def test_last_python_block_wins_without_an_entry_point():
    assert extract_code(BOTH) == USAGE


def test_the_block_defining_the_entry_point_wins_over_a_later_usage_example():
    assert extract_code(BOTH, "is_even") == FUNCTION


@pytest.mark.parametrize("entry_point", ["is_odd", "is_eve", None, ""])
def test_no_defining_block_falls_back_to_the_last_block(entry_point):
    assert extract_code(BOTH, entry_point) == USAGE


def test_the_last_of_several_defining_blocks_wins_and_async_def_counts():
    second = "async def is_even(n):\n    return not n & 1\n"
    text = f"```python\n{FUNCTION}```\n```python\n{second}```\n```python\n{USAGE}```"
    assert extract_code(text, "is_even") == second


def test_entry_point_is_matched_literally_not_as_a_regex():
    text = f"```python\n{FUNCTION}```\n```python\n{USAGE}```"
    assert extract_code(text, "is.even") == USAGE


def test_no_fence_gives_the_whole_text_and_an_unclosed_fence_counts():
    assert extract_code(FUNCTION, "is_even") == FUNCTION
    assert extract_code(f"```python\n{FUNCTION}", "is_even") == FUNCTION


# -- a requested language --------------------------------------------------------------------
CPP = (
    "#include <bits/stdc++.h>\nint main() { long a, b; std::cin >> a >> b; std::cout << a + b; }\n"
)
CPP_FIRST_TRY = "#include <iostream>\nint main() { int a, b; std::cin >> a >> b; }\n"
JAVA = (
    "import java.util.*;\npublic class Main {\n  public static void main(String[] a) {\n"
    "    Scanner s = new Scanner(System.in);\n"
    "    System.out.println(s.nextLong() + s.nextLong());\n"
    "  }\n}\n"
)
PYTHON = "a, b = map(int, input().split())\nprint(a + b)\n"
MODEL_ANSWER = (
    "Let me think about the constraints first. A brute force would be:\n\n"
    f"```python\n{PYTHON}```\n\n"
    "That is too slow in Python for 10^18, so here is a C++ version. A first try:\n\n"
    f"```c++\n{CPP_FIRST_TRY}```\n\n"
    "It forgets to print the sum. The fixed program:\n\n"
    f"```cpp\n{CPP}```\n\n"
    "Compile it with:\n\n```bash\ng++ -O2 -o main main.cpp\n```\n\n"
    f"And the same in Java, for reference:\n\n```java\n{JAVA}```\n"
)


def test_the_last_block_of_the_requested_language_wins():
    assert extract_code(MODEL_ANSWER, language=language("cpp")) == CPP
    assert extract_code(MODEL_ANSWER, language=language("java")) == JAVA
    assert extract_code(MODEL_ANSWER, language=language("python")) == PYTHON


@pytest.mark.parametrize("name", ["cpp", "c++", "CPP", "cc", "g++", ".cc"])
def test_any_name_of_the_language_matches_any_fence_tag_of_it(name):
    text = f"Slow:\n```c++\n{CPP_FIRST_TRY}```\nFast:\n```CPP\n{CPP}```\nDone."
    assert extract_code(text, language=language(name)) == CPP


@pytest.mark.parametrize(
    ("tag", "name"),
    [
        ("rust", "rust"),
        ("rs", "rust"),
        ("go", "golang"),
        ("js", "javascript"),
        ("javascript", "node"),
        ("c", "c"),
        ("java", "java"),
    ],
)
def test_each_language_is_found_by_its_usual_tags(tag, name):
    body = "the program\n"
    text = f"```python\n{PYTHON}```\nThe answer:\n```{tag}\n{body}```\n```text\nsample\n```"
    assert extract_code(text, language=language(name)) == body


def test_a_c_block_is_not_cpp_and_a_cpp_block_is_not_c():
    c_program = '#include <stdio.h>\nint main(void) { puts("c"); }\n'
    text = f"```c\n{c_program}```\n```cpp\n{CPP}```\n"
    assert extract_code(text, language=language("c")) == c_program
    assert extract_code(text, language=language("cpp")) == CPP


def test_an_untagged_block_is_accepted_for_any_language():
    text = f"Java first:\n```java\n{JAVA}```\nNow plain:\n```\n{CPP}```\n"
    assert extract_code(text, language=language("cpp")) == CPP
    assert extract_code(text, language=language("java")) == CPP  # the later one


def test_without_a_block_of_the_language_the_usual_rule_applies():
    text = f"```python\n{PYTHON}```\n```bash\necho hi\n```\n"
    assert extract_code(text, language=language("cpp")) == PYTHON
    assert extract_code("no fences: int main() {}", language=language("cpp")) == (
        "no fences: int main() {}"
    )


def test_a_truncated_block_of_the_language_counts():
    text = f"```python\n{PYTHON}```\nIn C++:\n```cpp\n{CPP}"
    assert extract_code(text, language=language("cpp")) == CPP


def test_a_string_language_matches_its_own_spelling_and_python_its_usual_tags():
    assert extract_code(MODEL_ANSWER, language="java") == JAVA
    assert extract_code(MODEL_ANSWER, language="cpp") == CPP
    text = f"```py\n{PYTHON}```\n```cpp\n{CPP}```\n"
    assert extract_code(text, language="python") == PYTHON


def test_the_entry_point_rule_holds_with_language_python():
    assert extract_code(BOTH, "is_even", language=language("python")) == FUNCTION
    assert extract_code(BOTH, language=language("python3")) == USAGE


def test_without_a_language_the_behaviour_is_unchanged():
    assert extract_code(MODEL_ANSWER) == PYTHON  # the last Python block, as before
    only_cpp = f"Here it is:\n```cpp\n{CPP}```\n"
    assert extract_code(only_cpp) == CPP  # the last block of any language
