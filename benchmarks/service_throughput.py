"""Benchmark: ``execrl serve`` versus the local pool, per execution, on the HumanEval workload
(164 canonical solutions and a corrupted variant of each, as in humaneval_throughput.py).

At each client concurrency (1, 8, 64, 128 requests in flight, one program per request) it
measures p50/p99 latency and throughput of: the local pool (``LocalExecutor.arun``), the
native API (``POST /v1/execute`` with httpx), and SandboxFusion's official client
(``sandbox_fusion.run_code_async``) against ``/run_code`` when the server has it. Every verdict
is checked (canonical passes, corrupted fails); the ratios are measured in one run.

    python benchmarks/service_throughput.py [--workers N] [--out results/service.json]
    python benchmarks/service_throughput.py --quick      # a tiny run that checks it works

Targets (issue 19): service throughput >= 85 % of the local pool at concurrency 64; at 128,
p99 under 3x p50 and no timeouts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests.service._server
from _common import report
from humaneval_throughput import TIMEOUT_S, canonical_and_corrupted, execrl_requests

from execrl.problems.humaneval import load_humaneval
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest
from execrl.service.wire import RecordLine, decode_line
from tests.service._server import running_server

CONCURRENCY = (1, 8, 64, 128)
QUICK_CONCURRENCY = (1, 8)
QUICK_PROBLEMS = 8
CLIENT_TIMEOUT_S = 120.0
RATE = "throughput_per_s"

Send = Callable[[int], Awaitable[bool]]
"""Runs job i and says whether it passed."""


def run_code_program(problem, completion: str) -> str:
    """The same job as one script for /run_code: solution, tests, and the check call."""
    test = problem.tests[0].code
    return f"{problem.statement}{completion}\n\n{test}\n\ncheck({problem.entry_point})\n"


async def measure(send: Send, n: int, concurrency: int) -> dict:
    """Jobs 0..n-1 with ``concurrency`` in flight: latencies, throughput and the verdicts."""
    latencies: list[float] = [0.0] * n
    passed: list[bool] = [False] * n
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with gate:
            started = time.perf_counter()
            passed[i] = await send(i)
            latencies[i] = time.perf_counter() - started

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    elapsed = time.perf_counter() - started
    return {"elapsed_s": elapsed, "latencies": latencies, "passed": passed}


def summary(run: dict, expected: list[bool]) -> dict:
    latencies = sorted(run["latencies"])
    p50 = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))]
    return {
        "throughput_per_s": round(len(latencies) / run["elapsed_s"], 1),
        "p50_ms": round(p50 * 1000, 1),
        "p99_ms": round(p99 * 1000, 1),
        "p99_over_p50": round(p99 / p50, 2) if p50 else None,
        "wrong_verdicts": sum(
            got != want for got, want in zip(run["passed"], expected, strict=True)
        ),
    }


def local_sender(executor: LocalExecutor, requests: list[ExecutionRequest]) -> Send:
    async def send(i: int) -> bool:
        return (await executor.arun(requests[i])).all_passed

    return send


def native_sender(client, requests: list[ExecutionRequest]) -> Send:
    """One request per POST through httpx (what RemoteExecutor is built on)."""
    bodies = [{"requests": [r.model_dump(mode="json")]} for r in requests]

    async def send(i: int) -> bool:
        response = await client.post("/v1/execute", json=bodies[i])
        response.raise_for_status()
        return _passed(response.text)

    return send


def aiohttp_sender(session, url: str, requests: list[ExecutionRequest]) -> Send:
    """The same POSTs through aiohttp: a client whose own cost at 128 connections is small
    (httpx's pool is not; on a 2-core machine the client shares the server's host core)."""
    bodies = [json.dumps({"requests": [r.model_dump(mode="json")]}) for r in requests]
    headers = {"content-type": "application/json"}

    async def send(i: int) -> bool:
        async with session.post(f"{url}/v1/execute", data=bodies[i], headers=headers) as answer:
            answer.raise_for_status()
            return _passed(await answer.text())

    return send


def _passed(stream: str) -> bool:
    line = decode_line(stream.splitlines()[0])
    assert isinstance(line, RecordLine)
    return line.record.all_passed


def sandbox_fusion_sender(url: str, programs: list[str]) -> Send:
    from sandbox_fusion import RunCodeRequest, run_code_async

    async def send(i: int) -> bool:
        request = RunCodeRequest(code=programs[i], language="python", run_timeout=TIMEOUT_S)
        response = await run_code_async(request, endpoint=url, client_timeout=CLIENT_TIMEOUT_S)
        return response.status.value == "Success"

    return send


async def sweep(send: Send, n: int, expected: list[bool], levels) -> dict:
    await measure(send, min(n, 16), 4)  # warm-up: the first compile, connections
    return {c: summary(await measure(send, n, c), expected) for c in levels}


def run_local(requests, expected, workers: int, levels) -> tuple[dict, list[str]]:
    with LocalExecutor(workers=workers, reserve_host_core=True) as executor:
        results = asyncio.run(
            sweep(local_sender(executor, requests), len(requests), expected, levels)
        )
        results["run_batch"] = batch_throughput(executor, requests, expected)
        return results, executor.isolation


def run_service(requests, programs, expected, workers: int, levels) -> tuple[dict, dict | None]:
    import httpx

    limits = httpx.Limits(max_connections=max(levels), max_keepalive_connections=max(levels))
    with running_server(workers=workers, queue_limit=4 * max(levels)) as server, host_core():
        paths = httpx.get(f"{server.url}/openapi.json").json()["paths"]

        async def native() -> dict:
            async with httpx.AsyncClient(
                base_url=server.url, timeout=CLIENT_TIMEOUT_S, limits=limits
            ) as client:
                return await sweep(native_sender(client, requests), len(requests), expected, levels)

        async def native_aiohttp() -> dict:
            import aiohttp

            connector = aiohttp.TCPConnector(limit=max(levels))
            async with aiohttp.ClientSession(connector=connector) as session:
                send = aiohttp_sender(session, server.url, requests)
                return await sweep(send, len(requests), expected, levels)

        native_results = {"httpx": asyncio.run(native()), "aiohttp": asyncio.run(native_aiohttp())}
        native_results["remote_executor"] = remote_batch(server.url, requests, expected)
        fusion_results = None
        if "/run_code" in paths:
            send = sandbox_fusion_sender(server.url, programs)
            fusion_results = asyncio.run(sweep(send, len(programs), expected, levels))
    return native_results, fusion_results


def remote_batch(url: str, requests: list[ExecutionRequest], expected: list[bool]) -> dict:
    """``RemoteExecutor.run_batch`` of the whole workload (it sends chunks, not one POST per
    program): throughput only, to compare with the local pool's ``run_batch``."""
    from execrl.service.remote import RemoteExecutor

    with RemoteExecutor(url) as executor:
        return batch_throughput(executor, requests, expected)


