"""Soak: many executions through ``execrl serve``, hostile programs mixed with benign ones, 64
client requests at once. Every request is answered exactly once, with its own program's
verdict (each program carries a unique token: its record's hash and problem id are checked),
no process is left behind, and the server's memory stays flat (each batch carries an
Idempotency-Key, as RemoteExecutor's do, so the bounded idempotency store is in the figure).

CI runs ``EXECRL_SOAK_N`` = 300 executions (default); the full soak is
``EXECRL_SOAK_N=10000 pytest tests/reliability/test_soak.py -s``.
"""

from __future__ import annotations

import asyncio
import os
import random
import uuid
from collections import Counter
from dataclasses import dataclass

import httpx
import psutil

from execrl.problems import StdioTest
from execrl.sandbox.limits import Limits
from execrl.sandbox.records import Status, program_sha256
from execrl.service.wire import DoneLine, decode_line
from tests.security.test_hostile_programs import CASES
from tests.service._server import running_server

N = int(os.environ.get("EXECRL_SOAK_N", "300"))
CONCURRENCY = 64
HOSTILE_EVERY = 10
"""One request in ten runs a hostile program."""
MAX_BATCH = 3
RSS_GROWTH_LIMIT_MB = 50 if N <= 1000 else 100
HOSTILE = {
    "busy_loop",
    "sleep_forever",
    "fork_bomb",
    "memory_bomb_gradual",
    "stdout_flood",
    "disk_fill_one_file",
    "kill_parent",
    "kill_minus_one",
    "detached_grandchild_outlives_test",
}
HOSTILE_CASES = [case for case in CASES if case.name in HOSTILE]
HOSTILE_LIMITS = Limits(cpu_time_s=0.5, wall_time_s=1.5, memory_mb=256, max_output_bytes=1 << 20)
"""Short limits, so the hostile share costs seconds at CI scale."""


@dataclass(frozen=True)
class Job:
    """One request of the soak and the verdicts it may get."""

    request: dict
    expect: frozenset[Status]

    @property
    def id(self) -> str:
        return self.request["problem_id"]


def benign(i: int, token: str, prefix: str) -> Job:
    """Prints its token; every other one is judged against another output (wrong answer)."""
    passes = i % 2 == 0
    test = StdioTest(id="t", input="", output=token if passes else "not-" + token)
    status = Status.SUCCESS if passes else Status.WRONG_ANSWER
    return _job(f"{prefix}-{i}", f"print({token!r})", test, Limits(), {status})


def hostile(i: int, token: str, prefix: str) -> Job:
    case = HOSTILE_CASES[(i // HOSTILE_EVERY) % len(HOSTILE_CASES)]
    code = f"{case.code}\n# {token}\n"
    return _job(f"{prefix}-{i}", code, case.test, HOSTILE_LIMITS, case.expect)


def _job(job_id: str, program: str, test, limits: Limits, expect: set[Status]) -> Job:
    request = {
        "program": program,
        "tests": [test.model_dump(mode="json")],
        "limits": limits.model_dump(mode="json", exclude_none=True),
        "problem_id": job_id,
    }
    return Job(request, frozenset(expect))


def jobs(n: int, prefix: str = "soak") -> list[Job]:
    """n jobs with ids ``prefix-i``, one in HOSTILE_EVERY hostile; each with a fresh token."""
    made = []
    for i in range(n):
        kind = hostile if i % HOSTILE_EVERY == HOSTILE_EVERY - 1 else benign
        made.append(kind(i, uuid.uuid4().hex, prefix))
    return made


def batches(all_jobs: list[Job], seed: int = 0) -> list[list[Job]]:
    """The jobs cut into client requests of 1 to MAX_BATCH programs."""
    rng, cut, i = random.Random(seed), [], 0
    while i < len(all_jobs):
        size = rng.randint(1, MAX_BATCH)
        cut.append(all_jobs[i : i + size])
        i += size
    return cut


async def send_all(url: str, work: list[list[Job]]) -> tuple[list[tuple[str, dict]], int]:
    """Send every batch, CONCURRENCY at a time: ((problem id, record) per answer, retries after
    a 429)."""
    answers: list[tuple[str, dict]] = []
    retries = 0
    pending = list(reversed(work))
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)

    async def client_loop(client: httpx.AsyncClient) -> None:
        nonlocal retries
        while pending:
            batch = pending.pop()
            while not await _send(client, batch, answers):
                retries += 1
                await asyncio.sleep(0.2)

    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        await asyncio.gather(*(client_loop(client) for _ in range(CONCURRENCY)))
    return answers, retries


async def _send(client: httpx.AsyncClient, batch: list[Job], answers: list) -> bool:
    """One batch's request; False when the queue was full (429)."""
    body = {"requests": [job.request for job in batch]}
    key = {"Idempotency-Key": batch[0].id}  # as RemoteExecutor sends: a retry runs nothing twice
    response = await client.post("/v1/execute", json=body, headers=key)
    if response.status_code == 429:
        return False
    assert response.status_code == 200, response.text
    *lines, done = [decode_line(line) for line in response.text.splitlines()]
    assert done == DoneLine(count=len(batch))
    assert sorted(line.index for line in lines) == list(range(len(batch)))
    for line in lines:
        record = line.record.model_dump(mode="json")
        answers.append((batch[line.index].id, record))
    return True


def test_soak_every_request_answered_once_with_its_own_verdict():
    all_jobs = jobs(N)
    by_id = {job.id: job for job in all_jobs}
    with running_server(workers=2) as server:
        process = psutil.Process(server.pid)
        warm, _ = asyncio.run(send_all(server.url, batches(jobs(32, prefix="warm-up"), seed=1)))
        assert len(warm) == 32
        start_rss = process.memory_info().rss
        start_children = len(process.children(recursive=True))
        answers, retries = asyncio.run(send_all(server.url, batches(all_jobs)))
        end_rss = process.memory_info().rss
        end_children = process.children(recursive=True)
    counts = Counter(problem_id for problem_id, _ in answers)
    assert set(counts) == set(by_id) and set(counts.values()) == {1}
    wrong = [
        (problem_id, record["results"][0]["status"], record["results"][0]["detail"])
        for problem_id, record in answers
        if not _is_its_own(by_id[problem_id], record)
    ]
    assert wrong == []
    growth_mb = (end_rss - start_rss) / 2**20
    print(
        f"\nsoak: {N} executions, {CONCURRENCY} concurrent, {retries} retries after 429; "
        f"server RSS {start_rss / 2**20:.1f} MB -> {end_rss / 2**20:.1f} MB "
        f"({growth_mb:+.1f} MB); {start_children} -> {len(end_children)} child processes"
    )
    assert growth_mb < RSS_GROWTH_LIMIT_MB
    assert len(end_children) == start_children  # no program outlived its test
    _, alive = psutil.wait_procs(end_children, timeout=10)
    assert alive == []  # and the server's shutdown left nothing behind


def _is_its_own(job: Job, record: dict) -> bool:
    """The record is this job's (same program hash and id) and its verdict is expected."""
    return (
        record["problem_id"] == job.id
        and record["program_sha256"] == program_sha256(job.request["program"])
        and Status(record["results"][0]["status"]) in job.expect
    )
