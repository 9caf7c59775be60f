"""The wire format shared with the host: a 4-byte length, a JSON header, then raw payload
bytes (``payload_sizes`` in the header). Buffers that held a program's data are zeroed
(``scrub``) before they are freed. Imported by the host too (``forkserver``)."""

from __future__ import annotations

import ctypes
import json
import os
import struct

LENGTH_PREFIX = struct.Struct(">I")


def encode_message(header: dict, *payloads: bytes) -> bytearray:
    """One whole message: encoding fails (or succeeds) before anything is sent. Built in
    place, with no intermediate copies of the payloads (which may be a program's output:
    see scrub)."""
    header = dict(header, payload_sizes=[len(p) for p in payloads])
    body = json.dumps(header).encode()
    message = bytearray(LENGTH_PREFIX.size + len(body) + sum(len(p) for p in payloads))
    LENGTH_PREFIX.pack_into(message, 0, len(body))
    view, at = memoryview(message), LENGTH_PREFIX.size
    for part in (body, *payloads):
        view[at : at + len(part)] = part
        at += len(part)
    view.release()
    return message


def write_message(fd: int, header: dict, *payloads: bytes) -> None:
    message = encode_message(header, *payloads)
    try:
        write_all(fd, message)
    finally:
        scrub(message)


_BYTES_DATA = bytes.__basicsize__ - 1
"""Where a bytes object's contents start, from its address (CPython's PyBytesObject)."""


def scrub(*buffers) -> None:
    """Zero buffers the zygote is done with — programs' outputs and sources, the messages
    that carried them — before their memory is freed: freed memory keeps its contents, and
    every later child inherits the zygote's heap, where a program reading raw memory (ctypes)
    would find a neighbour's answer or its own earlier repeat's output. Only objects nothing
    else uses may be given: bytes are zeroed in place (CPython's one-byte and empty bytes are
    shared singletons, and are skipped)."""
    for data in buffers:
        if type(data) is bytearray:
            data[:] = bytes(len(data))  # in place (same length), no ctypes call in a child
        elif type(data) is bytes and len(data) > 1:
            ctypes.memset(id(data) + _BYTES_DATA, 0, len(data))


def read_message(fd: int, *, exact: bool = False) -> tuple[dict, list]:
    """Read one message. With ``secret_last`` in the header, the last payload is read straight
    into a bytearray (no immutable copies), so its owner can zero it after use. ``exact``
    (a counted zygote): every part is read that way, so what is allocated does not depend on
    how the data arrived in pieces (a count must not depend on the host's timing)."""
    read = read_into if exact else read_exact
    (size,) = LENGTH_PREFIX.unpack(read(fd, LENGTH_PREFIX.size))
    header = json.loads(read(fd, size))
    sizes = header.pop("payload_sizes", [])
    secret = sizes.pop() if header.get("secret_last") and sizes else None
    payloads: list = [read(fd, n) for n in sizes]
    if secret is not None:
        payloads.append(read_into(fd, secret))
    return header, payloads


def read_into(fd: int, n: int) -> bytearray:
    """``n`` bytes into one bytearray of exactly that size."""
    buffer = bytearray(n)
    view, got = memoryview(buffer), 0
    while got < n:
        k = os.readv(fd, [view[got:]])
        if not k:
            view.release()
            scrub(buffer)
            raise EOFError("peer closed the channel")
        got += k
    view.release()
    return buffer


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_exact(fd: int, n: int) -> bytes:
    chunks, remaining = [], n
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            scrub(*chunks)
            raise EOFError("peer closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return joined(chunks)


def joined(chunks: list[bytes]) -> bytes:
    """The chunks as one bytes; the chunks themselves are scrubbed once copied."""
    if len(chunks) == 1:
        return chunks[0]
    data = b"".join(chunks)
    scrub(*chunks)
    return data
