"""SandboxFusion-compatible endpoints (``/run_code``, ``/submit``) — being written."""

from fastapi import APIRouter

router = APIRouter()