def batch_throughput(executor, requests: list[ExecutionRequest], expected: list[bool]) -> dict:
    list(executor.run_batch(requests[:16], progress=False))  # warm-up
    started = time.perf_counter()
    records = list(executor.run_batch(requests, progress=False))
    elapsed = time.perf_counter() - started
    wrong = sum(r.all_passed != want for r, want in zip(records, expected, strict=True))
    return {"throughput_per_s": round(len(records) / elapsed, 1), "wrong_verdicts": wrong}


@contextlib.contextmanager
def host_core() -> Iterator[None]:
    """Keep this process (the clients) on the first core, off the sandbox's timed cores, as the
    local pool keeps its own bookkeeping there (``reserve_host_core``): on one machine a
    client competing with the programs would slow them, which a remote client does not."""
    available = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(available)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, available)


def ratios(local: dict, service: dict | None) -> dict:
    """Service throughput as a share of the local pool's, per concurrency."""
    if service is None:
        return {}
    return {
        c: round(service[c]["throughput_per_s"] / local[c]["throughput_per_s"], 3)
        for c in local
        if c in service
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, help="sandbox workers (default: cores - 1)")
    parser.add_argument("--quick", action="store_true", help="a few problems, concurrency 1, 8")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    problems = load_humaneval()[: QUICK_PROBLEMS if args.quick else None]
    levels = QUICK_CONCURRENCY if args.quick else CONCURRENCY
    jobs = canonical_and_corrupted(problems)
    expected = [should_pass for _, _, should_pass in jobs]
    requests = execrl_requests(jobs)
    programs = [run_code_program(problem, completion) for problem, completion, _ in jobs]
    workers = args.workers or max(1, len(os.sched_getaffinity(0)) - 1)
    local, isolation = run_local(requests, expected, workers, levels)
    native, fusion = run_service(requests, programs, expected, workers, levels)
    per_request = {c: r for c, r in native.items() if c != "remote_executor"}
    remote = native["remote_executor"][RATE]
    result = {
        "executions": len(jobs),
        "workers": workers,
        "local_pool": local,
        "service_native": native,
        "service_sandbox_fusion_client": fusion,
        "native_over_local_throughput": {
            client: ratios(local, by_level) for client, by_level in per_request.items()
        },
        "remote_executor_over_local_run_batch": round(remote / local["run_batch"][RATE], 3),
        "sandbox_fusion_over_local_throughput": ratios(local, fusion),
        "targets": "native >= 0.85 of local at 64; at 128 p99/p50 < 3, no timeouts",
        "isolation": isolation,
    }
    report("service throughput", result, args.out)
    runs = {"local": local, **{f"native-{c}": r for c, r in native.items()}, "fusion": fusion}
    wrong = [
        name
        for name, levels_run in runs.items()
        if levels_run and any(_wrong(level) for level in levels_run.values())
    ]
    if wrong:
        raise SystemExit(f"wrong verdicts through: {', '.join(wrong)}")


def _wrong(level: dict) -> int:
    return level["wrong_verdicts"] if isinstance(level, dict) and "wrong_verdicts" in level else 0


if __name__ == "__main__":
    main()
