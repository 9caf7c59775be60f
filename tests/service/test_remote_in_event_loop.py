"""RemoteExecutor opened and closed from inside a running event loop (an async trainer's
reward function): a server that does not answer is the clear "no execrl server answered"
error, not asyncio's "Cannot run the event loop while another loop is running"."""

from __future__ import annotations

import asyncio
import socket

import pytest

from execrl.errors import ExecutionError
from execrl.service.remote import RemoteExecutor


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_no_server_from_inside_an_event_loop_is_the_clear_error():
    url = f"http://127.0.0.1:{_closed_port()}"

    async def open_it() -> None:
        RemoteExecutor(url, retries=0)

    with pytest.raises(ExecutionError, match="no execrl server answered"):
        asyncio.run(open_it())
