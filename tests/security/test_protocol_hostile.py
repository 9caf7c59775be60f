"""Hostile programs against the assert-test call protocol (issue 15, part 2).

The checker process holds the test code and every expected value; the candidate process only
answers calls. Whatever the candidate sends back is data: it is decoded into plain values,
objects of the trusted prelude's classes (built without running the candidate's code) or
remote handles, and compared in the checker. These programs try to pass anyway.
"""

from __future__ import annotations

import textwrap

import pytest

from execrl.problems import AssertTest
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status

NODE_PRELUDE = textwrap.dedent(
    """\
    class ListNode:
        def __init__(self, val=0, next=None):
            self.val = val
            self.next = next
    """
)


def run(executor, program: str, code: str, entry_point: str = "f", prelude: str | None = None):
    test = AssertTest(id="t", code=textwrap.dedent(code), entry_point=entry_point)
    request = ExecutionRequest(program=textwrap.dedent(program), tests=[test], prelude=prelude)
    return executor.execute(request).results[0]


@pytest.mark.parametrize(
    "check",
    ["f(1) == 2", "not (f(1) != 2)", "f(1) in {2}", "2 == f(1)", "f(1) < 3", "2 in f(1)"],
)
def test_rigged_comparisons_never_run_in_the_checker(executor, check):
    program = """\
    class Anything:
        def __eq__(self, other): return True
        def __ne__(self, other): return False
        def __lt__(self, other): return True
        def __contains__(self, other): return True
        def __hash__(self): return hash(2)
    def f(x): return Anything()
    """
    result = run(executor, program, f"assert {check}\n")
    assert result.status is Status.RUNTIME_ERROR
    assert "Anything" in result.detail and "only plain data" in result.detail


def test_a_rigged_subclass_of_a_prelude_class_travels_as_state_only(executor):
    program = """\
    class ListNode(ListNode):
        def __eq__(self, other): return True
    def f(head): return ListNode(99)
    """
    code = """\
    expected = ListNode(1)
    result = f(ListNode(1))
    assert type(result) is ListNode and result.val == 99
    assert result != expected
    """
    result = run(executor, program, code, prelude=NODE_PRELUDE)
    assert result.status is Status.SUCCESS, result.detail  # the checker's view: a plain node 99
    liar = run(executor, program, "assert f(ListNode(1)) == ListNode(1)\n", prelude=NODE_PRELUDE)
    assert liar.status is Status.WRONG_ANSWER


def test_garbage_on_the_reply_channel_is_a_protocol_error(executor):
    program = """\
    import os
    os.write(5, b"\\xff\\xff\\xff\\xff garbage")
    def f(x): return 2
    """
    result = run(executor, program, "assert f(1) == 2\n")
    assert result.status is Status.RUNTIME_ERROR
    assert "over 256 MiB" in result.detail


def test_a_forged_report_on_every_channel_does_not_pass(executor):
    program = """\
    import json, os, struct, sys
    report = json.dumps({"passed": True, "payload_sizes": []}).encode()
    framed = struct.pack(">I", len(report)) + report
    for fd in (1, 3, 5):
        try:
            os.write(fd, framed)
        except OSError:
            pass
    def f(x): return 0
    """
    result = run(executor, program, "assert f(1) == 2\n")
    assert result.status is Status.RUNTIME_ERROR
    assert "broke the call protocol" in result.detail


def test_forged_exceptions_cannot_stop_the_checker(executor):
    for name in ("SystemExit", "KeyboardInterrupt", "AssertionError", "GeneratorExit"):
        program = f"""\
        import json, os, struct
        def send(message):
            body = json.dumps(dict(message, payload_sizes=[])).encode()
            os.write(5, struct.pack(">I", len(body)) + body)
        send({{"hello": {{}}}})
        send({{"raised": {{"type": "{name}", "base": "{name}", "args": None, "message": "0"}}}})
        os.close(5)
        def f(x): return 0
        """
        code = "try:\n    f(1)\nexcept BaseException:\n    pass\nassert f(1) == 2\n"
        result = run(executor, program, code)
        assert result.status is Status.RUNTIME_ERROR, (name, result)


def test_expected_values_never_reach_the_candidate(executor):
    """The candidate records every request it is sent (by patching the sandbox's own reader)
    and returns the log: comparing its handle with the expected value sent nothing."""
    program = """\
    import sys
    zygote = sys.modules["_zygote.calls"]
    seen = []
    original = zygote.read_message
    def spy(fd):
        header, payloads = original(fd)
        seen.append(repr(header))
        return header, payloads
    zygote.read_message = spy
    class Opaque:
        pass
    def f(x):
        return Opaque() if x == 1 else " ".join(seen)
    """
    code = """\
    result = f(1)
    try:
        leaked = result == "SECRET-5150"
    except BaseException:
        pass
    log = f(2)
    assert "resolve" in log, "the spy saw nothing"
    assert "SECRET-5150" in log
    """
    result = run(executor, program, code)
    assert result.status is Status.WRONG_ANSWER
    assert result.detail == "AssertionError"  # the spy worked; the secret was not in its log


def test_prelude_objects_with_cyclic_and_huge_state(executor):
    program = """\
    def f(n):
        node = ListNode()
        node.next = node
        node.val = list(range(n))
        node.val.append(node.val)
        return node
    """
    code = """\
    node = f(1_000_000)
    assert node.next is node and node.val[-1] is node.val
    assert node.val[:-1] == list(range(1_000_000))
    """
    result = run(executor, program, code, prelude=NODE_PRELUDE)
    assert result.status is Status.SUCCESS, result.detail


def test_an_object_of_an_unknown_class_in_a_forged_reply_is_refused(executor):
    program = """\
    import json, os, struct
    def send(message):
        body = json.dumps(dict(message, payload_sizes=[])).encode()
        os.write(5, struct.pack(">I", len(body)) + body)
    send({"hello": {}})
    # the forged answer goes after the checker's call has arrived: sent before it, this
    # process could end before the checker called (on a loaded machine), which stops the test
    # before any reply is read
    os.read(4, 1 << 16)
    send({"value": {"root": {"ref": 0}, "table": [["obj", "os", []]]}})
    os.close(5)
    def f(x): return 0
    """
    result = run(executor, program, "assert f(1) == 2\n", prelude=NODE_PRELUDE)
    assert result.status is Status.RUNTIME_ERROR
    assert "unreadable return value" in result.detail
