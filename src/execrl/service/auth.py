"""Who may use ``execrl serve``: the service token, in every form the clients people use can
send, and the rule that a server reachable from other machines has one.

A request carries the token in any one of:

- ``Authorization: Bearer TOKEN`` (``RemoteExecutor``, curl, httpx);
- HTTP Basic with the token as the password, any user name (``http://execrl:TOKEN@host:8080``:
  requests, aiohttp and httpx turn a URL's user-info into this header, so the
  ``sandbox-fusion`` client and verl's sandbox_fusion reward send it from the URL alone);
- a path prefix ``/t/TOKEN/`` (``http://host:8080/t/TOKEN/run_code``: for a client that drops
  user-info), stripped before routing.

Tokens are compared in constant time (digests of equal length, ``hmac.compare_digest``), and
the token is never logged, echoed in an error or kept in the request the app sees.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable

from execrl.errors import UsageError

TOKEN_ENV = "EXECRL_SERVICE_TOKEN"
"""The environment variable ``execrl serve`` (and ``RemoteExecutor``) read the token from."""
PATH_PREFIX = "/t/"
"""A path ``/t/TOKEN/rest`` is the request for ``/rest`` with the token."""
AUTH_FORMS = ("bearer", "basic", "path")
"""The forms a token may take, as ``execrl serve`` names them on start."""

ASGIApp = Callable[[dict, Callable, Callable], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) reaches this machine only; a name other
    than ``localhost`` may resolve anywhere, so it is not."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None, insecure_no_auth: bool) -> None:
    """Refuse to serve a non-loopback address without a token unless told to (anyone who
    reaches it could run programs here)."""
    if token or insecure_no_auth or is_loopback(host):
        return
    raise UsageError(
        f"refusing to serve on {host} without a token: anyone who can reach it could run "
        f"programs on this machine; give `token` (or set {TOKEN_ENV}), bind a loopback "
        "address, or set `insecure_no_auth` if every client of this network is trusted"
    )


def _digest(value: bytes) -> bytes:
    return hashlib.sha256(value).digest()


class TokenAuth:
    """ASGI middleware: every path but ``open_paths`` needs the token, in one of the forms of
    the module's docstring; a ``/t/TOKEN/`` prefix is stripped either way."""

    def __init__(self, app: ASGIApp, *, token: str, open_paths: frozenset[str]) -> None:
        self.app = app
        self._digest = _digest(token.encode())
        self._open_paths = open_paths

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given_in_path, scope = _strip_path_token(scope)
        if given_in_path is not None:
            authorized = self._matches(given_in_path)
        else:
            authorized = self._matches(_header_token(scope))
        if authorized or (given_in_path is None and scope["path"] in self._open_paths):
            await self.app(scope, receive, send)
            return
        await _refuse(send)

    def _matches(self, given: bytes | None) -> bool:
        """Constant time in the token: both sides are hashed to digests of one length first."""
        return given is not None and hmac.compare_digest(_digest(given), self._digest)


def _strip_path_token(scope: dict) -> tuple[bytes | None, dict]:
    """(the token of a ``/t/TOKEN/...`` path, percent-decoded, and the scope without it) or
    (None, scope)."""
    path: str = scope["path"]
    if not path.startswith(PATH_PREFIX):
        return None, scope
    token, _, rest = path[len(PATH_PREFIX) :].partition("/")
    raw = scope.get("raw_path")
    if raw is not None:  # the same segment, as the client spelled it
        raw = b"/" + raw[len(PATH_PREFIX) :].partition(b"/")[2]
    stripped = dict(scope, path="/" + rest, raw_path=raw)
    return token.encode("utf-8", "surrogateescape"), stripped


def _header_token(scope: dict) -> bytes | None:
    """The token of an ``Authorization: Bearer`` or ``Basic`` header (Basic: the password)."""
    header = dict(scope["headers"]).get(b"authorization")
    if header is None:
        return None
    scheme, _, value = header.strip().partition(b" ")
    scheme, value = scheme.lower(), value.strip()
    if scheme == b"bearer":
        return value
    if scheme == b"basic":
        try:
            decoded = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return None
        return decoded.partition(b":")[2] if b":" in decoded else None
    return None


async def _refuse(send: Callable) -> None:
    """401 with a one-line JSON error (the token given is never echoed)."""
    body = json.dumps({"error": "missing or wrong bearer token"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
                (b"www-authenticate", b'Bearer, Basic realm="execrl"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
