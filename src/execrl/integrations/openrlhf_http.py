"""OpenRLHF's remote reward endpoint on ``execrl serve``: ``POST /get_reward``, the path of
OpenRLHF's own ``serve_rm``, so ``--reward.remote_url http://host:port/get_reward`` is a drop-in.

The body is what OpenRLHF 0.11.2's ``SingleTurnAgentExecutor`` posts, ``{"query": [...],
"prompts": [...], "labels": [...]}``; the answer what it reads, ``{"rewards": [...],
"scores": [...], "extra_logs": {metric: [...]}}`` (:mod:`execrl.integrations.openrlhf`, whose
``reward_func`` scores the same way). Each sample runs on this server's executor through its
queue, as ``/v1/execute``'s requests do (a full queue is a 429); the token applies as on
every path. A body that is not such a request, or a label execrl cannot read, is a 422 with
a one-line ``{"error": ...}``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from execrl.errors import UsageError
from execrl.integrations.openrlhf import ascore_openrlhf_request

if TYPE_CHECKING:
    from execrl.sandbox.protocol import ExecutionRequest
    from execrl.sandbox.records import ExecutionRecord
    from execrl.service.state import Service

router = APIRouter(tags=["openrlhf"])


class _ServiceExecutor:
    """The service as the executor scoring awaits: each run admitted to its queue and counted
    in its metrics (``Service.execute``); anything else is the service's executor's."""

    def __init__(self, service: Service) -> None:
        self._service = service

    async def arun(self, request: ExecutionRequest) -> ExecutionRecord:
        return await self._service.execute(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._service.executor, name)


@router.post("/get_reward")
async def get_reward(request: Request) -> JSONResponse:
    """Score OpenRLHF's remote reward request (see the module's docstring)."""
    try:
        payload = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _unprocessable(
            'the body is not JSON: send {"query": [...], "prompts": [...], "labels": [...]}'
        )
    executor = _ServiceExecutor(request.app.state.service)
    try:
        answer = await ascore_openrlhf_request(payload, executor)  # type: ignore[arg-type]
    except UsageError as exc:
        return _unprocessable(str(exc))
    return JSONResponse(answer)


def _unprocessable(message: str) -> JSONResponse:
    return JSONResponse({"error": " ".join(message.split())}, status_code=422)
